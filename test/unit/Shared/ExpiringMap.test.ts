/**
 * The expiring, size-bounded map (Shared/ExpiringMap.ts): for any run of sets, reads,
 * deletes and time passing, a read gives only the value last set, neither deleted nor
 * expired; without the bound's pressure, every such value; and under it, the entries
 * set most recently, never more than the bound.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as ExpiringMap from "../../../src/Shared/ExpiringMap.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

type Op =
  | { readonly op: "set"; readonly key: number; readonly value: number; readonly ttl: number | undefined }
  | { readonly op: "get"; readonly key: number }
  | { readonly op: "delete"; readonly key: number }
  | { readonly op: "wait"; readonly ms: number }

const key = FastCheck.integer({ min: 0, max: 11 })
const op: FastCheck.Arbitrary<Op> = FastCheck.oneof(
  FastCheck.record({
    op: FastCheck.constant("set" as const),
    key,
    value: FastCheck.integer(),
    ttl: FastCheck.option(FastCheck.integer({ min: 1, max: 200 }), { nil: undefined }),
  }),
  FastCheck.record({ op: FastCheck.constant("get" as const), key }),
  FastCheck.record({ op: FastCheck.constant("delete" as const), key }),
  FastCheck.record({ op: FastCheck.constant("wait" as const), ms: FastCheck.integer({ min: 0, max: 150 }) }),
)

/** What the map was told: each key's last value and until when it counts; no bound. */
interface Told {
  readonly value: number
  readonly until: number
}

/** Runs `ops` on a map of `most` entries and on the model, checking each read. */
const run = (ops: ReadonlyArray<Op>, most: number, ttlMs: number) => {
  const map = ExpiringMap.make<number, number>({ ttlMs, most })
  const told = new Map<number, Told>()
  // Every key ever set: while they are at most `most`, the bound has never pushed one out (a key
  // deleted since may have, while it was held, which the model's own size no longer shows).
  const ever = new Set<number>()
  let now = 0
  for (const step of ops) {
    if (step.op === "wait") now += step.ms
    else if (step.op === "delete") {
      map.delete(step.key)
      told.delete(step.key)
    } else if (step.op === "set") {
      map.set(step.key, step.value, now, step.ttl)
      ever.add(step.key)
      told.set(step.key, { value: step.value, until: now + (step.ttl ?? ttlMs) })
    } else {
      const got = map.get(step.key, now)
      const expected = told.get(step.key)
      const live = expected !== undefined && expected.until > now ? expected.value : undefined
      // Never a value deleted, expired, or set over; always the live one where nothing could push it out.
      if (got !== undefined) expect(got).toBe(live)
      if (ever.size <= most) expect(got).toBe(live)
    }
    expect(map.size()).toBeLessThanOrEqual(most)
  }
}

describe("an expiring map", () => {
  property(
    "reads the value last set, until it expires or is deleted, whatever else happens",
    { ops: FastCheck.array(op, { maxLength: 60 }), ttlMs: FastCheck.integer({ min: 1, max: 300 }) },
    ({ ops, ttlMs }) => {
      run(ops, 100, ttlMs)
    },
    { fastCheck: { numRuns: runs(300) } },
  )

  property(
    "under its bound, holds at most that many, and a read never gives what it should not",
    {
      ops: FastCheck.array(op, { maxLength: 60 }),
      most: FastCheck.integer({ min: 1, max: 6 }),
      ttlMs: FastCheck.integer({ min: 1, max: 300 }),
    },
    ({ ops, most, ttlMs }) => {
      run(ops, most, ttlMs)
    },
    { fastCheck: { numRuns: runs(300) } },
  )

  it("a key pushed out by one since deleted stays out: the model's size no longer shows the push", () => {
    const ops: ReadonlyArray<Op> = [
      { op: "set", key: 11, value: 0, ttl: undefined },
      { op: "set", key: 1, value: 0, ttl: undefined },
      { op: "set", key: 0, value: 0, ttl: undefined },
      { op: "delete", key: 0 },
      { op: "get", key: 11 },
    ]
    run(ops, 2, 1)
  })

  property(
    "forgets the entries set longest ago first: the last `most` keys set are the ones kept",
    {
      keys: FastCheck.array(FastCheck.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 80 }),
      most: FastCheck.integer({ min: 1, max: 10 }),
    },
    ({ keys, most }) => {
      const map = ExpiringMap.make<number, number>({ ttlMs: Number.POSITIVE_INFINITY, most })
      for (const [i, k] of keys.entries()) map.set(k, i, 0)
      // The keys by when each was last set, newest first: the first `most` of them are kept.
      const newest = [...new Set([...keys].reverse())]
      for (const [rank, k] of newest.entries()) {
        const last = keys.lastIndexOf(k)
        expect(map.get(k, 1e12), `key ${k}`).toBe(rank < most ? last : undefined)
      }
      expect(map.size()).toBe(Math.min(most, newest.length))
    },
    { fastCheck: { numRuns: runs(300) } },
  )

  it("an entry lasts its time to live from when it was set, its own where given", () => {
    const map = ExpiringMap.make<string, string>({ ttlMs: 100, most: 10 })
    map.set("a", "one", 0)
    map.set("b", "two", 0, 500)
    expect(map.get("a", 99)).toBe("one")
    expect(map.get("a", 100)).toBeUndefined()
    expect(map.get("b", 499)).toBe("two")
    expect(map.get("b", 500)).toBeUndefined()
    // Set again, it lasts from then, and is the newest.
    map.set("c", "three", 600)
    map.set("c", "four", 650)
    expect(map.get("c", 749)).toBe("four")
    map.delete("c")
    expect(map.get("c", 700)).toBeUndefined()
  })

  it("sweeps the expired entries as it grows, so that a flood of them does not stay held", () => {
    const map = ExpiringMap.make<number, number>({ ttlMs: 10, most: 1_000_000 })
    for (let i = 0; i < 5000; i++) map.set(i, i, i)
    // At most the entries set within the last 10 ms and those since the last sweep are held.
    expect(map.size()).toBeLessThan(1100)
    expect(map.get(4999, 5000)).toBe(4999)
    expect(map.get(0, 5000)).toBeUndefined()
  })
})
