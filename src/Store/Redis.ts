/**
 * The shared store over node-redis (Store.ts says what it is for): its commands, timed and counted,
 * over the connection (Connection.ts). Imported when a store is configured: a start without one
 * loads none of it.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as Settings from "../Settings/Store.js"
import { COMMAND_TIMEOUT_MS } from "./Clients.js"
import * as Connection from "./Connection.js"
import { detailOf } from "./Connection.js"
import * as Sealed from "./Sealed.js"
import { StoreError, type StoreShape, type StoreStatus } from "./Shape.js"

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
        // node-redis's own time-out covers a command's wait to be written, not its wait for the
        // answer: a store that stalls (a paused process, a full disk, a dead link with no reset)
        // would hold the caller for as long as the socket lives. Bounded here, every command the
        // same; through Sentinel this bounds a rediscovery under way too. Aborted when it can be.
        Effect.timeoutFail({
          duration: COMMAND_TIMEOUT_MS,
          onTimeout: () => {
            const detail = `no answer within ${COMMAND_TIMEOUT_MS} ms`
            const error = new StoreError({
              operation,
              detail: sentinel ? `${detail} (${connection.lastError})` : detail,
            })
            // Through Sentinel a time-out is most often a fail-over under way, which the primary's
            // connection reports itself (Connection.ts).
            if (!sentinel) connection.stalled(detail)
            return error
          },
        }),
        // An answer says the store is back: after a stall, which no event of the client's tells, and
        // through Sentinel, whose client says it is ready again only when the primary changed.
        Effect.tap(() => {
          if (connection.up === false) connection.answers()
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
      ...Sealed.make(settings.stateKey),
    } satisfies StoreShape
  })
