/**
 * What the service's monitoring answers: each server's stats (its last
 * report, and a series over time that ends in it: for a server that stopped
 * answering, when it was last seen), its system and agent, the
 * containers it runs and what owns them, and which of a resource's actions
 * are running now (the nine Get...ActionState, from the Updates in progress).
 */

import type { Handler } from "../Resources/Resources.js"
import { listed } from "../World/Containers.js"
import { stackServices } from "../World/Lifecycle.js"
import { requireLevel } from "../World/Permissions.js"
import { type Kind, kinds } from "../World/ResourceTypes.js"
import { isRecord } from "../World/Schema.js"
import { type Caller, type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import type { Container, World } from "../World/World.js"

/** The field of a kind's action state that each operation in progress sets. */
const ACTION_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  stack: {
    DeployStack: "deploying",
    DeployStackService: "deploying",
    PullStack: "pulling",
    StartStack: "starting",
    RestartStack: "restarting",
    PauseStack: "pausing",
    UnpauseStack: "unpausing",
    StopStack: "stopping",
    DestroyStack: "destroying",
  },
  deployment: {
    Deploy: "deploying",
    PullDeployment: "pulling",
    StartDeployment: "starting",
    RestartDeployment: "restarting",
    PauseDeployment: "pausing",
    UnpauseDeployment: "unpausing",
    StopDeployment: "stopping",
    DestroyDeployment: "destroying",
    RenameDeployment: "renaming",
  },
  build: { RunBuild: "building" },
  repo: { CloneRepo: "cloning", PullRepo: "pulling", BuildRepo: "building", RenameRepo: "renaming" },
  procedure: { RunProcedure: "running" },
  action: { RunAction: "running" },
  sync_resource: { RunSync: "syncing" },
  server: {
    PruneNetworks: "pruning_networks",
    PruneContainers: "pruning_containers",
    PruneImages: "pruning_images",
    PruneVolumes: "pruning_volumes",
    PruneDockerBuilders: "pruning_builders",
    PruneBuildx: "pruning_buildx",
    PruneSystem: "pruning_system",
    StartContainer: "starting_containers",
    StartAllContainers: "starting_containers",
    RestartContainer: "restarting_containers",
    RestartAllContainers: "restarting_containers",
    PauseContainer: "pausing_containers",
    PauseAllContainers: "pausing_containers",
    UnpauseContainer: "unpausing_containers",
    UnpauseAllContainers: "unpausing_containers",
    StopContainer: "stopping_containers",
    StopAllContainers: "stopping_containers",
    DestroyContainer: "destroying_containers",
  },
  swarm: {},
}

/** Whether each action runs now, or how many of it run (the definition says which it answers). */
const actionState = (world: World, kind: Kind, r: Resource) => {
  const fields = ACTION_FIELDS[kind] ?? {}
  const endpoint = `read/Get${kinds[kind].target}ActionState`
  const shape = world.schema.endpointSchema(endpoint, "response")?.schema.properties ?? {}
  const running = new Map<string, number>()
  for (const u of world.history.updates) {
    const field = fields[u.operation]
    if (u.status === "InProgress" && u.target.id === r.id && field !== undefined) {
      running.set(field, (running.get(field) ?? 0) + 1)
    }
  }
  return Object.fromEntries(
    Object.entries(shape).map(([field, schema]) => {
      const count = running.get(field) ?? 0
      return [field, world.schema.resolve(schema).schema.type === "number" ? count : count > 0]
    }),
  )
}

/** Milliseconds in each of the service's lengths of time (`5-min`, `1-hr`, ...). */
const lengthMs = (length: string): number => {
  const [count, unit] = length.split("-")
  const ms: Readonly<Record<string, number>> = { sec: 1e3, min: 6e4, hr: 36e5, day: 864e5, wk: 6048e5 }
  return Number(count) * (ms[unit ?? ""] ?? 6e4)
}

const HISTORY_PAGE = 100
/** How far back a server's stats go: a week, or 1000 points at the finest granularity. */
const HISTORY_MS = 7 * 864e5

const num = (value: unknown) => (typeof value === "number" ? value : 0)
const round = (value: number) => Math.round(value * 100) / 100

const disksOf = (stats: Record<string, unknown>) =>
  num(stats.disk_total_gb) === 0
    ? []
    : [{ mount: "/", file_system: "/dev/sda1", used_gb: num(stats.disk_used_gb), total_gb: num(stats.disk_total_gb) }]

const statsOf = (server: Resource): Record<string, unknown> => (isRecord(server.info.stats) ? server.info.stats : {})

/** The agent's poll, every five seconds. */
const POLL_MS = 5000

/** A server's last report as its agent's polls keep it: refreshed at the last poll, unless the agent stopped answering. */
const polled = (world: World, server: Resource): Record<string, unknown> => {
  const stats = statsOf(server)
  if (world.watch.unreachable.has(server.id)) return stats
  const last = Math.floor(world.now() / POLL_MS) * POLL_MS
  return { ...stats, refresh_ts: last, refresh_list_ts: last }
}

/** What a server reported at `ts`: the report then in effect, its last if none came after. */
const reportAt = (world: World, server: Resource, ts: number) =>
  world.watch.reports.get(server.id)?.find((r) => r.until > ts)?.stats ?? statsOf(server)

/** The point `i` steps back from the last: the report then, with the ripple of a day, and less disk used. */
const pointBefore = (server: Resource, stats: Record<string, unknown>, ts: number, i: number, total: number) => {
  const wave = Math.sin(i / 6)
  const disk = num(stats.disk_used_gb) * (1 - (0.06 * i) / total)
  return {
    ts,
    sid: server.id,
    cpu_perc: round(Math.max(0, Math.min(100, num(stats.cpu_perc) * (1 + 0.2 * wave)))),
    load_average: isRecord(stats.load_average) ? stats.load_average : { one: 0, five: 0, fifteen: 0 },
    mem_used_gb: round(Math.min(num(stats.mem_total_gb), num(stats.mem_used_gb) * (1 + 0.05 * wave))),
    mem_total_gb: num(stats.mem_total_gb),
    disk_used_gb: round(disk),
    disk_total_gb: num(stats.disk_total_gb),
    disks: disksOf({ ...stats, disk_used_gb: round(disk) }),
    network_ingress_bytes: num(stats.network_ingress_bytes),
    network_egress_bytes: num(stats.network_egress_bytes),
  }
}

const history = (world: World, server: Resource, params: Params) => {
  const step = lengthMs(String(params.granularity ?? "5-min"))
  const total = Math.min(1000, Math.floor(HISTORY_MS / step))
  const pageNo = typeof params.page === "number" && params.page > 0 ? Math.floor(params.page) : 0
  const stats = statsOf(server)
  // A server that stopped answering reported last when it was last seen: its series ends there.
  const seen =
    world.watch.unreachable.has(server.id) && typeof stats.refresh_ts === "number" ? stats.refresh_ts : world.now()
  const last = Math.floor(seen / step) * step
  const stepsBack = Array.from({ length: HISTORY_PAGE }, (_, k) => pageNo * HISTORY_PAGE + k).filter((i) => i < total)
  // The series ends in the last report; each point before it, in the report then in effect.
  const points = stepsBack.map((i) =>
    pointBefore(server, i === 0 ? stats : reportAt(world, server, last - i * step), last - i * step, i, total),
  )
  return total > (pageNo + 1) * HISTORY_PAGE ? { stats: points, next_page: pageNo + 1 } : { stats: points }
}

const owned = (world: World, r: Resource) => world.allContainers().filter((c) => c.owner?.id === r.id)

const serviceState = (c: Container | undefined) =>
  c === undefined ? "Down" : c.state === "running" ? "Running" : c.state === "paused" ? "Paused" : "Exited"

/** The reads of one resource, each behind the caller's Read on it. */
const readable = (world: World, kind: Kind) => (p: Params, caller: Caller) => {
  const r = world.store.find(kind, ref(p, kinds[kind].key, "id", "name"))
  requireLevel(world, caller, kind, r, "Read")
  return r
}

const serverReads = (world: World, add: (endpoint: string, handler: Handler) => void) => {
  const server = readable(world, "server")
  add("GetSystemStats", (p, caller) => {
    const s = server(p, caller)
    // The disk's figures are in `disks` here, not beside the others as in a list's.
    const { disk_used_gb: _, disk_total_gb: __, ...stats } = polled(world, s)
    return { ...stats, disks: disksOf(statsOf(s)) }
  })
  add("GetHistoricalServerStats", (p, caller) => history(world, server(p, caller), p))
  add("GetSystemInformation", (p, caller) => {
    const s = server(p, caller)
    const cores = num(statsOf(s).mem_total_gb) >= 16 ? 8 : 4
    return {
      name: s.name,
      os: "Ubuntu 24.04.1 LTS",
      kernel: "6.8.0-48-generic",
      core_count: cores,
      logical_core_count: cores * 2,
      host_name: s.name,
      cpu_brand: "AMD EPYC 7763 64-Core Processor",
      cpu_arch: "x86_64",
    }
  })
  add("GetServerState", (p, caller) => ({ status: String(server(p, caller).info.state ?? "Ok") }))
  add("GetPeripheryInformation", (p, caller) => {
    const s = server(p, caller)
    if (s.info.state === "NotOk") throw new ServiceFailure(500, `Server ${s.name} is not reachable`)
    return {
      version: String(s.info.version ?? "v2.3.3"),
      public_key: String(s.info.public_key ?? `MCowBQYDK2VuAyEA${s.id.slice(-12)}periphery`),
      terminals_disabled: false,
      container_terminals_disabled: false,
      stats_polling_rate: "5-sec",
      docker_connected: true,
      public_ip: String(s.config.address ?? "").replace(/^https?:\/\/([^:/]+).*$/, "$1"),
    }
  })
  add("GetContainersSummary", () => {
    const all = world.allContainers()
    const count = (test: (c: Container) => boolean) => all.filter(test).length
    return {
      total: all.length,
      running: count((c) => c.state === "running"),
      stopped: count((c) => c.state === "exited" || c.state === "paused" || c.state === "created"),
      unhealthy: 0,
      unknown: count((c) => c.state === "removing"),
    }
  })
  add("GetResourceMatchingContainer", (p, caller) => {
    const { container } = world.container(server(p, caller).id, ref(p, "container"))
    const owner = container.owner
    return owner === undefined ? {} : { resource: { type: kinds[owner.kind].target, id: owner.id } }
  })
}

const workloadReads = (world: World, add: (endpoint: string, handler: Handler) => void) => {
  const deployment = readable(world, "deployment")
  add("GetDeploymentContainer", (p, caller) => {
    const d = deployment(p, caller)
    const [container] = owned(world, d)
    return { state: d.info.state, ...(container === undefined ? {} : { container: listed(world, container) }) }
  })
  add("GetDeploymentStats", (p, caller) => {
    const d = deployment(p, caller)
    // A restarting container is there between its crashes: docker answers its stats.
    const running = owned(world, d).find((c) => c.state === "running" || c.state === "restarting")
    // The service asks the server's docker, whose own words are the error's cause.
    if (running === undefined)
      throw new ServiceFailure(500, `failed to get stats for container ${d.name}`, [
        `Error: No such container: ${d.name}`,
      ])
    return {
      name: running.name,
      cpu_perc: "0.42%",
      mem_perc: "1.18%",
      mem_usage: "96.5MiB / 7.76GiB",
      net_io: "1.2MB / 842kB",
      block_io: "12.3MB / 0B",
      pids: "11",
    }
  })
  const stack = readable(world, "stack")
  add("ListStackServices", (p, caller) => {
    const s = stack(p, caller)
    const containers = owned(world, s)
    return stackServices(s).map(({ service, image }) => {
      const container = containers.find((c) => c.owner?.service === service)
      return {
        stack_id: s.id,
        stack_name: s.name,
        service,
        image,
        state: serviceState(container),
        ...(container === undefined ? {} : { container: listed(world, container) }),
      }
    })
  })
  add("GetBuildMonthlyStats", (p) => {
    const day = 864e5
    const pageNo = typeof p.page === "number" && p.page > 0 ? Math.floor(p.page) : 0
    const end = (Math.floor(world.now() / day) + 1 - pageNo * 30) * day
    const builds = world.history.updates.filter(
      (u) => u.operation === "RunBuild" && u.start_ts < end && u.start_ts >= end - 30 * day,
    )
    const days = Array.from({ length: 30 }, (_, i) => {
      const ts = end - (30 - i) * day
      const those = builds.filter((u) => u.start_ts >= ts && u.start_ts < ts + day)
      const time = those.reduce((sum, u) => sum + ((u.end_ts ?? u.start_ts) - u.start_ts) / 60_000, 0)
      return { ts, count: those.length, time: round(time) }
    })
    return {
      total_count: days.reduce((sum, d) => sum + d.count, 0),
      total_time: round(days.reduce((sum, d) => sum + d.time, 0)),
      days,
    }
  })
}

export const handlers = (world: World): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const add = (endpoint: string, handler: Handler) => routes.set(`read/${endpoint}`, handler)
  serverReads(world, add)
  workloadReads(world, add)
  for (const kind of Object.keys(ACTION_FIELDS) as Array<Kind>) {
    const r = readable(world, kind)
    add(`Get${kinds[kind].target}ActionState`, (p, caller) => actionState(world, kind, r(p, caller)))
  }
  return routes
}
