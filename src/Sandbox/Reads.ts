/**
 * The sandbox's summaries, logs and log searches.
 */
import * as Tables from "../Tools/Tables.js"
import { isKind, kinds } from "./Kinds.js"
import { logKey } from "./Lifecycle.js"
import type { Handler } from "./Resources.js"
import { missingField, type Params, ref, ServiceFailure } from "./Store.js"
import type { LogLine, World } from "./World.js"

const summary = (world: World, kind: keyof typeof kinds) => {
  const fields = kinds[kind].summary ?? {}
  const counts: Record<string, number> = { total: 0 }
  for (const field of Object.values(fields)) counts[field] = 0
  counts.unknown = 0
  for (const r of world.store.all(kind)) {
    counts.total = (counts.total ?? 0) + 1
    const field = fields[String(r.info.state)] ?? "unknown"
    counts[field] = (counts[field] ?? 0) + 1
  }
  return counts
}

/** The service's default tail, and its ceiling. */
const tailOf = (params: Params) => {
  const tail = params.tail
  if (tail === undefined) return 50
  if (typeof tail !== "number" || !Number.isInteger(tail) || tail < 0) {
    throw new ServiceFailure(422, "Failed to deserialize the JSON body: tail: expected u64")
  }
  return Math.min(tail, 5000)
}

const render = (lines: ReadonlyArray<LogLine>, params: Params) =>
  lines.map((l) => (params.timestamps === true ? `${new Date(l.ts).toISOString()} ${l.text}` : l.text)).join("\n")

const asLog = (world: World, command: string, lines: ReadonlyArray<LogLine>, params: Params) => {
  const now = world.now()
  return {
    stage: "Get Log",
    command,
    stdout: render(lines, params),
    stderr: "",
    success: true,
    start_ts: now,
    end_ts: now,
  }
}

const stringList = (params: Params, field: string): ReadonlyArray<string> => {
  const value = params[field]
  if (value === undefined) throw missingField(field)
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new ServiceFailure(422, `Failed to deserialize the JSON body: ${field}: expected a sequence of strings`)
  }
  return value
}

/** The lines of one log source, and the command the service would have run for them. */
const sources: Record<string, (world: World, params: Params) => { lines: ReadonlyArray<LogLine>; command: string }> = {
  stack: (world, params) => {
    const stack = world.store.find("stack", ref(params, "stack"))
    const services = stringList(params, "services")
    const lines = world
      .logOf(logKey("stack", stack))
      .filter((l) => services.length === 0 || services.includes(l.service))
    return { lines, command: `docker compose -p ${stack.name} logs ${services.join(" ")}`.trim() }
  },
  deployment: (world, params) => {
    const deployment = world.store.find("deployment", ref(params, "deployment"))
    return { lines: world.logOf(logKey("deployment", deployment)), command: `docker logs ${deployment.name}` }
  },
  container: (world, params) => {
    const { container } = world.container(ref(params, "server"), ref(params, "container"))
    const owner = container.owner
    const lines =
      owner === undefined
        ? world.logOf(`container:${container.id}`)
        : world.logOf(`${owner.kind}:${owner.id}`).filter((l) => l.service === owner.service)
    return { lines, command: `docker logs ${container.name}` }
  },
  swarm_service: (world, params) => {
    const swarm = world.store.find("swarm", ref(params, "swarm"))
    const service = ref(params, "service")
    return { lines: world.logOf(`swarm_service:${swarm.name}/${service}`), command: `docker service logs ${service}` }
  },
}

const search = (lines: ReadonlyArray<LogLine>, params: Params) => {
  const terms = stringList(params, "terms")
  const combinator = params.combinator ?? "Or"
  if (combinator !== "Or" && combinator !== "And") {
    throw new ServiceFailure(
      422,
      `Failed to deserialize the JSON body: combinator: unknown variant \`${String(combinator)}\``,
    )
  }
  const hit = (l: LogLine) =>
    combinator === "And" ? terms.every((t) => l.text.includes(t)) : terms.some((t) => l.text.includes(t))
  return lines.filter((l) => hit(l) !== (params.invert === true))
}

export const handlers = (world: World): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  for (const [kind, endpoint] of Object.entries(Tables.summary)) {
    if (isKind(kind)) routes.set(`read/${endpoint}`, () => summary(world, kind))
  }
  for (const [source, endpoint] of Object.entries(Tables.logs)) {
    const read = sources[source]
    if (read === undefined) continue
    routes.set(`read/${endpoint}`, (params) => {
      const { lines, command } = read(world, params)
      const tail = tailOf(params)
      return asLog(world, `${command} --tail ${tail}`, tail === 0 ? [] : lines.slice(-tail), params)
    })
  }
  for (const [source, endpoint] of Object.entries(Tables.search_logs)) {
    const read = sources[source]
    if (read === undefined) continue
    routes.set(`read/${endpoint}`, (params) => {
      const { lines, command } = read(world, params)
      return asLog(world, `${command} | grep`, search(lines, params), params)
    })
  }
  return routes
}
