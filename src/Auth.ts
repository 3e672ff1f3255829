/**
 * How calls prove who they are: API-key headers, or a JWT from a login the
 * server performs itself. One login serves every concurrent caller, and a token
 * the service refused is replaced by exactly one new login.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as CallContext from "./Call/Context.js"
import { SvcConfig, type SvcConfigShape } from "./Config.js"
import {
  callPath,
  redirectAdvice,
  retryAfterText,
  SvcAuthError,
  type SvcTimeoutError,
  type SvcUnreachableError,
  type Target,
} from "./Service/Errors.js"
import { Hooks } from "./Service/Hooks.js"
import { errorBody, isRedirect, retryAfterOf, snippet } from "./Service/Response.js"
import * as SvcTransport from "./Service/Transport.js"
import { Naming, type NamingShape } from "./Settings/Naming.js"
import { scrub } from "./Shared/Secrets.js"

export interface Credential {
  readonly headers: Readonly<Record<string, string>>
  /** Which login produced these headers, so that a refusal renews them only once. */
  readonly generation: number
  /** What a refusal of these headers means, where the method's own words would mislead (a minted key). */
  readonly refusal?: string
}

export type AuthFailure = SvcAuthError | SvcTimeoutError | SvcUnreachableError

export interface AuthShape {
  readonly method: "api-key" | "caller-key" | "jwt"
  /** Headers for the next call; logs in first if no token is held. */
  readonly credential: Effect.Effect<Credential, AuthFailure>
  /**
   * The service refused `stale`: log in again, unless another caller already has.
   * None where renewing cannot help (a refused API key stays refused).
   */
  readonly renew: Option.Option<(stale: Credential) => Effect.Effect<Credential, AuthFailure>>
  /** Values never to be shown: the API secret, the password, the tokens. */
  readonly secrets: Effect.Effect<ReadonlyArray<string>>
}

export class Auth extends Context.Tag("svc-mcp/Auth")<Auth, AuthShape>() {}

export const LOGIN: Target = { group: "auth/login", endpoint: "LoginLocalUser" }

export const makeApiKey = (key: Redacted.Redacted<string>, secret: Redacted.Redacted<string>): AuthShape => {
  const credential: Credential = {
    headers: { "x-api-key": Redacted.value(key), "x-api-secret": Redacted.value(secret) },
    generation: 0,
  }
  const secrets = [Redacted.value(secret)]
  return {
    method: "api-key",
    credential: Effect.succeed(credential),
    renew: Option.none(),
    secrets: Effect.succeed(secrets),
  }
}

/** Reads the login answer: a token, or the reason there is none. */
const readLogin = (
  { status, text, retryAfter, location }: SvcTransport.Exchange,
  hide: ReadonlyArray<string>,
  naming: NamingShape,
): Effect.Effect<string, SvcAuthError> => {
  const fail = (reason: SvcAuthError["reason"], detail: string) =>
    Effect.fail(new SvcAuthError({ call: LOGIN, reason, status, detail: scrub(detail, hide) }))
  if (status === 401) {
    return fail("LoginRefused", `the service refused the username or password (${errorBody(status, text).error})`)
  }
  if (status === 429) {
    const { error } = errorBody(status, text)
    const wait = retryAfterOf(status, retryAfter, error)
    return fail(
      "RateLimited",
      `too many failed attempts from this address (${error}); ${wait === undefined ? "wait before trying again" : `retry after ${retryAfterText(wait)}`}`,
    )
  }
  if (isRedirect(status, location)) {
    return fail("Redirected", redirectAdvice(LOGIN, location, naming.variable("SVC_URL")))
  }
  if (status < 200 || status >= 300) {
    return fail("LoginFailed", `the login answered ${status}: ${errorBody(status, text).error}`)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return fail("BadLoginResponse", `the login answer is not JSON: ${snippet(text).slice(0, 120)}`)
  }
  const { type, data } = (typeof body === "object" && body !== null ? body : {}) as { type?: unknown; data?: unknown }
  if (type === "Jwt" && typeof data === "object" && data !== null) {
    const jwt = (data as { jwt?: unknown }).jwt
    if (typeof jwt === "string" && jwt !== "") return Effect.succeed(jwt)
  }
  if (type === "Totp" || type === "Passkey") {
    return fail(
      "SecondFactor",
      `the account needs a second factor (${type}), which this server cannot give: use an API key (${naming.variable("SVC_API_KEY")}, ${naming.variable("SVC_API_SECRET")}) or an account without two-factor login`,
    )
  }
  return fail("BadLoginResponse", `the login answer has no token (type ${JSON.stringify(type ?? null)})`)
}

interface Login {
  readonly generation: number
  readonly token: Deferred.Deferred<string, AuthFailure>
}

/** The password and the last two tokens (a caller may still hold the previous one): rebuilt at each login, read by every call. */
interface Hidden {
  secrets: ReadonlyArray<string>
}

/** One login request to the service: its token, kept among the hidden secrets. */
const loginOf = (
  config: SvcConfigShape,
  username: string,
  password: Redacted.Redacted<string>,
  hidden: Hidden,
): Effect.Effect<Effect.Effect<string, AuthFailure>, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    const hooks = yield* Hooks
    // Among several services, a refusal names the service's own variables.
    const naming = yield* Naming
    return Effect.suspend(() =>
      SvcTransport.send(
        http,
        LOGIN,
        SvcTransport.postJson(`${config.url}/${callPath(LOGIN)}`, { username, password: Redacted.value(password) }, {}),
        config.timeoutMs,
      ),
    ).pipe(
      hooks.serviceRequest("POST", `/${callPath(LOGIN)}`),
      Effect.flatMap((answer) => readLogin(answer, hidden.secrets, naming)),
      Effect.tap((token) =>
        Effect.sync(() => {
          hidden.secrets = [Redacted.value(password), token, ...hidden.secrets.slice(1, 2)]
        }),
      ),
      Effect.tap(() => Effect.logInfo(`logged in to ${config.url} as ${username}`)),
      Effect.tapError((error) => Effect.logWarning(`login as ${username} failed: ${error.message}`)),
      hooks.login,
    )
  })

/**
 * Logins one at a time, each shared by the calls that wait on it, and the
 * credential of the last one that succeeded kept for the calls after it.
 */
const logins = (login: Effect.Effect<string, AuthFailure>) =>
  Effect.gen(function* () {
    const current = yield* SynchronizedRef.make(Option.none<Login>())
    let generations = 0
    // The credential of the current login once it has succeeded: most calls need
    // nothing more than this, without the lock that guards starting a login.
    let ready: Credential | undefined

    // The login runs on a fiber of its own, so a caller that is interrupted does
    // not abort a login that others are waiting on; its time-out bounds it.
    const start = Effect.gen(function* () {
      ready = undefined
      const token = yield* Deferred.make<string, AuthFailure>()
      yield* Effect.forkDaemon(Effect.intoDeferred(login, token))
      const started: Login = { generation: ++generations, token }
      return [started, Option.some(started)] as const
    })

    const await_ = (entry: Login) =>
      Deferred.await(entry.token).pipe(
        Effect.map((token): Credential => {
          const credential = { headers: { authorization: token }, generation: entry.generation }
          if (entry.generation === generations) ready = credential
          return credential
        }),
        // A failed login is forgotten, so the next call tries again.
        Effect.tapError(() =>
          SynchronizedRef.update(current, (held) =>
            Option.isSome(held) && held.value === entry ? Option.none() : held,
          ),
        ),
      )

    const credential = Effect.suspend(() =>
      ready !== undefined
        ? Effect.succeed(ready)
        : SynchronizedRef.modifyEffect(current, (held) =>
            Option.isSome(held) ? Effect.succeed([held.value, held] as const) : start,
          ).pipe(Effect.flatMap(await_)),
    )

    const renew = (stale: Credential) =>
      SynchronizedRef.modifyEffect(current, (held) =>
        Option.isSome(held) && held.value.generation !== stale.generation
          ? Effect.succeed([held.value, held] as const)
          : start,
      ).pipe(Effect.flatMap(await_))

    return { credential, renew }
  })

export const makeJwt = (
  config: SvcConfigShape,
  username: string,
  password: Redacted.Redacted<string>,
): Effect.Effect<AuthShape, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const hidden: Hidden = { secrets: [Redacted.value(password)] }
    const { credential, renew } = yield* logins(yield* loginOf(config, username, password, hidden))
    return {
      method: "jwt",
      credential,
      renew: Option.some(renew),
      secrets: Effect.sync(() => hidden.secrets),
    } satisfies AuthShape
  })

/**
 * The Auth of per-request mode (SVC_MCP_CREDENTIALS=per-request): the current
 * caller's key and secret (in the call's context), and no other. Without a
 * caller the call fails before anything is sent.
 */
export const perRequest: AuthShape = {
  method: "caller-key",
  credential: Effect.flatMap(
    Effect.zip(Effect.map(CallContext.get, CallContext.callerOf), Naming),
    ([caller, naming]) =>
      Option.isNone(caller)
        ? Effect.fail(
            new SvcAuthError({
              call: { group: "auth", endpoint: "per-request" },
              reason: "Rejected",
              detail: `no caller credentials: in per-request mode every call must come over HTTP with ${naming.header("Key")} and ${naming.header("Secret")}`,
            }),
          )
        : Effect.succeed<Credential>({
            headers: { "x-api-key": caller.value.key, "x-api-secret": Redacted.value(caller.value.secret) },
            generation: 0,
          }),
  ),
  renew: Option.none(),
  // The caller's own secret is the one to keep out of what it is shown.
  secrets: Effect.map(CallContext.get, (context) => {
    const caller = CallContext.callerOf(context)
    return Option.isSome(caller) ? [Redacted.value(caller.value.secret)] : []
  }),
}

export const make: Effect.Effect<AuthShape, never, SvcConfig | HttpClient.HttpClient> = Effect.gen(function* () {
  const config = yield* SvcConfig
  const { credentials } = config
  // Per-request mode without credentials of the server's own: only a caller's can serve.
  if (credentials._tag === "None") return perRequest
  return credentials._tag === "ApiKey"
    ? makeApiKey(credentials.key, credentials.secret)
    : yield* makeJwt(config, credentials.username, credentials.password)
})

export const layer: Layer.Layer<Auth, never, SvcConfig | HttpClient.HttpClient> = Layer.effect(Auth, make)
