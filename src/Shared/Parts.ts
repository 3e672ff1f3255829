/**
 * The parts that hold state (the shared store, the confirmations' memory, the
 * guard's window, the params definitions) are Tags: a part's state lives as
 * long as the layer that built it, so two servers built apart share nothing.
 * A bundle takes the part provided beneath it, and builds its own default
 * otherwise, so that no part has to be named when it is off.
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** The `tag` provided beneath, else the one `fallback` builds (once per build of this layer). */
export const orElse = <I, S, E, R>(tag: Context.Tag<I, S>, fallback: Layer.Layer<I, E, R>): Layer.Layer<I, E, R> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.serviceOption(tag),
      Option.match({ onNone: () => fallback, onSome: (found) => Layer.succeed(tag, found) }),
    ),
  )

/** The `tag` provided beneath, else `fallback`: for a bundle that makes its parts in one layer. */
export const beneath = <I, S>(tag: Context.Tag<I, S>, fallback: S): Effect.Effect<S> =>
  Effect.map(
    Effect.serviceOption(tag),
    Option.getOrElse(() => fallback),
  )

/** The `tag` provided beneath, else the one `fallback` makes. */
export const beneathOr = <I, S, E, R>(
  tag: Context.Tag<I, S>,
  fallback: Effect.Effect<S, E, R>,
): Effect.Effect<S, E, R> =>
  Effect.flatMap(Effect.serviceOption(tag), Option.match({ onNone: () => fallback, onSome: Effect.succeed }))
