/**
 * One minting at a time per person within a process: a second call for the
 * same person waits for the first and then finds its key. A person's lock is
 * dropped once no one holds or waits for it, so the table stays as small as
 * the number of people minting at once.
 */
import * as Effect from "effect/Effect"

interface Entry {
  readonly semaphore: Effect.Semaphore
  users: number
}

export interface Locks {
  readonly one: <A, E, R>(person: string, self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = (): Locks => {
  const entries = new Map<string, Entry>()
  return {
    one: (person, self) =>
      Effect.suspend(() => {
        let entry = entries.get(person)
        if (entry === undefined) {
          entry = { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
          entries.set(person, entry)
        }
        const held = entry
        held.users++
        return held.semaphore
          .withPermits(1)(self)
          .pipe(
            Effect.ensuring(
              Effect.sync(() => {
                held.users--
                if (held.users === 0) entries.delete(person)
              }),
            ),
          )
      }),
  }
}
