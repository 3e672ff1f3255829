/**
 * The guard on changes that follow untrusted text. When a caller has received
 * untrusted text (Answer.ts), its write and execute calls within the window
 * (SVC_GUARD_WINDOW, 10 minutes) are confirmed as SVC_CONFIRM confirms them,
 * the question saying what was read. The window lives in a `WindowStore`:
 * process memory in this layer; a store shared by replicas can stand in for it
 * (`layerWith`; `layerConfig` takes the replicas' shared store when one is provided).
 * Off when SVC_GUARD=off, or when this layer is not provided.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as GuardSettings from "../Settings/Guard.js"
import type { ConfigError } from "../Settings/Read.js"
import { Store, type StoreShape } from "../Store/Store.js"

/** Where the window is kept: who last received untrusted text, what it was, until when it counts. */
export interface WindowStore {
  /** `caller` received untrusted text (`source`, in words); it counts for `ttlMs`. */
  readonly mark: (caller: string, source: string, ttlMs: number) => Effect.Effect<void>
  /** What `caller` last received within its window, if anything. */
  readonly recent: (caller: string) => Effect.Effect<Option.Option<string>>
}

export interface GuardShape {
  readonly windowMs: number
  readonly store: WindowStore
}

/**
 * The guard when it is on, with its window; None when it is off (SVC_GUARD=off,
 * or `layerOff`, what the bundles provide when no guard is provided beneath them).
 */
export class Guard extends Context.Tag("svc-mcp/Guard")<Guard, Option.Option<GuardShape>>() {}

/** More callers than this, and the expired ones are swept before the next is added. */
const SWEEP_AT = 1024

/** The window in this process's memory. */
export const memoryStore: Effect.Effect<WindowStore> = Effect.gen(function* () {
  const windows = yield* SynchronizedRef.make(new Map<string, { readonly source: string; readonly until: number }>())
  return {
    mark: (caller, source, ttlMs) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        SynchronizedRef.update(windows, (map) => {
          const next = new Map(map.size >= SWEEP_AT ? [...map].filter(([, entry]) => entry.until > now) : map)
          next.set(caller, { source, until: now + ttlMs })
          return next
        }),
      ),
    recent: (caller) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.map(SynchronizedRef.get(windows), (map) => {
          const entry = map.get(caller)
          return entry !== undefined && entry.until > now ? Option.some(entry.source) : Option.none()
        }),
      ),
  }
})

/** Where a caller's window is in the shared store (under the store's own prefix). */
const sharedKey = (caller: string) => `guard:${caller}`

/**
 * The window in the replicas' shared store (SVC_MCP_STORE), so that a read on
 * one replica guards the changes sent to another; and in this process's memory
 * too, which answers when the store does not (a replica then still guards
 * after what it served itself).
 */
export const sharedStore = (shared: StoreShape): Effect.Effect<WindowStore> =>
  Effect.map(memoryStore, (local) => ({
    mark: (caller, source, ttlMs) =>
      Effect.zipRight(
        local.mark(caller, source, ttlMs),
        shared
          .set(sharedKey(caller), source, ttlMs)
          .pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`SVC_GUARD: the shared store did not record a read (${error.detail})`),
            ),
          ),
      ),
    recent: (caller) =>
      shared.get(sharedKey(caller)).pipe(
        Effect.catchAll(() => Effect.succeed(Option.none<string>())),
        Effect.flatMap((found) => (Option.isSome(found) ? Effect.succeed(found) : local.recent(caller))),
      ),
  }))

/** The guard with the window in `store`. */
export const layerWith = (
  settings: GuardSettings.GuardSettings,
  store: Effect.Effect<WindowStore>,
): Layer.Layer<Guard> =>
  Layer.effect(
    Guard,
    settings.on
      ? Effect.map(store, (windows) => Option.some({ windowMs: settings.windowMs, store: windows }))
      : Effect.succeed(Option.none()),
  )

/** The guard as given, its window in memory. */
export const layer = (settings: GuardSettings.GuardSettings): Layer.Layer<Guard> => layerWith(settings, memoryStore)

/**
 * The guard as SVC_GUARD and SVC_GUARD_WINDOW say, its window in the shared
 * store when one is provided beneath (Store), else in memory.
 */
export const layerConfig: Layer.Layer<Guard, ConfigError, Store> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const settings = yield* GuardSettings.load
    const store = yield* Store
    return layerWith(settings, Option.match(store, { onNone: () => memoryStore, onSome: sharedStore }))
  }),
)

export const layerOff: Layer.Layer<Guard> = Layer.succeed(Guard, Option.none())
