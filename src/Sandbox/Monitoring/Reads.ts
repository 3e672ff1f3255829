/**
 * The sandbox's summaries, logs and log searches.
 */

import type { Handler } from "../Resources/Resources.js"
import { logKey } from "../World/Lifecycle.js"
import { type Kind, kinds, resourceKinds } from "../World/ResourceTypes.js"
import { missingField, type Params, ref } from "../World/Store.js"
import type { LogLine, World } from "../World/World.js"

/** The counters the definitions give a summary, each state adding to its own (or to `unknown`). */
const summary = (world: World, kind: Kind) => {
  const endpoint = `read/Get${kinds[kind].plural}Summary`
  const fields = Object.keys(world.schema.endpointSchema(endpoint, "response")?.schema.properties ?? {})
  const counts: Record<string, number> = Object.fromEntries(fields.map((field) => [field, 0]))
  const byState = kinds[kind].summary ?? {}
  for (const r of world.store.all(kind)) {
    counts.total = (counts.total ?? 0) + 1
    const field = byState[String(r.info.state)]
    const counter = field !== undefined && field in counts ? field : "unknown"
    if (counter in counts) counts[counter] = (counts[counter] ?? 0) + 1
  }
  return counts
}

/** The service's default tail; deployment and container logs stop at 5000 lines, stacks' do not. */
const tailOf = (params: Params, clamped: boolean) => {
  const tail = typeof params.tail === "number" ? params.tail : 50
  return clamped ? Math.min(tail, 5000) : tail
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
  if (!Array.isArray(value)) throw missingField(field)
  return value as ReadonlyArray<string>
}

/** The lines of one log source, and the command the service would have run for them. */
const sources: Record<string, (world: World, params: Params) => { lines: ReadonlyArray<LogLine>; command: string }> = {
  stack: (world, params) => {
    const stack = world.store.find("stack", ref(params, "stack", "id", "name"))
    const services = stringList(params, "services")
    const lines = world
      .logOf(logKey("stack", stack))
      .filter((l) => services.length === 0 || services.includes(l.service))
    return { lines, command: `docker compose -p ${stack.name} logs ${services.join(" ")}`.trim() }
  },
  deployment: (world, params) => {
    const deployment = world.store.find("deployment", ref(params, "deployment", "id", "name"))
    return { lines: world.logOf(logKey("deployment", deployment)), command: `docker logs ${deployment.name}` }
  },
  container: (world, params) => {
    const { container } = world.container(ref(params, "server", "id", "name"), ref(params, "container"))
    const owner = container.owner
    const lines =
      owner === undefined
        ? world.logOf(`container:${container.id}`)
        : world.logOf(`${owner.kind}:${owner.id}`).filter((l) => l.service === owner.service)
    return { lines, command: `docker logs ${container.name}` }
  },
  swarm_service: (world, params) => {
    const swarm = world.store.find("swarm", ref(params, "swarm", "id", "name"))
    const service = ref(params, "service")
    return { lines: world.logOf(`swarm_service:${swarm.name}/${service}`), command: `docker service logs ${service}` }
  },
}

const search = (lines: ReadonlyArray<LogLine>, params: Params) => {
  const terms = stringList(params, "terms")
  const combinator = params.combinator ?? "Or"
  const hit = (l: LogLine) =>
    combinator === "And" ? terms.every((t) => l.text.includes(t)) : terms.some((t) => l.text.includes(t))
  return lines.filter((l) => hit(l) !== (params.invert === true))
}

/** The log sources by the service's names: `GetStackLog`, `SearchStackLog`, ... */
const SOURCES = { stack: "Stack", deployment: "Deployment", container: "Container", swarm_service: "SwarmService" }

export const handlers = (world: World): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  for (const kind of resourceKinds) {
    routes.set(`read/Get${kinds[kind].plural}Summary`, () => summary(world, kind))
  }
  for (const [source, name] of Object.entries(SOURCES)) {
    const read = sources[source]
    if (read === undefined) continue
    routes.set(`read/Get${name}Log`, (params) => {
      const { lines, command } = read(world, params)
      const tail = tailOf(params, source !== "stack")
      return asLog(world, `${command} --tail ${tail}`, tail === 0 ? [] : lines.slice(-tail), params)
    })
    routes.set(`read/Search${name}Log`, (params) => {
      const { lines, command } = read(world, params)
      return asLog(world, `${command} | grep`, search(lines, params), params)
    })
  }
  return routes
}
