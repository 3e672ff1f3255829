/**
 * A replica's inbox in the shared store: one key, `inbox:<replica>`, that
 * another replica touches after it left an answer or a cancellation for a
 * question or call held here. While anything is held, the replica reads that
 * one key every LOOK_EVERY_MS (from the store's tracked copy, so no round trip
 * until it changes), and only when it changed reads the keys of what it holds:
 * one read per replica, however many questions wait.
 */
import { randomBytes } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { StoreShape } from "../../Store/Store.js"

/** How often a replica holding a question or a call reads its inbox. */
const LOOK_EVERY_MS = 100

/** How long a touch is kept: as long as what it points to. */
const KEPT_MS = 600_000

export interface Inbox {
  /** Something is held here now: read the inbox until nothing is. */
  readonly wake: () => void
}

interface Options {
  readonly replica: string
  readonly store: Option.Option<StoreShape>
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  /** Whether anything held here waits for the store. */
  readonly busy: () => boolean
  /** Reads what was left for this replica, once its inbox changed. */
  readonly changed: (store: StoreShape) => Promise<void>
}

const keyOf = (replica: string) => `inbox:${replica}`

export const make = ({ replica, store, run, busy, changed }: Options): Inbox => {
  if (Option.isNone(store)) return { wake: () => {} }
  const shared = store.value
  let running = false
  let last: string | undefined
  const tick = () => {
    if (!busy()) {
      running = false
      return
    }
    run(Effect.option(shared.get(keyOf(replica))))
      .then((value) => {
        const seen = Option.getOrUndefined(Option.flatten(value))
        if (seen === undefined || seen === last) return
        last = seen
        return changed(shared)
      })
      .catch(() => undefined)
      .finally(() => setTimeout(tick, LOOK_EVERY_MS).unref())
  }
  return {
    wake: () => {
      if (running) return
      running = true
      setTimeout(tick, LOOK_EVERY_MS).unref()
    },
  }
}

/** Tells `holder` that something was left for it. */
export const touch = ({ store, run }: Pick<Options, "store" | "run">, holder: string): Promise<void> =>
  Option.isNone(store)
    ? Promise.resolve()
    : run(Effect.ignore(store.value.set(keyOf(holder), randomBytes(9).toString("base64url"), KEPT_MS)))
