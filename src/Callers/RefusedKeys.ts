/**
 * Caller keys the service refused (401), remembered for the service's failure
 * window so that they are not sent again: each refusal costs the caller's
 * address one of its five attempts, and an assistant that retries a dead key
 * would lock its caller out window after window. Only fingerprints are kept,
 * never a secret. With a shared store (src/Store/) every replica remembers what
 * one was refused, under a keyed hash of the fingerprint; when the store does not
 * answer, the process's own memory serves, and a warning says so.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as ExpiringMap from "../Shared/ExpiringMap.js"
import { Store, type StoreError, type StoreShape } from "../Store/Store.js"

/** The service's failure window. */
export const REMEMBER_MS = 15_000

/** A refusal still remembered: when the service gave it, and until when it is answered from memory. */
export interface Refusal {
  readonly at: number
  readonly until: number
}

export interface RefusedKeysShape {
  /** The refusal remembered for this key, if it is within the window. */
  readonly check: (keyId: string) => Effect.Effect<Option.Option<Refusal>>
  /** The service refused this key (401). */
  readonly refused: (keyId: string) => Effect.Effect<void>
  /** The service accepted this key: whatever was remembered of it ends. */
  readonly succeeded: (keyId: string) => Effect.Effect<void>
}

/**
 * Refused keys remembered (per-request mode, or identities' own keys); None
 * (`layerOff`) where the server sends only its own key. The client's bundle
 * provides one or the other.
 */
export class RefusedKeys extends Context.Tag("svc-mcp/RefusedKeys")<RefusedKeys, Option.Option<RefusedKeysShape>>() {}

/**
 * A key's id for this service: a digest of the key and its secret, so that a
 * corrected secret for the same key is not held back, and nothing kept can be
 * sent in its place.
 */
export const fingerprint = (key: string, secret: Redacted.Redacted<string>): string =>
  // node:crypto loaded by the first refusal remembered, not at start.
  process
    .getBuiltinModule("node:crypto")
    .createHash("sha256")
    .update(key)
    .update("\u0000")
    .update(Redacted.value(secret))
    .digest("base64url")

/** The words a caller gets for a remembered refusal, as it would get the service's. */
export const describe = (refusal: Refusal): string =>
  `the service refused this API key at ${new Date(refusal.at).toISOString()}; remembered, so it is not sent again until ${new Date(refusal.until).toISOString()}`

/** The most refusals this process holds: beyond it the oldest is forgotten first (it is sent once more). */
const MOST_REFUSALS = 10_000

/** Refusals remembered in this process alone: when each was given. */
export const makeLocal: Effect.Effect<RefusedKeysShape> = Effect.sync((): RefusedKeysShape => {
  const refusals = ExpiringMap.make<string, number>({ ttlMs: REMEMBER_MS, most: MOST_REFUSALS })
  return {
    check: (keyId) =>
      Effect.map(Clock.currentTimeMillis, (now) =>
        Option.map(Option.fromNullable(refusals.get(keyId, now)), (at) => ({ at, until: at + REMEMBER_MS })),
      ),
    refused: (keyId) => Effect.map(Clock.currentTimeMillis, (now) => refusals.set(keyId, now, now)),
    succeeded: (keyId) => Effect.sync(() => refusals.delete(keyId)),
  }
})

/** Nothing remembered: the server sends its own key, which no caller can retry into a lock-out. */
export const layerOff: Layer.Layer<RefusedKeys> = Layer.succeed(RefusedKeys, Option.none())

const REFUSED = "refused-key:"

/**
 * Refusals shared by the replicas through the store, each also kept here: when
 * the store does not answer, what this process knows still serves.
 */
const sharedWith = (store: StoreShape, local: RefusedKeysShape): Effect.Effect<RefusedKeysShape> =>
  Effect.map(Ref.make(false), (degraded): RefusedKeysShape => {
    const keyOf = (keyId: string) => `${REFUSED}${store.keyed(keyId)}`
    const answered = Effect.flatMap(Ref.getAndSet(degraded, false), (was) =>
      was ? Effect.logInfo("the shared store answers again: refused caller keys are shared again") : Effect.void,
    )
    const fallBack = (error: StoreError) =>
      Effect.flatMap(Ref.getAndSet(degraded, true), (was) =>
        was
          ? Effect.void
          : Effect.logWarning(
              `refused caller keys are remembered by this process alone while the shared store does not answer (${error.detail})`,
            ),
      )
    return {
      check: (keyId) =>
        store.get(keyOf(keyId)).pipe(
          Effect.tap(() => answered),
          // While the store answers it is the truth: another replica's success ends a refusal this one holds.
          Effect.flatMap((held) =>
            Effect.map(Clock.currentTimeMillis, (now) => {
              const at = Option.getOrUndefined(
                Option.flatMap(held, (text) => Option.liftPredicate(Number(text), Number.isSafeInteger)),
              )
              return at !== undefined && now < at + REMEMBER_MS
                ? Option.some({ at, until: at + REMEMBER_MS })
                : Option.none()
            }),
          ),
          Effect.catchAll((error) => Effect.zipRight(fallBack(error), local.check(keyId))),
        ),
      refused: (keyId) =>
        Effect.zipRight(
          local.refused(keyId),
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            store.set(keyOf(keyId), String(now), REMEMBER_MS).pipe(
              Effect.tap(() => answered),
              Effect.catchAll(fallBack),
            ),
          ),
        ),
      // A call is sent only when the store held no refusal of its key, so there is one to end only
      // where this process refused the key itself (and the store lost it, or did not answer then):
      // a remove on every success would cost every call a round trip. A refusal another replica
      // records while this call is out then stands its 15 s, the cautious side.
      succeeded: (keyId) =>
        Effect.flatMap(local.check(keyId), (held) =>
          Effect.zipRight(
            local.succeeded(keyId),
            Option.isNone(held)
              ? Effect.void
              : store.remove(keyOf(keyId)).pipe(
                  Effect.tap(() => answered),
                  Effect.catchAll(fallBack),
                ),
          ),
        ),
    }
  })

/** In the shared store when one is provided (Store), else in this process. */
export const make: Effect.Effect<RefusedKeysShape, never, Store> = Effect.gen(function* () {
  const local = yield* makeLocal
  const store = yield* Store
  return Option.isNone(store) ? local : yield* sharedWith(store.value, local)
})

export const layer: Layer.Layer<RefusedKeys, never, Store> = Layer.effect(RefusedKeys, Effect.map(make, Option.some))
