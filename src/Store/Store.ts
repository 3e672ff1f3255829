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
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { ConfigError } from "../Settings/Read.js"
import * as Settings from "../Settings/Store.js"
import * as Clients from "./Clients.js"
import { backoff, COMMAND_TIMEOUT_MS, CONNECT_TIMEOUT_MS, type Single } from "./Clients.js"

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

/** How long a start waits for the first connection before it goes on without the store (and says so). */
export const START_WAIT_MS = 1_000

const errors = Metric.counter("svc_mcp.store.errors", {
  description: "store commands that failed (down, timed out, refused), by operation",
  incremental: true,
})
const duration = Metric.histogram(
  "svc_mcp.store.duration",
  MetricBoundaries.exponential({ start: 0.05, factor: 2, count: 16 }),
  "store command latency in milliseconds, by operation",
)

/** The part of a failure that may be shown: node-redis's messages name the command, never its arguments. */
const detailOf = (error: unknown): string => {
  const text = error instanceof Error ? error.message : String(error)
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}

/** How many keyed hashes a process keeps (of caller fingerprints, one per caller key). */
const KEYED_KEPT = 4096

/** The store over node-redis, connected in the background: the server starts whether it answers or not. */
export const make = (settings: Settings.StoreSettings): Effect.Effect<StoreShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    // node-redis is CommonJS: bundled, its exports are the default export's.
    const redis = yield* Effect.promise(() =>
      import("redis").then((loaded) =>
        "createClient" in loaded && typeof loaded.createClient === "function"
          ? loaded
          : (loaded as unknown as { default: typeof loaded }).default,
      ),
    )
    const runtime = yield* Effect.runtime<never>()
    const log = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect)
    const { cluster, sentinel, single, client } = Clients.make(redis, settings)
    const send = (key: string | undefined, args: ReadonlyArray<string>, signal: AbortSignal) =>
      cluster !== undefined
        ? cluster.sendCommand(key, false, args)
        : sentinel !== undefined
          ? // Closed between two attempts to reach the Sentinels: nothing to send to.
            sentinel.isOpen
            ? sentinel.sendCommand(false, args, { abortSignal: signal })
            : Promise.reject(new Error(`no Sentinel answers (${lastError})`))
          : (single as Single).sendCommand(args)
    // Through the typed command, the one the client's copy of read keys answers.
    const read = (key: string) =>
      sentinel !== undefined && !sentinel.isOpen
        ? Promise.reject(new Error(`no Sentinel answers (${lastError})`))
        : (cluster ?? sentinel ?? (single as Single)).get(key)

    // Logged on each change only, not on every failed reconnection.
    let up: boolean | undefined
    let lastError = "not connected yet"
    const unreachable = (error: unknown) => {
      lastError = detailOf(error)
      // Before the first connection the start reports it, once.
      if (up === true) {
        up = false
        log(
          Effect.logWarning(
            `the shared store at ${settings.where} is unreachable (${lastError}): confirmations are refused and refused keys are remembered per process until it answers; reconnecting`,
          ),
        )
      }
    }
    if (sentinel === undefined) client.on("error", unreachable)
    else {
      // Only the primary's connection failing makes the store unreachable: a Sentinel that does not
      // answer while the primary does is passed over for another. node-redis names the connection an
      // error came from (passthroughClientErrorEvents); its "client-error" events do not reach here.
      client.on("error", (error) => {
        if (error instanceof Error && error.message.startsWith("Master Client (")) unreachable(error)
        else lastError = detailOf(error)
      })
    }
    const answers = () => {
      if (up !== true) {
        if (up === false) log(Effect.logInfo(`the shared store at ${settings.where} answers again`))
        up = true
      }
    }
    client.on(cluster === undefined ? "ready" : "connect", answers)
    if (sentinel !== undefined) {
      client.on("topology-change", (event) => {
        const change = event as { type?: string; node?: { host: string; port: number } } | undefined
        if (change?.type === "MASTER_CHANGE" && change.node !== undefined) {
          log(
            Effect.logInfo(`the shared store's primary is ${change.node.host}:${change.node.port} (through Sentinel)`),
          )
        }
      })
    }
    // Without a first connection a client's connect() keeps trying as reconnections do; a cluster's
    // (and Sentinel's, once it has asked each Sentinel 16 times) fails, and is tried again here with
    // the same backoff. Its promise is not awaited past the wait below.
    const connectRetrying = (retries: number): Promise<boolean> =>
      client.connect().then(
        () => true,
        (error: unknown) => {
          lastError = detailOf(error)
          return closed
            ? false
            : new Promise<void>((resolve) => setTimeout(resolve, backoff(retries))).then(() =>
                closed ? false : connectRetrying(retries + 1),
              )
        },
      )
    let closed = false
    const connecting =
      cluster === undefined && sentinel === undefined
        ? client.connect().then(
            () => true,
            () => false,
          )
        : connectRetrying(0)
    yield* Effect.addFinalizer(() =>
      sentinel === undefined
        ? Effect.sync(() => {
            closed = true
            client.destroy()
          })
        : // A Sentinel client's destroy waits for a rediscovery under way (Sentinels that do not answer
          // can hold it for seconds), then closes every connection: a close waits for it a while, no more.
          Effect.promise(() => {
            closed = true
            return sentinel.destroy().catch(() => undefined)
          }).pipe(Effect.timeoutOption(CONNECT_TIMEOUT_MS)),
    )
    const connected = yield* Effect.promise(() => connecting).pipe(
      Effect.timeoutTo({ duration: START_WAIT_MS, onTimeout: () => false, onSuccess: (ok) => ok }),
    )
    if (connected) {
      up = true
      yield* Effect.logInfo(`the shared store at ${settings.where} answers (key prefix ${settings.prefix})`)
    } else if (up !== true) {
      up = false
      yield* Effect.logWarning(
        `the shared store at ${settings.where} is unreachable at start (${lastError}): confirmations are refused until it answers; reconnecting`,
      )
    }

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
          sentinel === undefined
            ? identity
            : Effect.timeoutFail({
                duration: COMMAND_TIMEOUT_MS,
                onTimeout: () =>
                  new StoreError({ operation, detail: `no answer within ${COMMAND_TIMEOUT_MS} ms (${lastError})` }),
              }),
          // A Sentinel client says it is ready again only when the primary changed, not when the
          // same primary came back: an answer says so too.
          Effect.tap(() => {
            if (sentinel !== undefined && up === false) answers()
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
    ) => command(operation, (signal) => send(key, args, signal), reply)

    const full = (key: string) => `${settings.prefix}${key}`
    const text = (reply: unknown): Option.Option<string> =>
      typeof reply === "string" ? Option.some(reply) : Option.none()
    const ttl = (ms: number) => String(Math.max(1, Math.ceil(ms)))

    const hmacKey = Redacted.value(settings.stateKey)
    // Each call of a caller hashes the same fingerprint again: the last few thousand are kept,
    // and forgotten all at once when there are more.
    const hashes = new Map<string, string>()
    const keyed = (value: string) => {
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

    return {
      where: settings.where,
      set: (key, value, ttlMs) => sent("set", full(key), ["SET", full(key), value, "PX", ttl(ttlMs)], () => undefined),
      setIfAbsent: (key, value, ttlMs) =>
        sent("set", full(key), ["SET", full(key), value, "PX", ttl(ttlMs), "NX"], (reply) => reply === "OK"),
      replaceIfPresent: (key, value, ttlMs) =>
        sent("replace", full(key), ["SET", full(key), value, "XX", "GET", "PX", ttl(ttlMs)], text),
      get: (key) => command("get", () => read(full(key)), text),
      remove: (key) => sent("remove", full(key), ["DEL", full(key)], () => undefined),
      appendStream: (key, line, cap) =>
        sent("xadd", full(key), ["XADD", full(key), "MAXLEN", "~", String(cap), "*", "line", line], () => undefined),
      status: sent("ping", undefined, ["PING"], () => undefined).pipe(
        Effect.as<StoreStatus>({ up: true, where: settings.where }),
        Effect.catchAll((error) =>
          Effect.succeed<StoreStatus>({ up: false, where: settings.where, detail: error.detail }),
        ),
      ),
      keyed,
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
