/**
 * The parts that hold state (the shared store, the confirmations' memory, the
 * guard's window, the params definitions) are Tags: a part's state lives as
 * long as the layer (or the scope) that built it, so two servers built apart share nothing.
 * A bundle takes the part provided beneath it, and makes its own default
 * otherwise, so that no part has to be named when it is off. The bundles make
 * their parts in one Effect each (a layer of its own for each part costs a start
 * more than the part does), so these are Effects, and the command line runs the
 * bundles' Effects in its own scope rather than as layers (`provideScoped`).
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

/** The `tag` provided beneath, else `fallback`. */
export const beneath = <I, S>(tag: Context.Tag<I, S>, fallback: S): Effect.Effect<S> =>
  Effect.map(
    Effect.serviceOption(tag),
    Option.getOrElse(() => fallback),
  )

/** The `tag` provided beneath, else the one `fallback` makes (once per build of the bundle). */
export const beneathOr = <I, S, E, R>(
  tag: Context.Tag<I, S>,
  fallback: Effect.Effect<S, E, R>,
): Effect.Effect<S, E, R> =>
  Effect.flatMap(Effect.serviceOption(tag), Option.match({ onNone: () => fallback, onSome: Effect.succeed }))

/**
 * Runs `self` with what `context` makes, in a scope that closes when `self` ends: what
 * `Effect.provide` of a `Layer.scopedContext(context)` does, without building a layer.
 */
export const provideScoped =
  <ROut, E2, R2>(context: Effect.Effect<Context.Context<ROut>, E2, R2>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | E2, Exclude<R, ROut> | Exclude<R2, Scope.Scope>> =>
    Effect.scoped(Effect.flatMap(context, (made) => Effect.provide(self, made)))
