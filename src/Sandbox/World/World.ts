/**
 * Everything the sandbox knows beyond resource records, one structure per
 * concept (Docker's objects, the executions' record, monitoring, the sync's
 * repositories, access), each kept within its bound (BOUNDS); the scenario's
 * clock; and the service's definitions it answers by.
 */
import { Clock } from "./Clock.js"
import type {
  AlertRecord,
  ApiKeyRecord,
  Container,
  Crash,
  Image,
  LogLine,
  Named,
  PermissionRecord,
  RepoCommit,
  SandboxUser,
  UpdateRecord,
} from "./Entries.js"
import type { ServiceSchema } from "./Schema.js"
import * as Schema from "./Schema.js"
import { type Resource, ServiceFailure, Store } from "./Store.js"

// The entries by the module of the world that holds them, as its readers import them.
export type {
  AlertRecord,
  ApiKeyRecord,
  Container,
  Crash,
  Declared,
  Image,
  LogLine,
  PermissionRecord,
  RepoCommit,
  SandboxUser,
  UpdateRecord,
} from "./Entries.js"

/** How much of each concept a long-running sandbox keeps: past its bound, the oldest go first. */
export const BOUNDS = {
  /** Containers, images, networks and volumes on one server. */
  dockerObjects: 1000,
  /** Lines of one log, and logs kept. */
  logLines: 5000,
  logs: 2000,
  updates: 1000,
  alerts: 1000,
  /** Earlier reports of one server, for its stats over time. */
  reports: 100,
  repositories: 1000,
  terminals: 200,
  onboardingKeys: 200,
} as const

/** Drops the oldest of `list` past `bound`. */
export const keep = <A>(list: Array<A>, bound: number): Array<A> => {
  if (list.length > bound) list.splice(0, list.length - bound)
  return list
}

/** A map of lists whose list is made on first use; the first keys go past `bound` keys. */
const listOf = <A>(map: Map<string, Array<A>>, key: string, bound: number): Array<A> => {
  let list = map.get(key)
  if (list === undefined) {
    list = []
    map.set(key, list)
    if (map.size > bound) map.delete(map.keys().next().value as string)
  }
  return list
}

/** What docker holds on each server, by server id, and what its registries and images do. */
class DockerObjects {
  readonly containers = new Map<string, Array<Container>>()
  readonly images = new Map<string, Array<Image>>()
  readonly networks = new Map<string, Array<Named>>()
  readonly volumes = new Map<string, Array<Named>>()
  /** Images whose registry holds a newer build than the one running, as a check finds them. */
  readonly newerImages = new Set<string>()
  /** Images whose containers crash-loop, by image name (a scenario's). */
  readonly crashing = new Map<string, Crash>()
  /** Containers made so far, for their ids. */
  made = 0

  containersOn(serverId: string): Array<Container> {
    return listOf(this.containers, serverId, BOUNDS.dockerObjects)
  }
  imagesOn(serverId: string): Array<Image> {
    return listOf(this.images, serverId, BOUNDS.dockerObjects)
  }
  networksOn(serverId: string): Array<Named> {
    return listOf(this.networks, serverId, BOUNDS.dockerObjects)
  }
  volumesOn(serverId: string): Array<Named> {
    return listOf(this.volumes, serverId, BOUNDS.dockerObjects)
  }
  /** Adds `item` to a server's list, within its bound. */
  add<A>(list: Array<A>, item: A): void {
    list.push(item)
    keep(list, BOUNDS.dockerObjects)
  }
}

/** What the executions leave: their Updates and the log lines of what they run. */
class History {
  readonly updates: Array<UpdateRecord> = []
  /** Log lines of a stack, a deployment, a container or a swarm service, by key. */
  readonly logs = new Map<string, Array<LogLine>>()

  logOf(key: string): Array<LogLine> {
    return listOf(this.logs, key, BOUNDS.logs)
  }
  addUpdate(update: UpdateRecord): void {
    this.updates.push(update)
    keep(this.updates, BOUNDS.updates)
  }
}

/** What the service's monitoring knows: alerts, each server's reports over time, the agents that do not answer. */
class Watch {
  readonly alerts: Array<AlertRecord> = []
  /** Each server's earlier reports, oldest first: the stats it reported until a moment (its stats over time). */
  readonly reports = new Map<string, Array<{ readonly until: number; readonly stats: Record<string, unknown> }>>()
  /** Servers whose agent does not answer: executions on them fail (a scenario's). */
  readonly unreachable = new Set<string>()

  addAlert(alert: AlertRecord): void {
    this.alerts.push(alert)
    keep(this.alerts, BOUNDS.alerts)
  }
  reportsOf(serverId: string): Array<{ readonly until: number; readonly stats: Record<string, unknown> }> {
    return listOf(this.reports, serverId, BOUNDS.dockerObjects)
  }
}

/** Users and what lets them in: accounts, keys, passwords, permissions, shells, onboarding keys. */
class Access {
  readonly users: Array<SandboxUser> = []
  /** API keys made through the API (the two seeded accounts' keys are the server's own). */
  readonly apiKeys: Array<ApiKeyRecord> = []
  /** The passwords of local users made through the API, by user id. */
  readonly passwords = new Map<string, string>()
  readonly permissions: Array<PermissionRecord> = []
  /** Shells opened on servers and containers, by the name of their target. */
  readonly terminals: Array<Record<string, unknown> & { name: string; target_name: string }> = []
  readonly onboardingKeys: Array<Record<string, unknown> & { public_key: string }> = []
}

export class World {
  readonly store: Store
  readonly docker = new DockerObjects()
  readonly history = new History()
  readonly watch = new Watch()
  readonly access = new Access()
  /** The head commit of each repository a sync reads, by the repository's name (`acme/infra`). */
  readonly repositories = new Map<string, RepoCommit>()
  /** The service's definitions, which this sandbox's requests are decoded and its answers completed by. */
  readonly schema: ServiceSchema = Schema.make()
  readonly now: () => number

  constructor(readonly clock: Clock = new Clock(Date.now())) {
    this.now = clock.now
    this.store = new Store(clock.now)
  }

  // The access records under their earlier names, for the readers of users, keys and permissions.
  get users(): Array<SandboxUser> {
    return this.access.users
  }
  get apiKeys(): Array<ApiKeyRecord> {
    return this.access.apiKeys
  }
  get passwords(): Map<string, string> {
    return this.access.passwords
  }
  get permissions(): Array<PermissionRecord> {
    return this.access.permissions
  }

  containersOn(server: Resource): Array<Container> {
    return this.docker.containersOn(server.id)
  }

  container(serverRef: string, name: string): { server: Resource; container: Container } {
    const server = this.store.find("server", serverRef)
    const container = this.containersOn(server).find((c) => c.name === name || c.id.startsWith(name))
    if (container === undefined) {
      throw new ServiceFailure(500, `no container named ${name} on server ${server.name}`, [
        "failed to inspect container",
      ])
    }
    return { server, container }
  }

  /** Every container on every server. */
  allContainers(): Array<Container> {
    return [...this.docker.containers.values()].flat()
  }

  /** The log of a stack, a deployment, a container or a swarm service, by key. */
  logOf(key: string): Array<LogLine> {
    return this.history.logOf(key)
  }

  log(key: string, service: string, ...texts: ReadonlyArray<string>): void {
    const lines = this.logOf(key)
    const ts = this.now()
    for (const text of texts) lines.push({ ts, service, text })
    keep(lines, BOUNDS.logLines)
  }

  /**
   * An Update as the service starts one: already `InProgress` with `success: true`, its
   * operator the caller's id. Stored (and given an id) unless `stored` is false.
   */
  newUpdate(operation: string, target: UpdateRecord["target"], operator: string, stored = true): UpdateRecord {
    const update: UpdateRecord = {
      ...(stored ? { _id: { $oid: this.store.newId() } } : {}),
      operation,
      target,
      operator,
      start_ts: this.now(),
      status: "InProgress",
      success: true,
      logs: [],
      version: { major: 0, minor: 0, patch: 0 },
      commit_hash: "",
      other_data: "",
    }
    if (stored) this.history.addUpdate(update)
    return update
  }

  /** Ends an Update with one log stage. */
  finish(update: UpdateRecord, stage: string, command: string, lines: ReadonlyArray<string>, success: boolean): void {
    const end = this.now()
    update.logs.push({
      stage,
      command,
      stdout: success ? lines.join("\n") : "",
      stderr: success ? "" : lines.join("\n"),
      success,
      start_ts: update.start_ts,
      end_ts: end,
    })
    update.success = success
    update.end_ts = end
    update.status = "Complete"
  }

  /** A server's new report, from `since` (now by default) on; the one it replaces stays in its stats over time. */
  report(server: Resource, stats: Record<string, unknown>, since: number = this.now()): void {
    const earlier = this.watch.reportsOf(server.id)
    earlier.push({ until: since, stats: Schema.isRecord(server.info.stats) ? server.info.stats : {} })
    keep(earlier, BOUNDS.reports)
    server.info = { ...server.info, stats }
  }

  /** Ends an Update whose stages are logged: it succeeded if each of them did. */
  complete(update: UpdateRecord): void {
    update.success = update.logs.every((log) => log.success)
    update.end_ts = this.now()
    update.status = "Complete"
  }

  /** A user by id or name, as the service finds one. */
  user(idOrName: string): SandboxUser {
    const found = this.users.find((u) => u._id.$oid === idOrName || u.username === idOrName)
    if (found === undefined) throw new ServiceFailure(500, `did not find any User matching ${idOrName}`)
    return found
  }

  update(id: string): UpdateRecord {
    const found = this.history.updates.find((u) => u._id?.$oid === id)
    if (found === undefined) throw new ServiceFailure(500, `did not find any Update matching ${id}`)
    return found
  }
}
