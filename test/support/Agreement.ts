/**
 * The rules of agreement between the sandbox's answers: what one read says,
 * another does not contradict. Each rule is a named predicate over a reading
 * of the sandbox through its API (`readAll`), answering what breaks it
 * (nothing when it holds); `PRUNE_FREES` holds over a prune, before and after.
 */
import * as Effect from "effect/Effect"
import type * as Sandbox from "../../src/Sandbox/Server.js"
import type * as Sandboxes from "./Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

type Ok = ReturnType<typeof Sandboxes.asAdmin>["ok"]

interface ServerReading {
  readonly name: string
  readonly containers: ReadonlyArray<Any>
  /** Each container's inspect and its log lines (timestamped), by name. */
  readonly inspected: ReadonlyMap<string, Any>
  readonly logs: ReadonlyMap<string, ReadonlyArray<{ readonly ts: number; readonly text: string }>>
  readonly images: ReadonlyArray<Any>
  readonly volumes: ReadonlyArray<Any>
  /** Its stats, unless its agent does not answer. */
  readonly stats: Any
  readonly history: ReadonlyArray<Any>
}

export interface Reading {
  /** The scenario's now, after every read. */
  readonly now: number
  readonly servers: ReadonlyArray<ServerReading>
  readonly deployments: ReadonlyArray<Any>
  readonly stacks: ReadonlyArray<Any>
  /** Each deployment's container, as GetDeploymentContainer answers it. */
  readonly deploymentContainers: ReadonlyMap<string, Any>
  /** Each stack's services, as ListStackServices answers them. */
  readonly stackServices: ReadonlyMap<string, ReadonlyArray<Any>>
  readonly alerts: ReadonlyArray<Any>
  readonly updates: ReadonlyArray<Any>
}

const timestamped = (stdout: string) =>
  stdout === ""
    ? []
    : stdout.split("\n").map((line) => {
        const space = line.indexOf(" ")
        return { ts: Date.parse(line.slice(0, space)), text: line.slice(space + 1) }
      })

/** Reads the sandbox as a client would: every server's docker objects and stats, the workloads, alerts and Updates. */
export const readAll = (sandbox: Sandbox.Sandbox, ok: Ok): Effect.Effect<Reading> =>
  Effect.gen(function* () {
    const servers: Array<ServerReading> = []
    for (const server of yield* ok("read/ListServers", {})) {
      const containers = yield* ok("read/ListContainers", { server: server.name })
      const inspected = new Map<string, Any>()
      const logs = new Map<string, ReadonlyArray<{ ts: number; text: string }>>()
      for (const c of containers) {
        inspected.set(c.name, yield* ok("read/InspectContainer", { server: server.name, container: c.name }))
        const log = yield* ok("read/GetContainerLog", {
          server: server.name,
          container: c.name,
          tail: 5000,
          timestamps: true,
        })
        logs.set(c.name, timestamped(log.stdout))
      }
      const reachable = server.info.state !== "NotOk"
      servers.push({
        name: server.name,
        containers,
        inspected,
        logs,
        images: yield* ok("read/ListImages", { server: server.name }),
        volumes: yield* ok("read/ListVolumes", { server: server.name }),
        stats: reachable ? yield* ok("read/GetSystemStats", { server: server.name }) : undefined,
        history: (yield* ok("read/GetHistoricalServerStats", { server: server.name, granularity: "1-hr" })).stats,
      })
    }
    const deployments = yield* ok("read/ListDeployments", {})
    const deploymentContainers = new Map<string, Any>()
    for (const d of deployments) {
      deploymentContainers.set(d.name, yield* ok("read/GetDeploymentContainer", { deployment: d.name }))
    }
    const stackServices = new Map<string, ReadonlyArray<Any>>()
    const stacks = yield* ok("read/ListStacks", {})
    for (const s of stacks) {
      stackServices.set(s.name, yield* ok("read/ListStackServices", { stack: s.name }))
    }
    const alerts = (yield* ok("read/ListAlerts", {})).alerts
    const updates = (yield* ok("read/ListUpdates", {})).updates
    return {
      now: sandbox.world.now(),
      servers,
      deployments,
      stacks,
      deploymentContainers,
      stackServices,
      alerts,
      updates,
    }
  })

const EXIT = /exited with code (\d+)/

/** A container's `Exited (1) ...` or `Restarting (1) ...` status's code. */
const statusCode = (status: string) => /^(?:Exited|Restarting) \((\d+)\)/.exec(status)?.[1]

const eachContainer = (reading: Reading, check: (server: ServerReading, c: Any) => ReadonlyArray<string>) =>
  reading.servers.flatMap((server) => server.containers.flatMap((c) => check(server, c)))

/** A rule: its name, and what in a reading breaks it. */
export type Rule = readonly [name: string, broken: (reading: Reading) => ReadonlyArray<string>]

export const RULES: ReadonlyArray<Rule> = [
  [
    "an image a container uses is listed in use on its server",
    (r) =>
      eachContainer(r, (server, c) =>
        server.images.some((i) => i.name === c.image && i.in_use === true)
          ? []
          : [`${server.name}: ${c.name}'s image ${c.image} is not listed in use`],
      ),
  ],
  [
    "a volume a container mounts is listed in use on its server, with its size",
    (r) =>
      eachContainer(r, (server, c) =>
        c.volumes.flatMap((v: string) =>
          server.volumes.some((x) => x.name === v && x.in_use === true && x.size > 0)
            ? []
            : [`${server.name}: ${c.name}'s volume ${v} is not listed in use with a size`],
        ),
      ),
  ],
  [
    "an image or volume listed in use is used by a container on its server",
    (r) =>
      r.servers.flatMap((server) => [
        ...server.images
          .filter((i) => i.in_use && !server.containers.some((c) => c.image === i.name))
          .map((i) => `${server.name}: image ${i.name} is in use by no container`),
        ...server.volumes
          .filter((v) => v.in_use && !server.containers.some((c) => c.volumes.includes(v.name)))
          .map((v) => `${server.name}: volume ${v.name} is in use by no container`),
      ]),
  ],
  [
    "a container's list item and inspect agree on state, exit code, image and restarting",
    (r) =>
      eachContainer(r, (server, c) => {
        const inspect = server.inspected.get(c.name)
        const found = [
          inspect.State.Status === c.state,
          inspect.Config.Image === c.image,
          inspect.Id === c.id,
          inspect.State.Restarting === (c.state === "restarting"),
          inspect.State.Running === ["running", "paused", "restarting"].includes(c.state),
          statusCode(c.status) === undefined || Number(statusCode(c.status)) === inspect.State.ExitCode,
          (c.state === "running") === c.status.startsWith("Up ") && !c.status.includes("Paused"),
        ]
        return found.every(Boolean)
          ? []
          : [`${server.name}: ${c.name} reads ${c.state} "${c.status}" and ${JSON.stringify(inspect.State)}`]
      }),
  ],
  [
    "a container's exit code is the last one its logs show since it was made",
    (r) =>
      eachContainer(r, (server, c) => {
        const inspect = server.inspected.get(c.name)
        if (c.state !== "exited" && c.state !== "restarting") return []
        const created = Date.parse(inspect.Created)
        const exits = (server.logs.get(c.name) ?? [])
          .filter((l) => l.ts >= created)
          .flatMap((l) => EXIT.exec(l.text)?.[1] ?? [])
        const shown = exits.length === 0 ? 0 : Number(exits.at(-1))
        const crashed = c.state === "restarting" && exits.length === 0
        return shown === inspect.State.ExitCode && !crashed
          ? []
          : [`${server.name}: ${c.name} exited ${inspect.State.ExitCode}, its logs say ${exits.at(-1) ?? "nothing"}`]
      }),
  ],
  [
    "a deployment's state is its container's",
    (r) =>
      r.deployments.flatMap((d) => {
        const answer = r.deploymentContainers.get(d.name)
        // A deployment on a swarm runs as the swarm's service, in no container of a server's docker.
        const state = answer?.container?.state ?? (d.info.swarm_id === "" ? "not_deployed" : answer?.state)
        const agree = d.info.state === state && answer?.state === d.info.state
        const image = answer?.container === undefined || answer.container.image === d.info.image
        return agree && image ? [] : [`deployment ${d.name} is ${d.info.state}, its container ${state}`]
      }),
  ],
  [
    "a stack's services are its containers, with their images and states",
    (r) =>
      [...r.stackServices].flatMap(([stack, services]) =>
        services.flatMap((s) => {
          const c = s.container
          const running = c?.state === "running"
          const agree =
            c === undefined ? s.state === "Down" : c.image === s.image && running === (s.state === "Running")
          return agree
            ? []
            : [`stack ${stack}'s ${s.service} is ${s.state} on ${s.image}; its container ${c?.state} on ${c?.image}`]
        }),
      ),
  ],
  [
    "no time is later than the scenario's now",
    (r) => {
      const times: Array<readonly [string, number]> = [
        ...r.alerts.flatMap((a) => [
          [`alert ${a.data.type}`, a.ts] as const,
          [`alert ${a.data.type} resolved`, a.resolved_ts ?? 0] as const,
        ]),
        ...r.updates.map((u) => [`update ${u.operation}`, u.start_ts] as const),
        ...r.servers.flatMap((s) => [
          ...(s.stats === undefined
            ? []
            : [
                [`${s.name} refresh_ts`, s.stats.refresh_ts] as const,
                [`${s.name} refresh_list_ts`, s.stats.refresh_list_ts] as const,
              ]),
          ...s.history.map((p) => [`${s.name} history`, p.ts] as const),
          ...s.images.map((i) => [`${s.name} image ${i.name}`, i.created * 1000] as const),
          ...s.volumes.flatMap((v) =>
            v.created === undefined ? [] : [[`${s.name} volume ${v.name}`, Date.parse(v.created)] as const],
          ),
          ...s.containers.flatMap((c) => {
            const state = s.inspected.get(c.name).State
            return [
              [`${c.name} created`, c.created * 1000] as const,
              [`${c.name} started`, Date.parse(state.StartedAt)] as const,
              [`${c.name} finished`, Date.parse(state.FinishedAt)] as const,
              ...(s.logs.get(c.name) ?? []).map((l) => [`${c.name} log`, l.ts] as const),
            ]
          }),
        ]),
      ]
      return times
        .filter(([, ts]) => !(ts <= r.now))
        .map(([what, ts]) => `${what} at ${new Date(ts).toISOString()}, after now`)
    },
  ],
  [
    "a stack's status counts its containers by state",
    (r) =>
      r.stacks.flatMap((s) => {
        const counts = new Map<string, number>()
        for (const service of r.stackServices.get(s.name) ?? []) {
          const state = service.container?.state
          if (state !== undefined) counts.set(state, (counts.get(state) ?? 0) + 1)
        }
        const expected = [...counts].map(([state, count]) => `${count} ${state}`).sort()
        const status = s.info.status === "" ? [] : String(s.info.status).split(", ").sort()
        return JSON.stringify(status) === JSON.stringify(expected) ? [] : [`stack ${s.name} says "${s.info.status}"`]
      }),
  ],
  [
    "Updates and alerts are listed newest first",
    (r) =>
      [["update", r.updates.map((u) => u.start_ts)] as const, ["alert", r.alerts.map((a) => a.ts)] as const].flatMap(
        ([what, times]) =>
          times.slice(1).every((ts, i) => ts <= (times[i] as number))
            ? []
            : [`${what}s out of order: ${times.join(", ")}`],
      ),
  ],
  [
    "an open disk alert says the disk its server's stats say",
    (r) =>
      r.alerts
        .filter((a) => !a.resolved && a.data.type === "ServerDisk")
        .flatMap((a) => {
          const stats = r.servers.find((s) => s.name === a.data.data.name)?.stats
          const used = stats?.disks?.[0]?.used_gb
          return used === a.data.data.used_gb
            ? []
            : [`${a.data.data.name}'s disk alert says ${a.data.data.used_gb} GB, its stats ${used}`]
        }),
  ],
]

/** Bytes of docker's `415MB`, `1.2GB`, `0B`. */
const bytesOf = (size: string) => {
  const match = /^([\d.]+)(GB|MB|kB|B)$/.exec(size)
  const unit: Readonly<Record<string, number>> = { GB: 1e9, MB: 1e6, kB: 1e3, B: 1 }
  return match === null ? Number.NaN : Number(match[1]) * (unit[match[2] as string] ?? Number.NaN)
}

/** A prune's reclaimed space is what the disk frees, to the precision docker prints it. */
export const PRUNE_FREES = (before: number, after: number, output: string): ReadonlyArray<string> => {
  const reclaimed = /Total reclaimed space: (\S+)/.exec(output)?.[1] ?? ""
  const freed = (before - after) * 1e9
  const bytes = bytesOf(reclaimed)
  // Docker prints GB to a tenth and MB whole; the disk's figures are to a hundredth of a GB.
  return Math.abs(freed - bytes) <= 0.06e9 ? [] : [`reclaimed ${reclaimed}, the disk freed ${freed} bytes`]
}
