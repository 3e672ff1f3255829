/**
 * A map whose entries expire and whose size is bounded: what the process keeps of
 * callers (the guard's window, the refused keys, the names of ids) and of secrets
 * (their forms). An entry lasts its time to live from when it is set, and the map
 * holds at most `most` entries: beyond it, the one set longest ago is forgotten
 * first, so that no flood of callers grows the memory without bound. Expired
 * entries are swept as the map grows, each sweep after the size has doubled, so
 * that a set costs a constant time on average. The time is given by the caller
 * (the Effect clock's, where there is one), so that a test moves it.
 */

/** A bound below which the expired entries are not swept: they are dropped when read. */
const SWEEP_FROM = 1024

export interface ExpiringMap<K, V> {
  /** The value of `key`, unless it has expired by `now` (ms). */
  readonly get: (key: K, now: number) => V | undefined
  /** Sets `key` at `now`, for `ttlMs` (the map's own unless given); it becomes the newest entry. */
  readonly set: (key: K, value: V, now: number, ttlMs?: number) => void
  readonly delete: (key: K) => void
  /** The entries held, the expired that are not yet swept among them. */
  readonly size: () => number
}

export interface Options {
  /** How long an entry lasts, in ms; Infinity for entries that only the bound forgets. */
  readonly ttlMs: number
  /** The most entries held. */
  readonly most: number
}

export const make = <K, V>({ ttlMs, most }: Options): ExpiringMap<K, V> => {
  // A Map keeps its keys in the order they were set: the first is the oldest.
  const entries = new Map<K, { readonly value: V; readonly until: number }>()
  let sweepAt = SWEEP_FROM
  const sweep = (now: number) => {
    for (const [key, entry] of entries) if (entry.until <= now) entries.delete(key)
    sweepAt = Math.max(SWEEP_FROM, entries.size * 2)
  }
  // The oldest entry, read on from where the last one forgotten was: a Map's iterator goes on past
  // deletions and sees entries set later. A fresh `keys()` each time would step over every slot
  // the forgotten left at the table's start (V8 reuses them only when the table is rebuilt): at a
  // bound of 100,000, 24 µs a set where this takes 1.3 µs.
  let oldest = entries.keys()
  const forgetOldest = () => {
    let next = oldest.next()
    if (next.done === true) {
      oldest = entries.keys()
      next = oldest.next()
    }
    if (next.done !== true) entries.delete(next.value)
  }
  return {
    get: (key, now) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.until > now) return entry.value
      entries.delete(key)
      return undefined
    },
    set: (key, value, now, ttl = ttlMs) => {
      entries.delete(key)
      if (entries.size >= sweepAt) sweep(now)
      while (entries.size > 0 && entries.size >= most) forgetOldest()
      entries.set(key, { value, until: now + ttl })
    },
    delete: (key) => {
      entries.delete(key)
    },
    size: () => entries.size,
  }
}
