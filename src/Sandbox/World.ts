/**
 * Everything the sandbox knows beyond resource records: the Docker objects on
 * each server, log lines, and Update records of executions.
 */
import type { Kind } from "./Kinds.js"
import { type Resource, ServiceFailure, Store } from "./Store.js"

export interface Container {
  readonly server_id: string
  readonly name: string
  readonly id: string
  readonly image: string
  state: "running" | "exited" | "paused" | "created" | "removing"
  status: string
  readonly networks: ReadonlyArray<string>
  readonly ports: ReadonlyArray<{ IP?: string; PrivatePort: number; PublicPort?: number; Type: string }>
  readonly volumes: ReadonlyArray<string>
  /** The stack or deployment it belongs to, if any. */
  readonly owner?: { readonly kind: Kind; readonly id: string; readonly service: string }
}

export interface LogLine {
  readonly ts: number
  readonly service: string
  readonly text: string
}

export interface UpdateRecord {
  readonly _id: { readonly $oid: string }
  readonly operation: string
  readonly target: { readonly type: string; readonly id: string }
  readonly operator: string
  readonly start_ts: number
  end_ts: number | null
  status: "Queued" | "InProgress" | "Complete"
  success: boolean
  logs: Array<{
    stage: string
    command: string
    stdout: string
    stderr: string
    success: boolean
    start_ts: number
    end_ts: number
  }>
  version: { major: number; minor: number; patch: number }
  commit_hash: string
  other_data: string
}

export interface Image {
  readonly id: string
  readonly name: string
  readonly size: number
  readonly created: number
}

export interface Named {
  readonly name: string
  readonly driver: string
}

export class World {
  readonly store: Store
  readonly containers = new Map<string, Array<Container>>()
  readonly images = new Map<string, Array<Image>>()
  readonly networks = new Map<string, Array<Named>>()
  readonly volumes = new Map<string, Array<Named>>()
  readonly logs = new Map<string, Array<LogLine>>()
  readonly updates: Array<UpdateRecord> = []

  constructor(readonly now: () => number = Date.now) {
    this.store = new Store(now)
  }

  containersOn(server: Resource): Array<Container> {
    let list = this.containers.get(server.id)
    if (list === undefined) {
      list = []
      this.containers.set(server.id, list)
    }
    return list
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

  /** The log of a stack, a deployment, a container or a swarm service, by key. */
  logOf(key: string): Array<LogLine> {
    let lines = this.logs.get(key)
    if (lines === undefined) {
      lines = []
      this.logs.set(key, lines)
    }
    return lines
  }

  log(key: string, service: string, ...texts: ReadonlyArray<string>): void {
    const lines = this.logOf(key)
    const ts = this.now()
    for (const text of texts) lines.push({ ts, service, text })
    // Bounded: a long-running sandbox must not grow without end.
    if (lines.length > 5000) lines.splice(0, lines.length - 5000)
  }

  update(id: string): UpdateRecord {
    const found = this.updates.find((u) => u._id.$oid === id)
    if (found === undefined) throw new ServiceFailure(500, `did not find any Update matching ${id}`)
    return found
  }
}
