/**
 * Calls one endpoint of the service: `POST {url}/{group}/{Endpoint}` with the
 * params as the JSON body, through HttpClient, each request bounded by
 * SVC_TIMEOUT_MS (30 s by default; see SvcTransport.send).
 * Fails only with the tagged errors of SvcError. Redirects are not followed:
 * the credentials go to SVC_URL and nowhere else.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Auth, type Credential } from "./Auth.js"
import * as CallContext from "./Call/Context.js"
import { guarded } from "./Callers/KeyGuard.js"
import { RefusedKeys } from "./Callers/RefusedKeys.js"
import { DEFAULT_MAX_ANSWER_BYTES, SvcConfig, type SvcConfigShape } from "./Config.js"
import { SvcAuthError, type SvcError, type Target } from "./Service/Errors.js"
import { Hooks } from "./Service/Hooks.js"
import { fromResponse, type Outcome, rejected } from "./Service/Response.js"
import * as SvcTransport from "./Service/Transport.js"
import { Naming } from "./Settings/Naming.js"

export type Group = "read" | "write" | "execute"

/** The service's successful reply: its JSON value, and its body as the service sent it. */
export interface Reply {
  readonly value: unknown
  readonly text: string
  /** The byte cap (SVC_MAX_ANSWER_BYTES) the body was cut at: `value` is what arrived of it. */
  readonly cut?: number
}

export interface SvcClientShape {
  /** Calls `{group}/{endpoint}` with `params` as the body; succeeds with the answer's JSON value. */
  readonly call: (group: Group, endpoint: string, params: object) => Effect.Effect<unknown, SvcError>
  /** The same, keeping the body's text too. */
  readonly answer: (group: Group, endpoint: string, params: object) => Effect.Effect<Reply, SvcError>
}

/** What the client calls around each request and login: nothing by default, spans and metrics with telemetry. */
export { type ClientHooks, Hooks } from "./Service/Hooks.js"

export class SvcClient extends Context.Tag("svc-mcp/SvcClient")<SvcClient, SvcClientShape>() {}

type Needs = SvcConfig | Auth | HttpClient.HttpClient | RefusedKeys

/** The variables the server's API key was read from, for a refusal to name them (SVC_API_SECRET_FILE...). */
const keyFrom = (config: SvcConfigShape) => (config.credentials._tag === "ApiKey" ? config.credentials.from : undefined)

export const make: Effect.Effect<SvcClientShape, never, Needs> = Effect.gen(function* () {
  const config = yield* SvcConfig
  const auth = yield* Auth
  const http = yield* HttpClient.HttpClient
  const hooks = yield* Hooks
  const refusedKeys = yield* RefusedKeys
  // Among several services, messages name the service's own variables and headers.
  const naming = yield* Naming
  const maxBytes = config.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES

  const answer = (group: Group, endpoint: string, params: object) => {
    const target: Target = { group, endpoint }
    const url = `${config.url}/${group}/${endpoint}`
    const attempt = (credentials: Readonly<Record<string, string>>) =>
      Effect.flatMap(CallContext.get, ({ address }) => {
        const started = performance.now()
        // The service counts failed authentications per address: each caller's own, never the server's.
        const headers = Option.isSome(address) ? { ...credentials, "x-forwarded-for": address.value } : credentials
        const request = SvcTransport.postJson(url, params, headers)
        return SvcTransport.send(http, target, request, config.timeoutMs, maxBytes).pipe(
          hooks.serviceRequest("POST", `/${group}/${endpoint}`),
          Effect.flatMap(({ status, text, cut, ...headers }) => {
            const took = Math.round(performance.now() - started)
            const read = cut === true ? { ...headers, cutAt: maxBytes } : headers
            return Effect.zipRight(
              Effect.logDebug(`${group}/${endpoint} answered ${status} in ${took} ms${cut === true ? ", cut" : ""}`),
              Effect.map(auth.secrets, (secrets) => fromResponse(target, status, text, secrets, read, naming)),
            )
          }),
        )
      })
    const settle = (outcome: Outcome, credential: Credential): Effect.Effect<Reply, SvcError> =>
      outcome._tag === "Ok"
        ? Effect.succeed(outcome)
        : Effect.fail(
            outcome._tag === "Failed"
              ? outcome.error
              : credential.refusal === undefined
                ? rejected(target, outcome, auth.method, naming, keyFrom(config))
                : new SvcAuthError({
                    call: target,
                    reason: "Rejected",
                    status: outcome.status,
                    detail: credential.refusal,
                  }),
          )
    const renewed = (credential: Credential) =>
      Option.isNone(auth.renew)
        ? undefined
        : Effect.logInfo(`${group}/${endpoint}: the token was refused; logging in again, then retrying once`).pipe(
            Effect.zipRight(auth.renew.value(credential)),
            Effect.flatMap((fresh) => Effect.flatMap(attempt(fresh.headers), (outcome) => settle(outcome, fresh))),
          )
    return auth.credential.pipe(
      Effect.flatMap((credential) =>
        Effect.flatMap(attempt(credential.headers), (first) =>
          first._tag === "CredentialsInvalid"
            ? (renewed(credential) ?? settle(first, credential))
            : settle(first, credential),
        ),
      ),
      guarded(refusedKeys, target, naming),
      Effect.tapError((error) => Effect.logWarning(error.message)),
    )
  }
  const call = (group: Group, endpoint: string, params: object) =>
    Effect.map(answer(group, endpoint, params), (a) => a.value)
  return { call, answer } satisfies SvcClientShape
})

export const layer: Layer.Layer<SvcClient, never, Needs> = Layer.effect(SvcClient, make)
