/**
 * Runs an effect from outside any fiber (a signal's handler, a client library's event, the SDK's
 * hooks) with what the fiber that made the runner had: its services, and its loggers and
 * settings, which Effect 3 keeps beside the services (fiber refs), where `Effect.context` alone
 * would drop them (a warning would then reach stdout, not the server's log).
 * The one module that holds `effect/Runtime`: on Effect 4, where all of that is in the context,
 * it becomes `Effect.context` with `Effect.runForkWith` and `Effect.runPromiseExitWith`, and no
 * caller changes.
 */
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

export interface Runner {
  /** Starts the effect; what it ends in is its own to report. */
  readonly fork: (effect: Effect.Effect<unknown, unknown>) => void
  readonly promise: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly promiseExit: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>
}

/** A runner with the current fiber's services, loggers and settings. */
export const current: Effect.Effect<Runner> = Effect.map(Effect.runtime<never>(), (runtime) => {
  // Each made once per runner, as the callers made them before: a call through it costs no more.
  const fork = Runtime.runFork(runtime)
  return {
    fork: (effect) => {
      fork(effect)
    },
    promise: Runtime.runPromise(runtime),
    promiseExit: Runtime.runPromiseExit(runtime),
  }
})
