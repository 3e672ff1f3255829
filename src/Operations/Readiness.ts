/**
 * `GET /readyz` over HTTP: ready when the service is reachable and the
 * configured credentials are accepted, as `svc-mcp check` sees them. Checked at
 * most once every READY_INTERVAL_MS, whatever the rate of probes: a probe gets
 * the latest finding, and a stale one starts a new check in the background
 * (only the very first probe waits for its check).
 *
 * In per-request mode the credentials that matter are each caller's, which a
 * probe does not have: the server's own credentials are checked when they are
 * given (SVC_API_KEY or a login); without them, ready means the service is
 * reachable and answers as the service.
 *
 * With sign-in, ready also means that signed-in people can be served: the
 * issuer's keys can be had, and, where keys are minted, the store answers
 * (ReadinessSignIn.ts).
 */

import type * as HttpClient from "@effect/platform/HttpClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Auth from "../Auth.js"
import * as RefusedKeys from "../Callers/RefusedKeys.js"
import { SvcConfig } from "../Config.js"
import * as Check from "../Diagnosis/Check.js"
import { Minting } from "../Mint/Shape.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as ParamsSettings from "../Settings/ParamsCheck.js"
import { Store } from "../Store/Store.js"
import * as SvcClient from "../SvcClient.js"
import { withSignIn } from "./ReadinessSignIn.js"

export const READY_INTERVAL_MS = 5_000

export interface ReadyState {
  readonly ready: boolean
  /** Why not, in one sentence; absent when ready. */
  readonly reason?: string
  /**
   * The shared store, when one is configured. Its being down does not make the
   * server unready by itself: reads and unconfirmed calls with the server's own
   * or mapped keys go on, and one store's outage must not take every replica
   * out of the balancer. With sign-in and minted keys it does, as no key can be
   * minted then (ReadinessSignIn.ts).
   */
  readonly store?: { readonly status: "up" | "down"; readonly where: string; readonly detail?: string }
}

/** The check, with the shared store's status beside its finding when a store is configured. */
const withStoreStatus = (check: Effect.Effect<ReadyState>): Effect.Effect<Effect.Effect<ReadyState>, never, Store> =>
  Effect.map(Store, (store) =>
    store._tag === "None"
      ? check
      : Effect.zipWith(
          check,
          store.value.status,
          (state, status): ReadyState => ({
            ...state,
            store: {
              status: status.up ? "up" : "down",
              where: status.where,
              ...(status.detail === undefined ? {} : { detail: status.detail }),
            },
          }),
          { concurrent: true },
        ),
  )

export interface ReadinessShape {
  /** The latest finding; never more than one check per interval. */
  readonly probe: Effect.Effect<ReadyState>
}

/** The readiness probe when `/readyz` is served; None, the default, when it is off (404). */
export class Readiness extends Context.Reference<Readiness>()("svc-mcp/Readiness", {
  defaultValue: (): Option.Option<ReadinessShape> => Option.none(),
}) {}

const toState = (steps: ReadonlyArray<Check.Step>): ReadyState => {
  const failed = steps.find((step) => step.status === "fail")
  return failed === undefined
    ? { ready: true }
    : {
        ready: false,
        reason: `${failed.name}: ${failed.detail}${failed.hint === undefined ? "" : ` (${failed.hint})`}`,
      }
}

interface Findings {
  /** The latest finding, and when it was made. */
  readonly last?: { readonly at: number; readonly state: ReadyState }
  /** The check under way, if any: at most one at a time. */
  readonly running?: Fiber.RuntimeFiber<ReadyState>
}

/** Checks run in the background, in the scope: closing it stops one under way. */
export const make = (check: Effect.Effect<ReadyState>): Effect.Effect<ReadinessShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const findings = yield* SynchronizedRef.make<Findings>({})
    const recheck = check.pipe(
      Effect.tap((state) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) => SynchronizedRef.set(findings, { last: { at, state } })),
      ),
      Effect.forkIn(scope),
    )
    // Right: the finding to answer with; Left: the first check, which the very first probe waits for.
    const latest = (now: number) =>
      SynchronizedRef.modifyEffect(findings, (held) => {
        const { last, running } = held
        if (last !== undefined && now - last.at < READY_INTERVAL_MS)
          return Effect.succeed([Either.right(last.state), held])
        if (running !== undefined) {
          return Effect.succeed([last === undefined ? Either.left(running) : Either.right(last.state), held])
        }
        return Effect.map(recheck, (fiber) => [
          last === undefined ? Either.left(fiber) : Either.right(last.state),
          { ...held, running: fiber },
        ])
      })
    const probe = Effect.gen(function* () {
      const found = yield* latest(yield* Clock.currentTimeMillis)
      return Either.isRight(found) ? found.right : yield* Fiber.join(found.left)
    })
    return { probe }
  })

/**
 * Readiness as `check` sees it, with the server's own credentials (in
 * per-request mode, a client of their own, built once); without any, no step
 * of the credentials at all.
 */
const checkOf: Effect.Effect<
  Effect.Effect<ReadyState>,
  never,
  SvcConfig | Auth.Auth | SvcClient.SvcClient | HttpClient.HttpClient | Store | Scope.Scope
> = Effect.gen(function* () {
  const config = yield* SvcConfig
  const perRequest = (yield* CallerCredentials.Mode) === "per-request"
  const base = yield* Effect.context<SvcConfig | HttpClient.HttpClient | Store>()
  if (config.credentials._tag === "None") {
    return Effect.map(Check.steps(ParamsSettings.load), toState).pipe(Effect.provide(base))
  }
  const own = perRequest
    ? yield* Layer.build(
        // The server's own key: nothing of the callers' refusals applies to it.
        SvcClient.layer.pipe(Layer.provideMerge(Auth.layer), Layer.provide(RefusedKeys.layerOff)),
      )
    : yield* Effect.context<Auth.Auth | SvcClient.SvcClient>()
  return Effect.map(Check.steps(ParamsSettings.load, Check.authStep), toState).pipe(
    Effect.provide(Context.merge(base, own)),
  )
})

export const layer: Layer.Layer<
  Readiness,
  never,
  SvcConfig | Auth.Auth | SvcClient.SvcClient | HttpClient.HttpClient | Store
> = Layer.scoped(
  Readiness,
  Effect.gen(function* () {
    const minting = Option.isSome(yield* Minting)
    const check = yield* Effect.flatMap(checkOf, withStoreStatus)
    return Option.some(yield* make(yield* withSignIn(check, minting)))
  }),
)

/** No readiness probe: `/readyz` is not served. */
export const layerOff: Layer.Layer<Readiness> = Layer.succeed(Readiness, Option.none())

/**
 * Readiness of several services (SVC_SERVICES): ready when every one is; the
 * first that is not is named in the reason.
 */
export const layerServices = (
  services: ReadonlyArray<{
    readonly name: string
    readonly context: Context.Context<SvcConfig | Auth.Auth | SvcClient.SvcClient>
  }>,
): Layer.Layer<Readiness, never, HttpClient.HttpClient | Store> =>
  Layer.scoped(
    Readiness,
    Effect.gen(function* () {
      const checks = yield* Effect.forEach(services, (service) =>
        Effect.map(Effect.provide(checkOf, service.context), (check) => [service.name, check] as const),
      )
      const checked = yield* withStoreStatus(
        Effect.map(
          Effect.forEach(checks, ([name, check]) => Effect.map(check, (state) => [name, state] as const), {
            concurrency: "unbounded",
          }),
          (states): ReadyState => {
            const failed = states.find(([, state]) => !state.ready)
            return failed === undefined
              ? { ready: true }
              : { ready: false, reason: `${failed[0]}: ${failed[1].reason}` }
          },
        ),
      )
      const minting = services.some((service) => Option.isSome(Context.get(service.context, Minting)))
      return yield* make(yield* withSignIn(checked, minting)).pipe(Effect.map(Option.some))
    }),
  )
