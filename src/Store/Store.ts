/**
 * The shared store: what replicas behind a balancer must agree on (a
 * confirmation's single use, the caller keys the service refused) kept in
 * Redis, or Valkey, which speaks the same protocol. Off by default: without it
 * each part keeps its own memory, for one process, as a server run alone needs.
 *
 * Only single-key commands (SET with NX/XX/GET/PX, GET, DEL, XADD, PING), so that
 * Redis Cluster and Sentinel deployments serve it as they are. Through Sentinel
 * (a redis+sentinel:// URL) the Sentinels name the primary, and name it again
 * when they fail it over: the client follows with no restart. Commands time out
 * fast and are never queued while the connection is down: a caller gets a
 * StoreError at once and decides (a confirmation fails closed, the refused-key
 * memory falls back to the process's own). The connection comes back by itself.
 *
 * The client, node-redis, is imported only when SVC_MCP_STORE is set: a start
 * without it loads none of it.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { ConfigError } from "../Settings/Read.js"
import * as Settings from "../Settings/Store.js"
import { COMMAND_TIMEOUT_MS } from "./Clients.js"
import * as Connection from "./Connection.js"
import { detailOf } from "./Connection.js"

export { backoff, CACHE_ENTRIES, COMMAND_TIMEOUT_MS, CONNECT_TIMEOUT_MS, MAX_BACKOFF_MS } from "./Clients.js"

/** The store did not answer (down, timed out, or refused the command). */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly detail: string
}> {
  override get message(): string {
    return `the shared store did not answer (${this.operation}: ${this.detail})`
  }
}

export interface StoreStatus {
  readonly up: boolean
  /** Where the store is (scheme, host, port): never a credential. */
  readonly where: string
  /** Why it is down; absent when up. */
  readonly detail?: string
}

export interface StoreShape {
  /** Scheme, host and port, for logs and reports. */
  readonly where: string
  readonly set: (key: string, value: string, ttlMs: number) => Effect.Effect<void, StoreError>
  /** True when the key was absent and is now set; false when it was there already. */
  readonly setIfAbsent: (key: string, value: string, ttlMs: number) => Effect.Effect<boolean, StoreError>
  /**
   * Sets the value only where the key is there, and gives the value it had, in
   * one command (SET XX GET): of concurrent callers exactly one sees what was
   * there before any of them.
   */
  readonly replaceIfPresent: (
    key: string,
    value: string,
    ttlMs: number,
  ) => Effect.Effect<Option.Option<string>, StoreError>
  /** Answered from this process's copy while the store has said of no change to the key since it was read. */
  readonly get: (key: string) => Effect.Effect<Option.Option<string>, StoreError>
  readonly remove: (key: string) => Effect.Effect<void, StoreError>
  /**
   * Appends `line` to the stream at `key` (XADD), trimming it to about `cap`
   * entries (MAXLEN ~), oldest first: the audit log's copy (Operations/Audit.ts).
   */
  readonly appendStream: (key: string, line: string, cap: number) => Effect.Effect<void, StoreError>
  /** Whether the store answers now (a PING within the command time-out). */
  readonly status: Effect.Effect<StoreStatus>
  /**
   * A keyed hash (HMAC-SHA256 under the replicas' shared key) of something
   * that must not be stored as it is, such as a caller key's fingerprint.
   */
  readonly keyed: (text: string) => string
}

/**
 * The shared store, when one is configured; None means every part keeps its
 * own memory for this process (`layerOff`, what the bundles provide when no
 * store is provided beneath them).
 */
export class Store extends Context.Tag("svc-mcp/Store")<Store, Option.Option<StoreShape>>() {}

export { START_WAIT_MS } from "./Connection.js"

const errors = Metric.counter("svc_mcp.store.errors", {
  description: "store commands that failed (down, timed out, refused), by operation",
  incremental: true,
})
const duration = Metric.histogram(
  "svc_mcp.store.duration",
  MetricBoundaries.exponential({ start: 0.05, factor: 2, count: 16 }),
  "store command latency in milliseconds, by operation",
)

/** How many keyed hashes a process keeps (of caller fingerprints, one per caller key). */
const KEYED_KEPT = 4096

/** node-redis, loaded only when a store is configured. It is CommonJS: bundled, its exports are the default export's. */
const loadRedis = Effect.promise(() =>
  import("redis").then((loaded) =>
    "createClient" in loaded && typeof loaded.createClient === "function"
      ? loaded
      : (loaded as unknown as { default: typeof loaded }).default,
  ),
)

/** A command over the connection, timed and counted by operation, its failure a StoreError. */
const commands = (connection: Connection.Connection) => {
  // Tagged once: a tagged metric made per command would be looked up again each time.
  const metrics = new Map<string, { readonly duration: typeof duration; readonly errors: typeof errors }>()
  const metricsOf = (operation: string) => {
    let found = metrics.get(operation)
    if (found === undefined) {
      found = {
        duration: Metric.tagged(duration, "operation", operation),
        errors: Metric.tagged(errors, "operation", operation),
      }
      metrics.set(operation, found)
    }
    return found
  }
  const sentinel = connection.sentinel !== undefined
  const command = <A>(
    operation: string,
    run: (signal: AbortSignal) => Promise<unknown>,
    reply: (reply: unknown) => A,
  ) =>
    Effect.suspend(() => {
      const started = performance.now()
      const measured = metricsOf(operation)
      return Effect.tryPromise({
        try: run,
        catch: (error) => new StoreError({ operation, detail: detailOf(error) }),
      }).pipe(
        // Through Sentinel a command waits for a rediscovery under way (a fail-over) before it is
        // sent, which its own time-out does not cover: it is bounded here, and aborted unsent.
        sentinel
          ? Effect.timeoutFail({
              duration: COMMAND_TIMEOUT_MS,
              onTimeout: () =>
                new StoreError({
                  operation,
                  detail: `no answer within ${COMMAND_TIMEOUT_MS} ms (${connection.lastError})`,
                }),
            })
          : identity,
        // A Sentinel client says it is ready again only when the primary changed, not when the
        // same primary came back: an answer says so too.
        Effect.tap(() => {
          if (sentinel && connection.up === false) connection.answers()
        }),
        Effect.map(reply),
        Effect.tap(() => Metric.update(measured.duration, performance.now() - started)),
        Effect.tapError(() => Metric.increment(measured.errors)),
      )
    })
  const sent = <A>(
    operation: string,
    key: string | undefined,
    args: ReadonlyArray<string>,
    reply: (reply: unknown) => A,
  ) => command(operation, (signal) => connection.send(key, args, signal), reply)
  return { command, sent }
}

/**
 * HMAC-SHA256 under the replicas' shared key. Each call of a caller hashes the same fingerprint
 * again: the last few thousand are kept, and forgotten all at once when there are more.
 */
const keyedHash = (stateKey: Redacted.Redacted<Uint8Array>): ((value: string) => string) => {
  const hmacKey = Redacted.value(stateKey)
  const hashes = new Map<string, string>()
  return (value) => {
    let hash = hashes.get(value)
    if (hash === undefined) {
      hash = process
        .getBuiltinModule("node:crypto")
        .createHmac("sha256", hmacKey)
        .update("svc-mcp store key\u0000")
        .update(value)
        .digest("base64url")
      if (hashes.size >= KEYED_KEPT) hashes.clear()
      hashes.set(value, hash)
    }
    return hash
  }
}

const text = (reply: unknown): Option.Option<string> => (typeof reply === "string" ? Option.some(reply) : Option.none())
const ttl = (ms: number) => String(Math.max(1, Math.ceil(ms)))

/** The store over node-redis, connected in the background: the server starts whether it answers or not. */
export const make = (settings: Settings.StoreSettings): Effect.Effect<StoreShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const connection = yield* Connection.open(yield* loadRedis, settings)
    const { command, sent } = commands(connection)
    const full = (key: string) => `${settings.prefix}${key}`
    return {
      where: settings.where,
      set: (key, value, ttlMs) => sent("set", full(key), ["SET", full(key), value, "PX", ttl(ttlMs)], () => undefined),
      setIfAbsent: (key, value, ttlMs) =>
        sent("set", full(key), ["SET", full(key), value, "PX", ttl(ttlMs), "NX"], (reply) => reply === "OK"),
      replaceIfPresent: (key, value, ttlMs) =>
        sent("replace", full(key), ["SET", full(key), value, "XX", "GET", "PX", ttl(ttlMs)], text),
      get: (key) => command("get", () => connection.read(full(key)), text),
      remove: (key) => sent("remove", full(key), ["DEL", full(key)], () => undefined),
      appendStream: (key, line, cap) =>
        sent("xadd", full(key), ["XADD", full(key), "MAXLEN", "~", String(cap), "*", "line", line], () => undefined),
      status: sent("ping", undefined, ["PING"], () => undefined).pipe(
        Effect.as<StoreStatus>({ up: true, where: settings.where }),
        Effect.catchAll((error) =>
          Effect.succeed<StoreStatus>({ up: false, where: settings.where, detail: error.detail }),
        ),
      ),
      keyed: keyedHash(settings.stateKey),
    } satisfies StoreShape
  })

/** The store as SVC_MCP_STORE says (from the current ConfigProvider); unset, none. */
export const layer: Layer.Layer<Store, ConfigError> = Layer.scoped(
  Store,
  Effect.flatMap(
    Settings.load,
    Option.match({
      onNone: () => Effect.succeed(Option.none<StoreShape>()),
      onSome: (settings) => Effect.map(make(settings), Option.some),
    }),
  ),
)

/** A store of these settings, whatever the environment says. */
export const layerValue = (settings: Settings.StoreSettings): Layer.Layer<Store> =>
  Layer.scoped(Store, Effect.map(make(settings), Option.some))

/** No shared store: each part keeps its own memory (the bundles' default). */
export const layerOff: Layer.Layer<Store> = Layer.succeed(Store, Option.none())
