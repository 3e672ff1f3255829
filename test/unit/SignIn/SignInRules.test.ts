/**
 * The rules of sign-in that hold for every input: the scope hierarchy (a
 * broader scope allows all a narrower one does, and the needed scope always
 * suffices), the identities file's form (every fault refused, with where), and
 * the challenges' exact text.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as FastCheck from "fast-check"
import * as Identities from "../../../src/Settings/Identities.js"
import * as Resource from "../../../src/SignIn/Resource.js"
import * as Scopes from "../../../src/SignIn/Scopes.js"
import { property } from "../../support/Property.js"

const TIERS = ["read", "operate", "write"] as const
const prefix = FastCheck.constantFrom("", "api://svc-mcp/", "https://example.test/")
const granted = FastCheck.array(FastCheck.constantFrom(...Scopes.NAMES, "openid", "svc.admin", "offline_access"), {
  maxLength: 4,
})

describe("the scopes", () => {
  property(
    "a token may call a tier exactly when it holds that tier's scope or a broader one",
    { prefix, granted, tier: FastCheck.constantFrom(...TIERS) },
    ({ prefix, granted, tier }) => {
      const scopes = Scopes.make(prefix)
      const held = granted.map((name) => `${prefix}${name}`)
      const rank = TIERS.indexOf(tier)
      const expected = Scopes.NAMES.slice(rank).some((name) => held.includes(`${prefix}${name}`))
      expect(scopes.allows(held, tier)).toBe(expected)
      // The scope a challenge names always suffices, alone.
      expect(scopes.allows([scopes.needed(tier)], tier)).toBe(true)
      // Unprefixed names do not pass for prefixed ones.
      if (prefix !== "") expect(scopes.allows(granted, tier)).toBe(false)
    },
  )

  it("names the minimal scopes, narrowest first, with the prefix", () => {
    expect(Scopes.make("api://svc-mcp/").all).toEqual([
      "api://svc-mcp/svc.read",
      "api://svc-mcp/svc.operate",
      "api://svc-mcp/svc.write",
    ])
    expect(Scopes.make("").needed("operate")).toBe("svc.operate")
  })
})

describe("the identities file", () => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-identities-"))
  const key = Path.join(folder, "k")
  const secret = Path.join(folder, "s")
  Fs.writeFileSync(key, "the-key\n")
  Fs.writeFileSync(secret, "the-secret\n")

  it("reads keys from their files, a server entry, a wildcard, and per-service entries", () => {
    const parsed = Identities.parse(
      JSON.stringify({
        claim: "email",
        identities: {
          "a@example.com": { apiKeyFile: key, apiSecretFile: secret },
          "b@example.com": { server: true },
          "c@example.com": { prod: { apiKeyFile: key, apiSecretFile: secret }, staging: { server: true } },
          "*": { server: true },
        },
      }),
      ["prod", "staging"],
    )
    const identities = Either.getOrThrow(parsed)
    expect(identities.claim).toBe("email")
    const a = Identities.entryFor(identities, "a@example.com")
    expect(a?._tag === "All" && a.credentials._tag === "Key" && a.credentials.pair.key).toBe("the-key")
    const c = Identities.entryFor(identities, "c@example.com")
    expect(c?._tag === "PerService" && [...c.services.keys()]).toEqual(["prod", "staging"])
    expect(Identities.entryFor(identities, "nobody@example.com")).toEqual({
      _tag: "All",
      credentials: { _tag: "Server" },
    })
    expect(Either.getOrThrow(Identities.parse('{"identities": {}}')).claim).toBe("sub")
  })

  it("refuses each fault, saying where", () => {
    const cases: ReadonlyArray<readonly [unknown, string, ReadonlyArray<string>?]> = [
      ["{", "is not JSON"],
      [[], "is not a JSON object"],
      [{ claim: "email" }, 'has no "identities" object'],
      [{ identities: {}, extra: 1 }, 'has an unknown field "extra"'],
      [{ claim: "", identities: {} }, "has a claim that is not a claim name"],
      [{ identities: { a: 1 } }, 'identities["a"] is not an object'],
      [{ identities: { a: { server: false } } }, 'identities["a"].server is not true'],
      [
        { identities: { a: { apiKeyFile: key } } },
        'identities["a"] needs "server": true, or both apiKeyFile and apiSecretFile',
      ],
      [
        { identities: { a: { server: true, apiKeyFile: key } } },
        'identities["a"] has both server and apiKeyFile/apiSecretFile',
      ],
      [
        { identities: { a: { apiKeyFile: "/nonexistent/k", apiSecretFile: secret } } },
        'identities["a"].apiKeyFile names a file that cannot be read (ENOENT)',
      ],
      [{ identities: { a: { serverr: true } } }, 'identities["a"] has an unknown field "serverr"'],
      [
        { identities: { a: { qa: { server: true } } } },
        'identities["a"] names the service "qa", which SVC_SERVICES does not',
        ["prod"],
      ],
    ]
    for (const [value, fault, services] of cases) {
      const text = typeof value === "string" ? value : JSON.stringify(value)
      const parsed = Identities.parse(text, services ?? [])
      expect(Either.isLeft(parsed), fault).toBe(true)
      if (Either.isLeft(parsed)) expect(parsed.left).toContain(fault)
    }
  })
})

describe("the challenges", () => {
  it.effect("are exactly as RFC 6750 and RFC 9728 have them", () =>
    Effect.gen(function* () {
      const signIn = yield* Resource.make({
        issuers: ["https://login.example.test/realms/team"],
        publicUrl: "https://svc.example.test",
        resource: "https://svc.example.test/mcp",
        audience: "https://svc.example.test/mcp",
        scopePrefix: "",
        identitiesPath: Option.none(),
        identities: Identities.everyoneAsServer,
        pageClient: Option.none(),
      })
      const metadata = "https://svc.example.test/.well-known/oauth-protected-resource/mcp"
      expect(signIn.metadataUrl).toBe(metadata)
      expect(signIn.challenge({ _tag: "Unauthorized", reason: Option.none() })).toBe(
        `Bearer resource_metadata="${metadata}", scope="svc.read"`,
      )
      expect(signIn.challenge({ _tag: "Unauthorized", reason: Option.some('bad "token"') })).toBe(
        `Bearer error="invalid_token", error_description="bad \\"token\\"", resource_metadata="${metadata}", scope="svc.read"`,
      )
      expect(signIn.challenge({ _tag: "InsufficientScope", scope: "svc.write", reason: "" })).toBe(
        `Bearer error="insufficient_scope", scope="svc.write", resource_metadata="${metadata}"`,
      )
      expect(signIn.challenge({ _tag: "Forbidden", reason: "" })).toBeUndefined()
      // No token at all: refused before anything is fetched.
      const refusal = yield* Effect.flip(signIn.admit(Option.none()))
      expect(refusal).toEqual({ _tag: "Unauthorized", reason: Option.none() })
    }),
  )
})

describe("sign-in for an embedding program", () => {
  it.scoped("is on when its layer finds SVC_MCP_OAUTH_ISSUER in the ConfigProvider, and absent otherwise", () =>
    Effect.gen(function* () {
      const within = (env: Record<string, string>) =>
        Resource.SignIn.pipe(
          Effect.provide(Resource.layerConfig()),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
        )
      expect(Option.isNone(yield* within({}))).toBe(true)
      const on = yield* within({
        SVC_MCP_OAUTH_ISSUER: "https://login.example.test/realms/team",
        SVC_MCP_PUBLIC_URL: "https://svc.example.test/",
        SVC_MCP_OAUTH_SCOPE_PREFIX: "api://svc/",
      })
      expect(Option.map(on, (signIn) => signIn.metadata)).toEqual(
        Option.some({
          resource: "https://svc.example.test/mcp",
          authorization_servers: ["https://login.example.test/realms/team"],
          scopes_supported: ["api://svc/svc.read", "api://svc/svc.operate", "api://svc/svc.write"],
          bearer_methods_supported: ["header"],
          resource_name: "svc-mcp",
        }),
      )
      const refused = yield* Effect.flip(within({ SVC_MCP_OAUTH_ISSUER: "https://login.example.test" }))
      expect(refused.message).toMatch(/^SVC_MCP_PUBLIC_URL is not set, and SVC_MCP_OAUTH_ISSUER is/)
    }),
  )
})
