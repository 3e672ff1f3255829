/**
 * The token verifier against a real authorization server (oidc-provider on
 * 127.0.0.1): its own tokens are accepted, and every kind of bad token is
 * refused with its reason; an unknown key fetches the JWKS again at most once
 * per cooldown (jose's 30 s, on `Date`, which these tests move by hand), so a
 * rotation is picked up without a restart and a flood of junk cannot hammer the
 * provider; no key at all is a 503, asked again only after a pause (on the test clock).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as Jose from "jose"
import * as Verifier from "../../../src/SignIn/Verifier.js"
import * as AuthServer from "../../support/AuthServer.js"

const RESOURCE = "https://svc-mcp.example.test/mcp"
const CLIENT = { id: "robot", secret: "robot-secret-0123456789" }

/** The cooldown between two fetches for an unknown key, as served. */
const COOLDOWN_MS = 30_000

// `Date` stands still unless a test moves it (its timers run as ever): a flood is within the cooldown
// however busy the machine, and the cooldown is passed without waiting it out.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** Past the cooldown, on `Date` (jose's clock), and the test clock with it. */
const pastCooldown = Effect.zipRight(
  Effect.sync(() => vi.setSystemTime(Date.now() + COOLDOWN_MS + 50)),
  TestClock.adjust(COOLDOWN_MS + 50),
)

const setUp = Effect.gen(function* () {
  const as = yield* AuthServer.scoped({ resource: RESOURCE, clients: [CLIENT] })
  // The tokens' times are read on the Clock: the test clock starts at the wall clock's time.
  yield* TestClock.setTime(Date.now())
  const verifier = yield* Verifier.make({ issuers: [as.issuer], audience: RESOURCE })
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: as.issuer, aud: RESOURCE, sub: "alice", scope: "svc.read", iat: now, exp: now + 300 }
  return { as, verifier, now, claims }
})

const refusal = (verifier: Verifier.Verifier, token: string) =>
  Effect.flip(verifier.verify(token)).pipe(Effect.map((error) => `${error._tag}: ${error.reason}`))

describe("the sign-in token verifier", () => {
  it.scoped("accepts the authorization server's own JWT access token, with its subject and scopes", () =>
    Effect.gen(function* () {
      const { as, verifier } = yield* setUp
      const token = yield* Effect.promise(() => as.clientToken(CLIENT, "svc.read svc.operate"))
      const verified = yield* verifier.verify(token)
      expect(verified.issuer).toBe(as.issuer)
      expect(verified.subject).toBe(CLIENT.id)
      expect([...verified.scopes].sort()).toEqual(["svc.operate", "svc.read"])
      expect(verified.claims.email).toBe(AuthServer.emailOf(CLIENT.id))
    }),
  )

  it.scoped("refuses each kind of bad token with its reason", () =>
    Effect.gen(function* () {
      const { as, verifier, now, claims } = yield* setUp
      const key = as.key()
      const signed = (over: Record<string, unknown>) =>
        Effect.promise(() => AuthServer.sign(key, { ...claims, ...over }))
      // The provider's key signs each: only the claim in question is wrong.
      expect(yield* refusal(verifier, yield* signed({ aud: "https://other.example.test/mcp" }))).toBe(
        `TokenRefused: the token is not for this resource (its aud does not contain ${RESOURCE})`,
      )
      expect(yield* refusal(verifier, yield* signed({ iss: "https://evil.example.test" }))).toContain(
        "issuer is not one this server trusts",
      )
      expect(yield* refusal(verifier, yield* signed({ exp: now - 61, iat: now - 600 }))).toBe(
        "TokenRefused: the token has expired",
      )
      expect(yield* refusal(verifier, yield* signed({ nbf: now + 120 }))).toBe(
        "TokenRefused: the token is not valid yet (nbf)",
      )
      expect(yield* refusal(verifier, yield* signed({ iat: now + 120 }))).toBe(
        "TokenRefused: the token is issued in the future (iat)",
      )
      // Within the 60 s of skew: still good.
      yield* verifier.verify(yield* signed({ exp: now - 30 }))
      // An audience array that contains the resource is good.
      yield* verifier.verify(yield* signed({ aud: ["https://other.example.test", RESOURCE] }))

      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
      const none = `${encode({ alg: "none", typ: "JWT" })}.${encode(claims)}.`
      expect(yield* refusal(verifier, none)).toBe('TokenRefused: the token\'s algorithm "none" is not accepted')

      // The classic confusion: the public key, as an HMAC secret.
      const publicPem = yield* Effect.promise(async () =>
        Jose.exportSPKI((await Jose.importJWK(key.publicJwk, "RS256")) as Jose.CryptoKey),
      )
      const hs256 = yield* Effect.promise(() =>
        new Jose.SignJWT(claims)
          .setProtectedHeader({ alg: "HS256", kid: key.kid })
          .sign(new TextEncoder().encode(publicPem)),
      )
      expect(yield* refusal(verifier, hs256)).toBe('TokenRefused: the token\'s algorithm "HS256" is not accepted')

      const good = yield* signed({})
      const [head, body, signature] = good.split(".") as [string, string, string]
      const flipped = `${head}.${body}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`
      expect(yield* refusal(verifier, flipped)).toBe("TokenRefused: the token's signature does not verify")
      // Claims changed under a good signature.
      const forged = `${head}.${encode({ ...claims, scope: "svc.write" })}.${signature}`
      expect(yield* refusal(verifier, forged)).toBe("TokenRefused: the token's signature does not verify")

      const opaque = yield* Effect.promise(() => as.clientToken(CLIENT, "svc.read", "urn:opaque"))
      expect(opaque.split(".")).toHaveLength(1)
      expect(yield* refusal(verifier, opaque)).toContain("TokenRefused: the token is not a JWT: opaque access tokens")
      expect(yield* refusal(verifier, "a.b")).toContain("not a JWT")
    }),
  )

  it.scoped("an unknown kid that stays unknown: refused, and the JWKS fetched again at most once per cooldown", () =>
    Effect.gen(function* () {
      const { as, verifier, claims } = yield* setUp
      yield* verifier.verify(yield* Effect.promise(() => as.clientToken(CLIENT, "svc.read")))
      expect(as.jwksFetches()).toBe(1)
      // An EC key, made at once where an RSA one takes a fifth of a second: what is refused is its kid.
      const stranger = yield* Effect.promise(() => AuthServer.makeKey("not-published", "ES256"))
      const junk = yield* Effect.promise(() => AuthServer.sign(stranger, claims, { alg: "ES256" }))
      const answers = yield* Effect.forEach(Array.from({ length: 50 }), () => refusal(verifier, junk), {
        concurrency: 10,
      })
      expect(new Set(answers)).toEqual(
        new Set(["TokenRefused: the token is signed with a key its issuer does not publish"]),
      )
      // The first fetch was just now: a flood within the cooldown fetches nothing more.
      expect(as.jwksFetches()).toBe(1)
      yield* pastCooldown
      yield* Effect.forEach(Array.from({ length: 20 }), () => refusal(verifier, junk), { concurrency: 10 })
      expect(as.jwksFetches()).toBe(2)
    }),
  )

  it.scoped("a key rotation is picked up without a restart", () =>
    Effect.gen(function* () {
      const { as, verifier } = yield* setUp
      const before = yield* Effect.promise(() => as.clientToken(CLIENT, "svc.read"))
      yield* verifier.verify(before)
      yield* pastCooldown
      const rotated = yield* Effect.promise(() => as.rotate())
      const after = yield* Effect.promise(() => as.clientToken(CLIENT, "svc.read"))
      expect(Jose.decodeProtectedHeader(after).kid).toBe(rotated.kid)
      const verified = yield* verifier.verify(after)
      expect(verified.subject).toBe(CLIENT.id)
      expect(as.jwksFetches()).toBe(2)
      // The old key is still published, and its tokens still good until they expire.
      yield* verifier.verify(before)
    }),
  )

  it.scoped("no key can be had: Unavailable (503), and a later try succeeds once the JWKS answers", () =>
    Effect.gen(function* () {
      const { as, verifier } = yield* setUp
      const token = yield* Effect.promise(() => as.clientToken(CLIENT, "svc.read"))
      as.failJwks(true)
      const first = yield* Effect.flip(verifier.verify(token))
      expect(first._tag).toBe("KeysUnavailable")
      expect(first.reason).toContain(`the keys of ${as.issuer} cannot be fetched`)
      expect(first.reason).not.toContain(token)
      as.failJwks(false)
      // Within the retry pause the failure stands, without asking again.
      expect((yield* Effect.flip(verifier.verify(token)))._tag).toBe("KeysUnavailable")
      expect(as.jwksFetches()).toBe(1)
      yield* TestClock.adjust(Verifier.RETRY_MS)
      expect((yield* verifier.verify(token)).subject).toBe(CLIENT.id)
    }),
  )

  it.scoped("discovers the JWKS from the OpenID configuration when the OAuth metadata is absent", () =>
    Effect.gen(function* () {
      const { as } = yield* setUp
      const seen: Array<string> = []
      // An identity provider that serves only the OpenID Connect document (as Entra ID and Okta's org server do).
      const fetcher: typeof fetch = (input, init) => {
        seen.push(String(input))
        return String(input).includes("oauth-authorization-server")
          ? Promise.resolve(new Response("not found", { status: 404 }))
          : fetch(input, init)
      }
      const uri = yield* Verifier.discoverJwksUri(fetcher, as.issuer)
      expect(uri).toBe(`${as.issuer}/jwks`)
      expect(seen).toEqual([
        `${as.issuer}/.well-known/oauth-authorization-server`,
        `${as.issuer}/.well-known/openid-configuration`,
      ])
    }),
  )
})
