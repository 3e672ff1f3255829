/**
 * Access tokens checked as a careful resource server does: a JWT signed with
 * an asymmetric key (RS256, PS256, ES256, EdDSA; `none` and HMAC refused
 * whatever the header says) of the issuer's JWKS, discovered from its metadata;
 * `iss` one of the configured issuers exactly; `aud` containing the audience;
 * `exp`, `nbf` and `iat` with 60 s of skew. An opaque token is refused with a
 * reason that says so.
 *
 * Each issuer's keys are fetched once and kept. A token whose `kid` is not among
 * them fetches the JWKS again, at most once every 30 s per issuer, so that a
 * rotation is picked up without a restart and a flood of junk tokens cannot
 * hammer the identity provider. When no key can be had at all the answer is
 * Unavailable (503), not a refusal of the token.
 *
 * `jose` is imported when sign-in is configured: a start without it loads none of it.
 */
import * as Cache from "effect/Cache"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type * as Jose from "jose"

export const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

/** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. */
export const SKEW_SECONDS = 60

/** The least time between two fetches of one issuer's JWKS for an unknown `kid`. */
export const REFETCH_MS = 30_000

/** After a failed fetch with no key held, the least time before the next try. */
export const RETRY_MS = 5_000

const FETCH_TIMEOUT_MS = 5_000

/** Tokens whose check is remembered until they expire. */
const CACHE_CAPACITY = 10_000

/** A token that proves nothing: a 401 `invalid_token`, with why. */
export class TokenRefused extends Data.TaggedError("TokenRefused")<{ readonly reason: string }> {}

/** No key of the token's issuer can be had: a 503. */
export class KeysUnavailable extends Data.TaggedError("KeysUnavailable")<{ readonly reason: string }> {}

export interface Verified {
  readonly issuer: string
  readonly subject: string
  readonly scopes: ReadonlyArray<string>
  /** Seconds since the epoch. */
  readonly expiresAt: number
  readonly claims: Readonly<Record<string, unknown>>
}

export interface Verifier {
  readonly verify: (token: string) => Effect.Effect<Verified, TokenRefused | KeysUnavailable>
}

export interface VerifierOptions {
  readonly issuers: ReadonlyArray<string>
  readonly audience: string
  /** How the JWKS and metadata are fetched (the platform's `fetch` by default). */
  readonly fetch?: typeof globalThis.fetch
}

interface KeySet {
  readonly resolve: Option.Option<ReturnType<typeof Jose.createLocalJWKSet>>
  /** When the last fetch was tried (ms), and whether it failed. */
  readonly triedAt: number
  readonly failure: Option.Option<string>
}

const refused = (reason: string) => new TokenRefused({ reason })

/** The issuer's metadata URLs, RFC 8414's first, then OpenID Connect's. */
export const metadataUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, "")
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
  ]
}

const getJson = (fetcher: typeof globalThis.fetch, url: string) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetcher(url, {
        headers: { accept: "application/json" },
        redirect: "error",
        signal: AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
      })
      if (!response.ok) throw new Error(`${url} answered ${response.status}`)
      return (await response.json()) as unknown
    },
    catch: (error) => (error instanceof Error ? error.message : String(error)),
  })

/** The issuer's `jwks_uri`, from the first of its metadata documents that names this issuer. */
export const discoverJwksUri = (fetcher: typeof globalThis.fetch, issuer: string): Effect.Effect<string, string> =>
  Effect.gen(function* () {
    const problems: Array<string> = []
    for (const url of metadataUrls(issuer)) {
      const found = yield* Effect.either(getJson(fetcher, url))
      if (found._tag === "Left") {
        problems.push(found.left)
        continue
      }
      const metadata = found.right as { issuer?: unknown; jwks_uri?: unknown }
      if (metadata.issuer !== issuer) {
        problems.push(`${url} names the issuer ${JSON.stringify(metadata.issuer)}`)
        continue
      }
      if (typeof metadata.jwks_uri !== "string") {
        problems.push(`${url} has no jwks_uri`)
        continue
      }
      return metadata.jwks_uri
    }
    return yield* Effect.fail(`no metadata for ${issuer}: ${problems.join("; ")}`)
  })

/** The JWKS of an issuer, through its metadata. */
export const fetchJwks = (
  fetcher: typeof globalThis.fetch,
  issuer: string,
): Effect.Effect<{ readonly uri: string; readonly jwks: Jose.JSONWebKeySet }, string> =>
  Effect.gen(function* () {
    const uri = yield* discoverJwksUri(fetcher, issuer)
    const jwks = (yield* getJson(fetcher, uri)) as Jose.JSONWebKeySet
    if (typeof jwks !== "object" || jwks === null || !Array.isArray(jwks.keys)) {
      return yield* Effect.fail(`${uri} is not a JWK set`)
    }
    return { uri, jwks }
  })

/** Three base64url parts: the compact form of a JWS. Anything else is an opaque token. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

const scopesOf = (claims: Jose.JWTPayload): ReadonlyArray<string> => {
  // `scope` as RFC 9068 has it; `scp` as Microsoft Entra ID and Okta issue it.
  const given = claims.scope ?? claims.scp
  if (typeof given === "string") return given.split(" ").filter((s) => s !== "")
  if (Array.isArray(given)) return given.filter((s): s is string => typeof s === "string")
  return []
}

export const make = (options: VerifierOptions): Effect.Effect<Verifier> =>
  Effect.gen(function* () {
    const jose = yield* Effect.promise(() => import("jose"))
    const fetcher = options.fetch ?? globalThis.fetch
    const sets = new Map<string, SynchronizedRef.SynchronizedRef<KeySet>>()
    for (const issuer of options.issuers) {
      sets.set(
        issuer,
        yield* SynchronizedRef.make<KeySet>({
          resolve: Option.none(),
          triedAt: Number.NEGATIVE_INFINITY,
          failure: Option.none(),
        }),
      )
    }

    /**
     * The issuer's key set, fetched again when `stale` says the held one is not
     * enough and the last try is old enough. Concurrent callers wait for the
     * one fetch under way (the ref is held while it runs) and then see its result.
     */
    const refresh = (ref: SynchronizedRef.SynchronizedRef<KeySet>, issuer: string, seen: KeySet) =>
      SynchronizedRef.modifyEffect(ref, (held) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          // Another caller fetched since this one looked, or the last try is too recent.
          const wait = Option.isSome(held.resolve) ? REFETCH_MS : RETRY_MS
          if (held !== seen || now - held.triedAt < wait) return [held, held] as const
          const fetched = yield* Effect.either(fetchJwks(fetcher, issuer))
          const next: KeySet =
            fetched._tag === "Right"
              ? {
                  resolve: Option.some(jose.createLocalJWKSet(fetched.right.jwks)),
                  triedAt: now,
                  failure: Option.none(),
                }
              : { resolve: held.resolve, triedAt: now, failure: Option.some(fetched.left) }
          return [next, next] as const
        }),
      )

    const keysOf = (ref: SynchronizedRef.SynchronizedRef<KeySet>, issuer: string) =>
      Effect.flatMap(SynchronizedRef.get(ref), (held) =>
        Option.isSome(held.resolve) ? Effect.succeed(held) : refresh(ref, issuer, held),
      ).pipe(
        Effect.flatMap((set) =>
          Option.isSome(set.resolve)
            ? Effect.succeed(set)
            : Effect.fail(
                new KeysUnavailable({
                  reason: `the keys of ${issuer} cannot be fetched (${Option.getOrElse(set.failure, () => "not yet tried")})`,
                }),
              ),
        ),
      )

    const check = (token: string, resolve: ReturnType<typeof Jose.createLocalJWKSet>, issuer: string) =>
      Effect.tryPromise({
        try: () =>
          jose.jwtVerify(token, resolve, {
            issuer,
            audience: options.audience,
            algorithms: ALGORITHMS,
            clockTolerance: SKEW_SECONDS,
            requiredClaims: ["exp", "sub"],
          }),
        catch: (error) => error as Jose.errors.JOSEError,
      })

    const reasonOf = (error: Jose.errors.JOSEError): string => {
      switch (error.code) {
        case "ERR_JWT_EXPIRED":
          return "the token has expired"
        case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
          const claim = (error as Jose.errors.JWTClaimValidationFailed).claim
          if (claim === "aud")
            return `the token is not for this resource (its aud does not contain ${options.audience})`
          if (claim === "nbf") return "the token is not valid yet (nbf)"
          if (claim === "iss") return "the token's issuer is not one this server trusts"
          return `the token's ${claim} claim is missing or invalid`
        }
        case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
          return "the token's signature does not verify"
        case "ERR_JOSE_ALG_NOT_ALLOWED":
          return "the token's algorithm is not an accepted asymmetric one"
        case "ERR_JWKS_NO_MATCHING_KEY":
          return "the token is signed with a key its issuer does not publish"
        case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
          return "the token names no key (kid), and its issuer publishes several"
        default:
          return "the token is not a valid JWT"
      }
    }

    const verifyNew = (token: string): Effect.Effect<Verified, TokenRefused | KeysUnavailable> =>
      Effect.gen(function* () {
        if (!COMPACT_JWS.test(token)) {
          return yield* refused(
            "the token is not a JWT: opaque access tokens are not accepted; have the identity provider issue JWT access tokens for this resource",
          )
        }
        let header: Jose.ProtectedHeaderParameters
        let unverified: Jose.JWTPayload
        try {
          header = jose.decodeProtectedHeader(token)
          unverified = jose.decodeJwt(token)
        } catch {
          return yield* refused("the token is not a JWT: its header or claims are not JSON")
        }
        // Refused before any key is looked at: `none` and HMAC, whatever the header claims.
        if (typeof header.alg !== "string" || !ALGORITHMS.includes(header.alg)) {
          return yield* refused(`the token's algorithm ${JSON.stringify(header.alg)} is not accepted`)
        }
        const issuer = unverified.iss
        const ref = typeof issuer === "string" ? sets.get(issuer) : undefined
        if (issuer === undefined || ref === undefined) {
          return yield* refused("the token's issuer is not one this server trusts")
        }
        const held = yield* keysOf(ref, issuer)
        let result = yield* Effect.either(check(token, held.resolve.pipe(Option.getOrThrow), issuer))
        if (result._tag === "Left" && result.left.code === "ERR_JWKS_NO_MATCHING_KEY") {
          const renewed = yield* refresh(ref, issuer, held)
          if (renewed !== held && Option.isSome(renewed.resolve)) {
            result = yield* Effect.either(check(token, renewed.resolve.value, issuer))
          }
        }
        if (result._tag === "Left") return yield* refused(reasonOf(result.left))
        const claims = result.right.payload
        // On the wall clock, as jose checks `exp` and `nbf`.
        const now = Date.now() / 1000
        if (typeof claims.iat === "number" && claims.iat > now + SKEW_SECONDS) {
          return yield* refused("the token is issued in the future (iat)")
        }
        return {
          issuer,
          subject: claims.sub as string,
          scopes: scopesOf(claims),
          expiresAt: claims.exp as number,
          claims,
        }
      })

    // A client sends the same token with every request until it expires: the signature is
    // checked once, and each later request costs a lookup. Refusals are not kept.
    const verified = yield* Cache.makeWith({
      capacity: CACHE_CAPACITY,
      lookup: verifyNew,
      timeToLive: (exit) =>
        Exit.isSuccess(exit) ? Math.max(0, (exit.value.expiresAt + SKEW_SECONDS) * 1000 - Date.now()) : 0,
    })
    const verify = (token: string) =>
      // Held past its `exp` on the wall clock only if the cache's own clock lags: checked again.
      Effect.flatMap(verified.get(token), (found) =>
        found.expiresAt + SKEW_SECONDS < Date.now() / 1000
          ? Effect.zipRight(verified.invalidate(token), refused("the token has expired"))
          : Effect.succeed(found),
      )

    return { verify }
  })
