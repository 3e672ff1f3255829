/**
 * The node-redis clients the store is made of: one client, a cluster's, or a
 * Sentinel's, with the same bounds (a fast command time-out, no offline queue,
 * reconnection with backoff) and, unless SVC_MCP_STORE_CACHE=off, a copy of
 * read keys the store keeps current.
 */
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Settings from "../Settings/Store.js"

/** A command's longest wait: a store that does not answer by then is down for this call. */
export const COMMAND_TIMEOUT_MS = 500
/** A connection's longest wait. */
export const CONNECT_TIMEOUT_MS = 2_000
/** The most keys whose values this process keeps a copy of (least recently used go first). */
export const CACHE_ENTRIES = 10_000
/** Reconnection backoff: doubling from 50 ms up to this, with jitter. */
export const MAX_BACKOFF_MS = 2_000

/** How long a start waits for the first connection before it goes on without the store (and says so). */
export const START_WAIT_MS = 1_000

/** Reconnection delays: 50, 100, 200 ... ms, capped, with up to 20 % jitter so replicas do not retry in step. */
export const backoff = (retries: number): number => {
  const base = Math.min(50 * 2 ** Math.min(retries, 16), MAX_BACKOFF_MS)
  return Math.round(base * (1 + Math.random() * 0.2))
}

// The least of node-redis's clients that is used, so that their types stay at the import.
export interface Client {
  on(event: string, listener: (error?: unknown) => void): unknown
  connect(): Promise<unknown>
  destroy(): void
}
export interface Single extends Client {
  get(key: string): Promise<unknown>
  sendCommand(args: ReadonlyArray<string>, options?: { readonly abortSignal?: AbortSignal }): Promise<unknown>
}
export interface Sentinel extends Client {
  readonly isOpen: boolean
  get(key: string): Promise<unknown>
  destroy(): Promise<void>
  sendCommand(
    isReadonly: boolean | undefined,
    args: ReadonlyArray<string>,
    options?: { readonly abortSignal?: AbortSignal },
  ): Promise<unknown>
}
export interface Cluster extends Client {
  get(key: string): Promise<unknown>
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: ReadonlyArray<string>,
  ): Promise<unknown>
}

/**
 * Reads (the refused-key memory, the guard's window) answered from this
 * process's copy until the store says the key changed (RESP3 client tracking):
 * most calls read a key no one wrote since, and a round trip to the store is
 * most of what it would add to a call. The copy is dropped whole when the
 * connection is lost, as the invalidations sent meanwhile are.
 */
const tracked = { RESP: 3 as const, clientSideCache: { maxEntries: CACHE_ENTRIES } }

/** The client for these settings, made unconnected; exactly one of cluster, sentinel and single is set. */
export const make = (redis: typeof import("redis"), settings: Settings.StoreSettings) => {
  const options = {
    url: Redacted.value(settings.url),
    ...(Option.isSome(settings.password) ? { password: Redacted.value(settings.password.value) } : {}),
    socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: backoff },
    // A command while the connection is down fails at once instead of waiting in a queue.
    disableOfflineQueue: true,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    ...(settings.cache ? tracked : {}),
  }
  // A cluster's client learns the nodes from the one named and sends each command to its key's slot.
  const cluster = settings.cluster
    ? (redis.createCluster({
        rootNodes: [{ url: options.url }],
        defaults: { ...options, url: undefined },
        commandOptions: { timeout: COMMAND_TIMEOUT_MS },
      } as never) as unknown as Cluster)
    : undefined
  const sentinel = settings.sentinel === undefined ? undefined : makeSentinel(redis, settings, settings.sentinel)
  const single =
    cluster === undefined && sentinel === undefined ? (redis.createClient(options) as unknown as Single) : undefined
  const client: Client = cluster ?? sentinel ?? (single as Single)
  return { cluster, sentinel, single, client }
}

/**
 * A node-redis Sentinel client: it asks the Sentinels for the primary named, and
 * again when they announce a fail-over (or the primary stops answering), with
 * the plain client's timeouts, backoff and no offline queue on every connection.
 */
const makeSentinel = (
  redis: typeof import("redis"),
  settings: Settings.StoreSettings,
  sentinel: Settings.SentinelSettings,
): Sentinel => {
  const password = Option.orElse(settings.password, () => sentinel.password)
  return redis.createSentinel({
    name: sentinel.name,
    sentinelRootNodes: sentinel.nodes.map((node) => ({ host: node.host, port: node.port })),
    nodeClientOptions: {
      ...(Option.isSome(sentinel.username) ? { username: sentinel.username.value } : {}),
      ...(Option.isSome(password) ? { password: Redacted.value(password.value) } : {}),
      ...(Option.isSome(sentinel.database) ? { database: sentinel.database.value } : {}),
      socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: backoff },
      disableOfflineQueue: true,
    },
    sentinelClientOptions: {
      ...(Option.isSome(sentinel.sentinelPassword)
        ? { password: Redacted.value(sentinel.sentinelPassword.value) }
        : {}),
      socket: { connectTimeout: CONNECT_TIMEOUT_MS },
    },
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    ...(settings.cache ? tracked : {}),
    passthroughClientErrorEvents: true,
    // Asked again now and then, in case a fail-over's announcement was missed while a Sentinel was away.
    scanInterval: 10_000,
  } as never) as unknown as Sentinel
}
