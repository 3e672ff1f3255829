/**
 * Minting against the sandbox, as the service keeps service users and keys:
 * a person's service user is found by its name however many users the
 * service holds (its list past the answer cap included); a revocation that
 * finds no user says so; a reload that removes a person mints them nothing
 * more, and disables their service user; people new to the service are
 * minted for within the minute's bound.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as CallContext from "../../../src/Call/Context.js"
import * as Mint from "../../../src/Mint/Mint.js"
import type { MintError, MintShape } from "../../../src/Mint/Shape.js"
import { sandboxUser } from "../../../src/Sandbox/Estates/Seed.js"
import type * as Sandbox from "../../../src/Sandbox/Server.js"
import { SvcClient, WHOLE_TIMES } from "../../../src/SvcClient.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

const WRITE: CallContext.Grant = { level: "Write", targets: [] }
const READ: CallContext.Grant = { level: "Read", targets: [] }
const ALICE = "alice@example.com"

/** The service user minting makes for a person, as the sandbox keeps it. */
const userOf = (sandbox: Sandbox.Sandbox, person: string) =>
  sandbox.world.users.find((u) => u.username === `svc-mcp:${person}`)

const keysOf = (sandbox: Sandbox.Sandbox, person: string) =>
  sandbox.world.apiKeys.filter((k) => k.user_id === userOf(sandbox, person)?._id.$oid)

/**
 * The answer cap of these tests: 10 KB, read whole up to 100 KB. The crowd (about 300 bytes a
 * user in the service's list) crosses the same bounds as 2,000 users at a cap of 200 KB.
 */
const CAP = 10_000
const CROWD = 60

/** Service users of people minted for long ago: as many as the service's list cannot answer within `cap`. */
const crowd = (sandbox: Sandbox.Sandbox, count: number, cap: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < count; i++) {
      sandbox.world.users.push(
        sandboxUser(sandbox.world, `svc-mcp:former-${i}@example.com`, false, `svc-mcp mints this user's keys`),
      )
    }
    // The list the service answers is past the cap indeed.
    const listed = yield* Sandboxes.asAdmin(sandbox).ok("read/ListUsers", { service_users: "Only" })
    expect(JSON.stringify(listed).length).toBeGreaterThan(cap)
  })

const withMint = <A, E>(
  body: (mint: MintShape, sandbox: Sandbox.Sandbox) => Effect.Effect<A, E>,
  options: { readonly newPerMinute?: number; readonly maxAnswerBytes?: number } = {},
) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped()
    const config = { ...Sandboxes.apiKeyConfig(sandbox), maxAnswerBytes: options.maxAnswerBytes ?? CAP }
    return yield* Effect.gen(function* () {
      const client = yield* SvcClient
      const mint = yield* Mint.make(client, Option.none(), {
        lifetimeMs: 3_600_000,
        scope: sandbox.url,
        ...(options.newPerMinute === undefined ? {} : { newPerMinute: options.newPerMinute }),
      })
      return yield* body(mint, sandbox)
    }).pipe(Effect.provide(Layers.client(config)))
  })

describe("minting finds service users by name", () => {
  it.scopedLive(
    "past the answer cap: revoke finds the person, deletes the key and disables; a new process is refused, 403",
    () =>
      withMint((mint, sandbox) =>
        Effect.gen(function* () {
          yield* crowd(sandbox, CROWD, CAP)
          yield* mint.credential(ALICE, WRITE)
          expect(keysOf(sandbox, ALICE)).toHaveLength(1)
          // The service's list is cut before her user: she is found all the same.
          const revoked = yield* mint.revoke(ALICE, true)
          expect(revoked).toEqual({ username: `svc-mcp:${ALICE}`, found: true, keys: 1, disabled: true })
          expect(keysOf(sandbox, ALICE)).toHaveLength(0)
          expect(userOf(sandbox, ALICE)?.enabled).toBe(false)
          // Her next call: no second user made ("Username already taken"), but a refusal that says why.
          const again = yield* Effect.flip(mint.credential(ALICE, WRITE))
          expect(again.refused).toBe(true)
          expect(again.message).toContain("is disabled (revoked)")
          expect(sandbox.world.users.filter((u) => u.username === `svc-mcp:${ALICE}`)).toHaveLength(1)
          // The listing reads the list whole, past the cap: alice, beyond it, is listed, nothing cut.
          const listed = yield* mint.holders
          expect(listed.cut).toBe(false)
          expect(listed.holders.map((h) => h.person)).toEqual([ALICE])
        }),
      ),
  )

  it.scopedLive("a list past even the whole read's bound: what arrived within the cap, said to be cut", () =>
    withMint(
      (mint, sandbox) =>
        Effect.gen(function* () {
          yield* crowd(sandbox, CROWD, WHOLE_TIMES * (CAP / 10))
          yield* mint.credential(ALICE, WRITE)
          const listed = yield* mint.holders
          // Alice's user stands past the cap: not listed, and the listing says it was cut.
          expect(listed.cut).toBe(true)
          expect(listed.holders.map((h) => h.person)).not.toContain(ALICE)
        }),
      // 1 KB a cap, 10 KB read whole: the crowd passes both.
      { maxAnswerBytes: CAP / 10 },
    ),
  )

  it.scopedLive("a name the service has no user for: found false, nothing made or deleted", () =>
    withMint((mint, sandbox) =>
      Effect.gen(function* () {
        const before = sandbox.world.users.length
        expect(yield* mint.revoke("carol", true)).toEqual({
          username: "svc-mcp:carol",
          found: false,
          keys: 0,
          disabled: false,
        })
        expect(sandbox.world.users.length).toBe(before)
      }),
    ),
  )
})

describe("minting follows the identities in force", () => {
  it.scopedLive("a person removed by a reload while their call waits is minted nothing: 403", () =>
    withMint((mint, sandbox) =>
      Effect.gen(function* () {
        // The call was admitted with her grant; the reload removed her before the key was made.
        yield* mint.reconcile((person) => (person === "bob" ? READ : undefined))
        const refused: MintError = yield* Effect.flip(mint.credential(ALICE, WRITE))
        expect(refused.refused).toBe(true)
        expect(refused.message).toContain("their entry in SVC_MCP_IDENTITIES was removed")
        expect(userOf(sandbox, ALICE)).toBeUndefined()
        // A grant that changed: this call is refused, to be tried again with the new one.
        const changed = yield* Effect.flip(mint.credential("bob", WRITE))
        expect(changed.refused).toBeUndefined()
        expect(userOf(sandbox, "bob")).toBeUndefined()
        yield* mint.credential("bob", READ)
        expect(keysOf(sandbox, "bob")).toHaveLength(1)
      }),
    ),
  )

  it.scopedLive("a reload disables the service users of those no longer entitled, listed past the cap by name", () =>
    withMint((mint, sandbox) =>
      Effect.gen(function* () {
        yield* mint.credential("bob", READ)
        yield* crowd(sandbox, CROWD, CAP)
        yield* mint.credential(ALICE, WRITE)
        // Alice's entry went (her user is past the list's cut, found by name); bob's grant changed.
        // Quiet: a line per person of the crowd (each "revoked 0 minted key(s)"), which vitest would print.
        const gone = yield* mint
          .reconcile((person) => (person === "bob" ? WRITE : undefined), [ALICE])
          .pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
        expect(gone.map((r) => [r.person, r.keys, r.disabled])).toEqual(
          expect.arrayContaining([
            ["bob", 1, false],
            [ALICE, 1, true],
          ]),
        )
        expect(userOf(sandbox, ALICE)?.enabled).toBe(false)
        expect(keysOf(sandbox, ALICE)).toHaveLength(0)
        expect(userOf(sandbox, "bob")?.enabled).toBe(true)
        // Bob, with his new grant, is minted for again.
        yield* mint.credential("bob", WRITE)
        expect(keysOf(sandbox, "bob")).toHaveLength(1)
      }),
    ),
  )

  it.scopedLive("people listing shows the disabled ones too", () =>
    withMint((mint) =>
      Effect.gen(function* () {
        yield* mint.credential(ALICE, WRITE)
        yield* mint.credential("bob", READ)
        yield* mint.reconcile((person) => (person === "bob" ? READ : undefined))
        const { holders, cut } = yield* mint.holders
        expect(cut).toBe(false)
        expect(holders.map((h) => [h.person, h.enabled, h.created.length])).toEqual(
          expect.arrayContaining([
            [ALICE, false, 0],
            ["bob", true, 1],
          ]),
        )
      }),
    ),
  )
})

describe("people new to the service", () => {
  it.scopedLive("are minted for within the minute's bound; past it, refused with when to try again", () =>
    withMint(
      (mint, sandbox) =>
        Effect.gen(function* () {
          yield* mint.credential("p1", READ)
          yield* mint.credential("p2", READ)
          const third = yield* Effect.flip(mint.credential("p3", READ))
          expect(third.message).toContain("SVC_MCP_MINT_NEW_PER_MINUTE")
          expect(third.retryAfter).toBeGreaterThan(0)
          expect(third.retryAfter).toBeLessThanOrEqual(60)
          expect(userOf(sandbox, "p3")).toBeUndefined()
          // One already known to the service is not new: minted for again (a new grant), its user the same.
          const before = keysOf(sandbox, "p1").map((k) => k.key)
          const held = yield* mint.credential("p1", WRITE)
          expect(before).not.toContain(held.key)
          expect(sandbox.world.users.filter((u) => u.username === "svc-mcp:p1")).toHaveLength(1)
        }),
      { newPerMinute: 2 },
    ),
  )
})
