import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** Polls on the real clock (tests may run on the TestClock) until `condition` holds, for at most `ms`. */
export const until = (condition: () => boolean, ms = 5_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (!condition()) {
      if (Date.now() > deadline) throw new Error("condition not met in time")
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })

/**
 * Runs `effect` on the real clock until its value is `done`, for at most `ms`, and gives the last
 * value either way: the test's own expectation on it then says what was not reached.
 */
export const eventually = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  done: (a: A) => boolean,
  ms = 15_000,
  every: Duration.DurationInput = "200 millis",
) =>
  Effect.gen(function* () {
    const end = Date.now() + ms
    for (;;) {
      const value = yield* effect
      if (done(value) || Date.now() > end) return value
      yield* Effect.sleep(every)
    }
  })
