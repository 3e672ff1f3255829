/**
 * Where a call that waits reports how far it has come. A channel of the call,
 * not a dependency of the program: the call's context (Call/Context.ts) holds
 * the sink the adapter made for a client that gave a progress token; without
 * one, reports go nowhere.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallContext from "../../Call/Context.js"

export type ProgressShape = CallContext.ProgressSink

/** Reports go nowhere. */
export const off: ProgressShape = { report: () => Effect.void }

/** The current call's sink, or `off`. */
export const current: Effect.Effect<ProgressShape> = Effect.map(CallContext.get, (context) =>
  Option.getOrElse(context.progress, () => off),
)
