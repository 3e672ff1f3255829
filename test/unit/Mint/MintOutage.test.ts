/**
 * Minted keys while the shared store does not answer: the key held in memory
 * is used while it lives and for the grant it was minted for, past the half of
 * its lifetime too; anyone else is refused with words that say why and what
 * goes on.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Outage from "../../../src/Mint/Outage.js"
import type { Held } from "../../../src/Mint/Shape.js"
import { StoreError } from "../../../src/Store/Shape.js"

const WHERE = "redis://redis:6379"
const stalled = new StoreError({ operation: "get", detail: "no answer within 500 ms" })

const heldFor = (description: string, created: number, lifetimeMs: number): Held => ({
  key: "minted-key",
  secret: Redacted.make("minted-secret"),
  userId: "u1",
  username: "svc-mcp:alice@example.com",
  created,
  expires: created + lifetimeMs,
  description,
})

describe("a minted key through a store outage", () => {
  it.effect("the key held is used past the half of its lifetime, until it expires", () =>
    Effect.gen(function* () {
      const now = Date.now()
      // Three quarters of its life gone: the store answering, it would be renewed; not now.
      const old = heldFor("Write on all", now - 75_000, 100_000)
      expect(yield* Outage.held(old, "alice@example.com", "Write on all", WHERE, stalled)).toBe(old)
    }),
  )

  it.effect("none held, expired, or minted for another grant: refused, saying why and that others go on", () =>
    Effect.gen(function* () {
      const now = Date.now()
      for (const kept of [
        undefined,
        heldFor("Write on all", now - 100_001, 100_000),
        heldFor("Read on all", now, 100_000),
      ]) {
        const error = yield* Effect.flip(Outage.held(kept, "alice@example.com", "Write on all", WHERE, stalled))
        expect(error._tag).toBe("MintError")
        expect(error.message).toBe(
          `no service key could be minted for "alice@example.com": the shared store at ${WHERE} does not answer (get: no answer within 500 ms): no key is minted until it answers, as the store keeps one key per person across replicas; people this replica has served already go on being served; try again once it answers`,
        )
        expect(error.message).not.toContain("minted-secret")
      }
    }),
  )
})
