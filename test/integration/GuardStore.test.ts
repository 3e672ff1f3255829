/**
 * The guard's window in the replicas' shared store, against a real
 * redis-server (Debian's): a read on one replica guards the changes sent to
 * another, the window's end travels with it, and each replica's memory
 * answers when the store does not.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as StoreSettings from "../../src/Settings/Store.js"
import * as Store from "../../src/Store/Store.js"
import * as Guard from "../../src/Untrusted/Guard.js"
import * as Redis from "../support/Redis.js"

const WEB = "the logs of stack web"
const INFRA = "the commit messages of repo infra"

describe("the guard's window in the replicas' shared store (a real redis-server)", () => {
  it.live("a read on one replica guards the changes sent to another; memory answers when the store does not", () =>
    Effect.gen(function* () {
      const redis = yield* Redis.scoped()
      const settings: StoreSettings.StoreSettings = {
        url: Redacted.make(redis.url),
        where: redis.url,
        tls: false,
        password: Option.none(),
        prefix: "guard-test:",
        cluster: false,
        cache: true,
        stateKey: Redacted.make(new Uint8Array(32)),
      }
      const shared = yield* Store.make(settings)
      const one = yield* Guard.sharedStore(shared)
      const other = yield* Guard.sharedStore(shared)
      yield* one.mark("key:alice", "the logs of stack web", 60_000)
      const seen = yield* other.recent("key:alice")
      expect(Option.map(seen, (w) => w.source)).toEqual(Option.some(WEB))
      // The window's end travels with it: a minute from the read, as this process's clock says.
      const end = Option.getOrThrow(seen).until - Date.now()
      expect(end).toBeGreaterThan(50_000)
      expect(end).toBeLessThanOrEqual(60_000)
      expect(yield* other.recent("key:bob")).toEqual(Option.none())
      expect(Number(yield* Effect.promise(() => redis.command("PTTL", "guard-test:guard:key:alice")))).toBeGreaterThan(
        55_000,
      )
      // Only a window as a replica writes it counts: anything else under a caller's key is none.
      yield* Effect.promise(() => redis.command("SET", "guard-test:guard:key:dave", WEB))
      expect(yield* other.recent("key:dave")).toEqual(Option.none())
      // The store down: each replica still guards after what it served itself.
      yield* Effect.promise(() => redis.stop())
      yield* one.mark("key:carol", "the commit messages of repo infra", 60_000)
      expect(Option.map(yield* one.recent("key:carol"), (w) => w.source)).toEqual(Option.some(INFRA))
      expect(yield* other.recent("key:carol")).toEqual(Option.none())
    }).pipe(Effect.scoped),
  )
})
