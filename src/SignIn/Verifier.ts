/**
 * Access tokens checked as a careful resource server does: a JWT signed with
 * an asymmetric key (RS256, PS256, ES256, EdDSA; `none` and HMAC refused
 * whatever the header says) of the issuer's JWKS, discovered from its metadata;
 * `iss` one of the configured issuers exactly; `aud` containing the audience;
 * `exp`, `nbf` and `iat` with 60 s of skew. An opaque token is refused with a
 * reason that says so.
 *
 * Each issuer's keys are jose's remote key set (`createRemoteJWKSet`), at the
 * `jwks_uri` its metadata names: fetched once and kept; a token whose `kid` is
 * not among them fetches the JWKS again, at most once every 30 s per issuer
 * (jose's cooldown), so that a rotation is picked up without a restart and a
 * flood of junk tokens cannot hammer the identity provider. When no key can be
 * had at all the answer is Unavailable (503), not a refusal of the token, and
 * nothing is asked again for RETRY_MS. The tokens' times (`exp`, `nbf`, `iat`)
 * are read on Effect's Clock (jose's `currentDate`).
 *
 * `jose` is imported when sign-in is configured: a start without it loads none of it.
 */
import * as Cache from "effect/Cache"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type * as Jose from "jose"

export const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

/** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. */
export const SKEW_SECONDS = 60

/** The least time between two fetches of one issuer's JWKS for an unknown `kid`, on jose's clock (`Date`). */
const REFETCH_MS = 30_000

/** After a failed fetch with no key held, the least time before the next try. */
export const RETRY_MS = 5_000

const FETCH_TIMEOUT_MS = 5_000

/** Tokens whose check is remembered until they expire. */
const CACHE_CAPACITY = 10_000

/** A token that proves nothing: a 401 `invalid_token`, with why. */
class TokenRefused extends Data.TaggedError("TokenRefused")<{ readonly reason: string }> {}

/** No key of the token's issuer can be had: a 503. */
class KeysUnavailable extends Data.TaggedError("KeysUnavailable")<{ readonly reason: string }> {}

interface Verified {
  /** When it was checked, on the Clock (ms). */
  readonly checkedAt: number
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

/** An issuer's keys: none until its metadata is read; the last failure to get any, on the Clock. */
interface KeySet {
  readonly remote: Option.Option<ReturnType<typeof Jose.createRemoteJWKSet>>
  readonly failed: Option.Option<{ readonly at: number; readonly reason: string }>
}

const refused = (reason: string) => new TokenRefused({ reason })

/** The issuer's metadata URLs, RFC 8414's first, then OpenID Connect's. */
const metadataUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, "")
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
  ]
}

/** An error's words, with its cause's: a failed fetch says "fetch failed" and puts why (refused, no such host, a certificate) in its cause. */
const messageOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause as { message?: unknown; code?: unknown } | undefined
  const why = typeof cause?.message === "string" && cause.message !== "" ? cause.message : cause?.code
  return typeof why === "string" && why !== error.message ? `${error.message} (${why})` : error.message
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
    catch: messageOf,
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
    // Both documents are at the same host: a failure to reach it is said once.
    return yield* Effect.fail(`no metadata for ${issuer}: ${[...new Set(problems)].join("; ")}`)
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

/** What a verifier holds: jose, loaded once; its options; each trusted issuer's key set. */
interface Held {
  readonly jose: typeof Jose
  readonly options: VerifierOptions
  readonly fetcher: typeof globalThis.fetch
  readonly sets: ReadonlyMap<string, SynchronizedRef.SynchronizedRef<KeySet>>
}

const remoteAt = ({ jose, fetcher }: Held, uri: string) =>
  jose.createRemoteJWKSet(new URL(uri), {
    timeoutDuration: FETCH_TIMEOUT_MS,
    cooldownDuration: REFETCH_MS,
    // Kept until a token names a key they lack, as the keys of a running issuer are.
    cacheMaxAge: Number.POSITIVE_INFINITY,
    [jose.customFetch]: fetcher,
  })

/**
 * The issuer's key set with keys in it: its metadata read and its JWKS
 * fetched on first use. After a failure nothing is asked again for
 * RETRY_MS; concurrent callers wait for the one try under way.
 */
const keysOf = (held: Held, ref: SynchronizedRef.SynchronizedRef<KeySet>, issuer: string) =>
  SynchronizedRef.modifyEffect(ref, (kept) =>
    Effect.gen(function* () {
      if (Option.isSome(kept.remote) && kept.remote.value.jwks() !== undefined) {
        return [Either.right(kept.remote.value), kept] as const
      }
      const now = yield* Clock.currentTimeMillis
      if (Option.isSome(kept.failed) && now - kept.failed.value.at < RETRY_MS) {
        return [Either.left(kept.failed.value.reason), kept] as const
      }
      const remote = Option.isSome(kept.remote)
        ? Either.right(kept.remote.value)
        : Either.map(yield* Effect.either(discoverJwksUri(held.fetcher, issuer)), (uri) => remoteAt(held, uri))
      const loaded = Either.isLeft(remote)
        ? remote
        : Either.map(
            yield* Effect.either(
              Effect.tryPromise({ try: () => remote.right.reload(), catch: (error) => messageOf(error) }),
            ),
            () => remote.right,
          )
      const next: KeySet = {
        remote: Either.isRight(remote) ? Option.some(remote.right) : kept.remote,
        failed: Either.isLeft(loaded) ? Option.some({ at: now, reason: loaded.left }) : Option.none(),
      }
      return [loaded, next] as const
    }),
  ).pipe(
    Effect.flatMap(
      Either.match({
        onLeft: (reason) =>
          Effect.fail(new KeysUnavailable({ reason: `the keys of ${issuer} cannot be fetched (${reason})` })),
        onRight: Effect.succeed,
      }),
    ),
  )

const check = (
  { jose, options }: Held,
  token: string,
  keys: ReturnType<typeof Jose.createRemoteJWKSet>,
  issuer: string,
  now: number,
) =>
  Effect.tryPromise({
    try: () =>
      jose.jwtVerify(token, keys, {
        issuer,
        audience: options.audience,
        algorithms: ALGORITHMS,
        clockTolerance: SKEW_SECONDS,
        currentDate: new Date(now),
        requiredClaims: ["exp", "sub"],
      }),
    catch: (error) => error,
  })

/** Why jose refused a token, in the words a client is answered with. */
const reasonOf = ({ jose, options }: Held, error: unknown): string => {
  // Not jose's own finding: the JWKS fetched again for an unknown key did not come, so the key stays unknown.
  if (
    !(error instanceof jose.errors.JOSEError) ||
    ["ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID", "ERR_JOSE_GENERIC"].includes(error.code)
  ) {
    return "the token is signed with a key its issuer does not publish"
  }
  switch (error.code) {
    case "ERR_JWT_EXPIRED":
      return "the token has expired"
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const claim = (error as Jose.errors.JWTClaimValidationFailed).claim
      if (claim === "aud") return `the token is not for this resource (its aud does not contain ${options.audience})`
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

/** The issuer a token claims, read before any key is looked at, when it is a JWT of an accepted algorithm. */
const claimedIssuer = ({ jose }: Held, token: string): Effect.Effect<string | undefined, TokenRefused> => {
  if (!COMPACT_JWS.test(token)) {
    return Effect.fail(
      refused(
        "the token is not a JWT: opaque access tokens are not accepted; have the identity provider issue JWT access tokens for this resource",
      ),
    )
  }
  let header: Jose.ProtectedHeaderParameters
  let unverified: Jose.JWTPayload
  try {
    header = jose.decodeProtectedHeader(token)
    unverified = jose.decodeJwt(token)
  } catch {
    return Effect.fail(refused("the token is not a JWT: its header or claims are not JSON"))
  }
  // Refused before any key is looked at: `none` and HMAC, whatever the header claims.
  if (typeof header.alg !== "string" || !ALGORITHMS.includes(header.alg)) {
    return Effect.fail(refused(`the token's algorithm ${JSON.stringify(header.alg)} is not accepted`))
  }
  return Effect.succeed(unverified.iss)
}

const verifyNew = (held: Held, token: string): Effect.Effect<Verified, TokenRefused | KeysUnavailable> =>
  Effect.gen(function* () {
    const issuer = yield* claimedIssuer(held, token)
    const ref = typeof issuer === "string" ? held.sets.get(issuer) : undefined
    if (issuer === undefined || ref === undefined) {
      return yield* refused("the token's issuer is not one this server trusts")
    }
    const keys = yield* keysOf(held, ref, issuer)
    const now = yield* Clock.currentTimeMillis
    const result = yield* Effect.either(check(held, token, keys, issuer, now))
    if (result._tag === "Left") return yield* refused(reasonOf(held, result.left))
    const claims = result.right.payload
    if (typeof claims.iat === "number" && claims.iat > now / 1000 + SKEW_SECONDS) {
      return yield* refused("the token is issued in the future (iat)")
    }
    return {
      checkedAt: now,
      issuer,
      subject: claims.sub as string,
      scopes: scopesOf(claims),
      expiresAt: claims.exp as number,
      claims,
    }
  })

export const make = (options: VerifierOptions): Effect.Effect<Verifier> =>
  Effect.gen(function* () {
    const jose = yield* Effect.promise(() => import("jose"))
    const sets = new Map<string, SynchronizedRef.SynchronizedRef<KeySet>>()
    for (const issuer of options.issuers) {
      sets.set(issuer, yield* SynchronizedRef.make<KeySet>({ remote: Option.none(), failed: Option.none() }))
    }
    const held: Held = { jose, options, fetcher: options.fetch ?? globalThis.fetch, sets }

    // A client sends the same token with every request until it expires: the signature is
    // checked once, and each later request costs a lookup. Refusals are not kept.
    const verified = yield* Cache.makeWith({
      capacity: CACHE_CAPACITY,
      lookup: (token: string) => verifyNew(held, token),
      timeToLive: (exit) =>
        Exit.isSuccess(exit) ? Math.max(0, (exit.value.expiresAt + SKEW_SECONDS) * 1000 - exit.value.checkedAt) : 0,
    })
    const verify = (token: string) =>
      Effect.flatMap(Effect.zip(verified.get(token), Clock.currentTimeMillis), ([found, now]) =>
        found.expiresAt + SKEW_SECONDS < now / 1000
          ? Effect.zipRight(verified.invalidate(token), refused("the token has expired"))
          : Effect.succeed(found),
      )

    return { verify }
  })
