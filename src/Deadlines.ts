/**
 * Time-outs for many requests from one watcher fiber, on the Effect Clock (so
 * TestClock drives it in tests). Racing each request against a sleep of its
 * own, as Effect.timeout does, costs a fiber and a timer per request, about a
 * tenth of this server's CPU per call; here a request costs a set insertion.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

interface Entry {
  readonly deadline: number
  readonly expire: () => void
}

export interface Deadlines {
  /** Calls `expire` once `ms` have passed on the clock, unless the returned function is called first. */
  readonly arm: (ms: number, expire: () => void) => () => void
}

export const make: Effect.Effect<Deadlines, never, Scope.Scope> = Effect.gen(function* () {
  const clock = yield* Effect.clock
  const entries = new Set<Entry>()
  let wake = yield* Deferred.make<void>()
  let sleepingUntil = Number.POSITIVE_INFINITY

  const watch = Effect.gen(function* () {
    while (true) {
      if (entries.size === 0) {
        sleepingUntil = Number.POSITIVE_INFINITY
        yield* Deferred.await(wake)
      }
      wake = yield* Deferred.make<void>()
      let next = Number.POSITIVE_INFINITY
      for (const entry of entries) next = Math.min(next, entry.deadline)
      const now = clock.unsafeCurrentTimeMillis()
      if (next > now) {
        sleepingUntil = next
        // An earlier deadline armed meanwhile wakes the watcher.
        yield* Effect.raceFirst(Effect.sleep(Duration.millis(next - now)), Deferred.await(wake))
      }
      const at = clock.unsafeCurrentTimeMillis()
      for (const entry of entries) {
        if (entry.deadline <= at) {
          entries.delete(entry)
          entry.expire()
        }
      }
    }
  })
  yield* Effect.forkScoped(watch)

  return {
    arm: (ms, expire) => {
      const entry = { deadline: clock.unsafeCurrentTimeMillis() + ms, expire }
      entries.add(entry)
      if (entry.deadline < sleepingUntil) {
        sleepingUntil = entry.deadline
        Deferred.unsafeDone(wake, Effect.void)
      }
      return () => {
        entries.delete(entry)
      }
    },
  }
})
