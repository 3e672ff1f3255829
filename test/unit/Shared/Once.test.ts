/**
 * An Effect run once, then read as a value (src/Shared/Once.ts): what every tool call reads
 * of what the first one made (undici's Agent) or learned (the default page).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Once from "../../../src/Shared/Once.js"

describe("an Effect run once", () => {
  it.effect("runs when first read, once for readers at once and after, each given its value", () =>
    Effect.gen(function* () {
      let runs = 0
      const gate = yield* Deferred.make<void>()
      const read = yield* Once.make(
        Effect.zipRight(
          Deferred.await(gate),
          Effect.sync(() => ++runs),
        ),
      )
      expect(runs).toBe(0)
      const waiting = yield* Effect.fork(
        Effect.all(
          Array.from({ length: 10 }, () => read),
          { concurrency: "unbounded" },
        ),
      )
      yield* Deferred.succeed(gate, undefined)
      expect(yield* waiting.await).toEqual(Exit.succeed(Array.from({ length: 10 }, () => 1)))
      expect(yield* read).toBe(1)
      expect(runs).toBe(1)
    }),
  )

  it.effect("keeps a failure as it came, without running again", () =>
    Effect.gen(function* () {
      let runs = 0
      const read = yield* Once.make(Effect.suspend(() => Effect.fail(`failed ${++runs}`)))
      expect(yield* Effect.flip(read)).toBe("failed 1")
      expect(yield* Effect.flip(read)).toBe("failed 1")
      expect(runs).toBe(1)
    }),
  )

  it.effect("remembered: runs until its first success, then reads that value without running", () =>
    Effect.gen(function* () {
      let runs = 0
      const read = Once.remembered(Effect.suspend(() => (++runs === 1 ? Effect.fail("not yet") : Effect.succeed(runs))))
      expect(yield* Effect.flip(read)).toBe("not yet")
      expect(yield* read).toBe(2)
      expect(yield* read).toBe(2)
      expect(runs).toBe(2)
    }),
  )
})
