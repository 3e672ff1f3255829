/**
 * What the sandbox keeps beside resource records, each as the service answers it: docker's
 * containers and images, an execution's Update and log lines, a user and what lets them in, an
 * alert, and a sync's repository's commits. World.ts holds them, each within its bound.
 */
import type { Kind } from "./ResourceTypes.js"

export interface Container {
  readonly server_id: string
  readonly name: string
  readonly id: string
  readonly image: string
  state: "running" | "exited" | "paused" | "created" | "removing" | "restarting"
  /** When it was made (by a deploy), started last, and exited last, on the scenario's clock. */
  readonly created: number
  started: number
  finished?: number
  /** The code of its last exit (0 until it exits), and how often docker restarted it. */
  exitCode: number
  restarts: number
  /** Why docker could not start it (a port another holds, say), as its inspect says; its state stays `created`. */
  error?: string
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
  /** Absent on an Update the service never stored (a DeployStackIfChanged that found nothing changed). */
  readonly _id?: { readonly $oid: string }
  operation: string
  readonly target: { readonly type: string; readonly id: string }
  readonly operator: string
  readonly start_ts: number
  /** Absent until it completes (the definitions allow no null). */
  end_ts?: number
  status: "InProgress" | "Complete"
  success: boolean
  logs: Array<LogEntry>
  version: { major: number; minor: number; patch: number }
  commit_hash: string
  other_data: string
}

interface LogEntry {
  readonly stage: string
  readonly command: string
  readonly stdout: string
  readonly stderr: string
  readonly success: boolean
  readonly start_ts: number
  readonly end_ts: number
}

export interface SandboxUser {
  readonly _id: { readonly $oid: string }
  readonly username: string
  enabled: boolean
  admin: boolean
  /** The first admin: only it makes or unmakes admins, and nobody changes it. */
  super_admin?: boolean
  create_server_permissions: boolean
  create_build_permissions: boolean
  /** The level on every resource of a type (`{Server: "Read"}`), beside the permissions on targets. */
  all?: Record<string, string>
  /** A service user's description: it has no login, only API keys. */
  service?: string
  last_update_view?: number
  recents?: Record<string, Array<string>>
}

/** An API key; its secret is answered once, when it is made. */
export interface ApiKeyRecord {
  readonly name: string
  readonly key: string
  readonly secret: string
  readonly user_id: string
  readonly created_at: number
  readonly expires: number
}

/** A level given to a user or a user group on one resource. */
export interface PermissionRecord {
  readonly _id: { readonly $oid: string }
  readonly user_target: { readonly type: "User" | "UserGroup"; readonly id: string }
  readonly resource_target: { readonly type: string; readonly id: string }
  level: string
  specific: Array<string>
}

/** What the service's monitoring raised: open until its condition clears or an admin closes it. */
export interface AlertRecord {
  readonly _id: { readonly $oid: string }
  readonly ts: number
  resolved: boolean
  resolved_ts?: number
  level: "OK" | "WARNING" | "CRITICAL"
  readonly target: { readonly type: string; readonly id: string }
  data: { readonly type: string; data: Record<string, unknown> }
}

export interface Image {
  readonly id: string
  readonly name: string
  readonly size: number
  /** In seconds, as docker answers it. */
  readonly created: number
  readonly labels?: Readonly<Record<string, string>>
  /** Built with a HEALTHCHECK: docker runs it in each container of the image and says its health. */
  readonly healthcheck?: boolean
}

export interface Named {
  readonly name: string
  readonly driver: string
  /** What a volume holds on disk, in bytes, as a prune reclaims it and a list shows it. */
  readonly size?: number
  /** When it was made, for a volume. */
  readonly created?: number
  /** The addresses a network gives out (its IPAM's one subnet), where it gives any. */
  readonly subnet?: string
}

/** An image that starts and then exits, unless its deployment's environment sets `missing`. */
export interface Crash {
  readonly missing: string
  readonly lines: ReadonlyArray<string>
}

/** A resource as a commit of a sync's repository declares it; without fields, one it no longer holds. */
export interface Declared {
  readonly kind: Kind
  readonly name: string
  /** Its config's fields as the file writes them: dotted keys nest, `server` and `builder` by name. */
  readonly fields?: Readonly<Record<string, string | number | boolean | ReadonlyArray<unknown>>>
  /** Its description and tags (by name), where the file gives them. */
  readonly description?: string
  readonly tags?: ReadonlyArray<string>
  /** Deployed by the sync once changed (the file's `deploy = true`). */
  readonly deploy?: boolean
}

/** The head commit of a sync's repository. */
export interface RepoCommit {
  readonly hash: string
  readonly message: string
  readonly declared: ReadonlyArray<Declared>
}
