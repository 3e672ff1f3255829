/**
 * With several issuers, an identity is its issuer and its claim: a person at
 * a second issuer whose email is alice's does not get alice's entry; each is
 * named with their issuer, as their minted key's record, their service user
 * and the audit name them. A file that names no issuer is refused then; with
 * one issuer, files stay as they were.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Identities from "../../../src/Settings/Identities.js"
import * as Resource from "../../../src/SignIn/Resource.js"
import * as AuthServer from "../../support/AuthServer.js"

const PUBLIC = "https://svc.example.test"
const RESOURCE = `${PUBLIC}/mcp`
const ALICE = { id: "alice", secret: "alice-client-secret-0123456789" }
const EMAIL = AuthServer.emailOf("alice")

const fileOf = (identities: Record<string, unknown>) => JSON.stringify({ claim: "email", identities })

describe("an identity among several issuers", () => {
  it.scopedLive("is its issuer and its claim: alice's email at the second issuer is not alice", () =>
    Effect.gen(function* () {
      const first = yield* AuthServer.scoped({ resource: RESOURCE, clients: [ALICE] })
      const second = yield* AuthServer.scoped({ resource: RESOURCE, clients: [ALICE] })
      const issuers = [first.issuer, second.issuer]
      // A file that names people by their email alone is refused: it cannot say which alice.
      const plain = Identities.parse(fileOf({ [EMAIL]: { mint: { level: "Write" } } }), [], issuers)
      expect(Either.isLeft(plain) && plain.left).toContain(
        `identities[${JSON.stringify(EMAIL)}] names no issuer: with several issuers (SVC_MCP_OAUTH_ISSUER) each entry is "<issuer>#<claim value>"`,
      )
      const identities = Either.getOrThrow(
        Identities.parse(fileOf({ [`${first.issuer}#${EMAIL}`]: { mint: { level: "Write" } } }), [], issuers),
      )
      const signIn = yield* Resource.make({
        issuers,
        publicUrl: PUBLIC,
        resource: RESOURCE,
        audience: RESOURCE,
        scopePrefix: "",
        identitiesPath: Option.none(),
        identities,
        pageClient: Option.none(),
      })
      const admit = (as: { readonly clientToken: typeof first.clientToken }) =>
        Effect.flatMap(
          Effect.promise(() => as.clientToken(ALICE, "svc.write")),
          (token) => signIn.admit(Option.some(token)),
        )
      const alice = yield* admit(first)
      expect(alice.identity.name).toBe(`${first.issuer}#${EMAIL}`)
      expect(alice.entry).toEqual({
        _tag: "All",
        credentials: { _tag: "Mint", grant: { level: "Write", targets: [] } },
      })
      // The same email at the other issuer: no entry, refused, and named with its issuer.
      const other = yield* Effect.flip(admit(second))
      expect(other).toMatchObject({ _tag: "Forbidden", who: `oauth:${second.issuer}#${EMAIL}` })
      // An issuer's `*` admits anyone of that issuer, named with it.
      const wide = Either.getOrThrow(
        Identities.parse(fileOf({ [`${second.issuer}#*`]: { server: true } }), [], issuers),
      )
      expect(Identities.entryFor(wide, `${second.issuer}#${EMAIL}`)).toEqual({
        _tag: "All",
        credentials: { _tag: "Server" },
      })
      expect(Identities.entryFor(wide, `${first.issuer}#${EMAIL}`)).toBeUndefined()
    }),
  )

  it("with one issuer, a file names people by the claim alone, as it did; its issuer before it is dropped", () => {
    const issuer = "https://login.example.test"
    const parsed = Either.getOrThrow(
      Identities.parse(
        fileOf({ [EMAIL]: { server: true }, [`${issuer}#bob@example.com`]: { server: true } }),
        [],
        [issuer],
      ),
    )
    expect([...parsed.entries.keys()]).toEqual([EMAIL, "bob@example.com"])
    expect(Identities.nameOf(parsed, issuer, EMAIL)).toBe(EMAIL)
  })
})
