/**
 * An Effect run once, when first needed, whose value is then read as a value. Concurrent first
 * readers share the one run (`Effect.cached`); once it has its value, a reader takes two steps,
 * where reading `Effect.cached`'s takes some fifteen (its lock, its ref, a patch of the fiber's
 * refs): on a path every tool call takes, that is a share of the call's CPU (docs/benchmark.md).
 * As with `Effect.cached`, the first run goes on when the reader that started it is interrupted,
 * and that reader waits for it: a long read that a cancelled call should not wait for is forked
 * and joined instead (as `Tools/Lists/Pages.ts` reads the default page).
 */
import * as Effect from "effect/Effect"

export const make = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Effect.Effect<A, E, R>> =>
  Effect.map(Effect.cached(effect), remembered)

/**
 * `effect`, whose first success is then read as a value. Runs that start before it succeeds run
 * `effect` each: given an Effect that shares its own run (a fork's join), nothing runs twice.
 */
export const remembered = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  let known: Effect.Effect<A> | undefined
  const learn = Effect.tap(effect, (value) => {
    known = Effect.succeed(value)
  })
  return Effect.suspend(() => known ?? learn)
}
