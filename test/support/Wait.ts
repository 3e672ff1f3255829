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
