/**
 * Which of several services (SVC_SERVICES) the current tool call is for: set
 * around the call by the router (Services/Router.ts), read where a call is
 * recorded. None for the single unnamed service, whose records stay as they were.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"

export const current: FiberRef.FiberRef<Option.Option<string>> = FiberRef.unsafeMake(Option.none<string>())

/** Runs `self` as a call to service `name`. */
export const as =
  (name: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(self, current, Option.some(name))
