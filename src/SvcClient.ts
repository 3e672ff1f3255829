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
import { SvcAuthError, type SvcError, SvcResponseError, type Target } from "./Service/Errors.js"
import { Hooks } from "./Service/Hooks.js"
import { fromResponse, type Outcome, rejected } from "./Service/Response.js"
import * as SvcTransport from "./Service/Transport.js"
import { Naming, type NamingShape } from "./Settings/Naming.js"

export type Group = "read" | "write" | "execute"

/** The service's successful reply: its JSON value, and its body as the service sent it. */
export interface Reply {
  readonly value: unknown
  readonly text: string
  /** The byte cap (SVC_MAX_ANSWER_BYTES) the body was cut at: `value` is what arrived of it. */
  readonly cut?: number
}

/**
 * How an answer is read. "shown" (the default): up to SVC_MAX_ANSWER_BYTES, cut there and marked
 * so (the cap bounds what a result shows). "whole": an answer a check decides on, read up to
 * WHOLE_TIMES that cap; one longer still fails (SvcResponseError), never decided on cut.
 */
export type Reading = "shown" | "whole"

/**
 * How many answer caps (SVC_MAX_ANSWER_BYTES) a read made to decide may take (20,000,000 bytes by
 * default): a check needs the whole of what it reads, where a result shows only a budget of it.
 */
export const WHOLE_TIMES = 10

export interface SvcClientShape {
  /** Calls `{group}/{endpoint}` with `params` as the body; succeeds with the answer's JSON value. */
  readonly call: (group: Group, endpoint: string, params: object, reading?: Reading) => Effect.Effect<unknown, SvcError>
  /** The same, keeping the body's text too. */
  readonly answer: (group: Group, endpoint: string, params: object, reading?: Reading) => Effect.Effect<Reply, SvcError>
}

/** What the client calls around each request and login: nothing by default, spans and metrics with telemetry. */
export { type ClientHooks, Hooks } from "./Service/Hooks.js"

/** A read made to decide that passed its bound: what arrived of it is never decided on. */
const notWhole = (call: Target, bytes: number, naming: NamingShape) =>
  new SvcResponseError({
    call,
    status: 200,
    reason: "NotWhole",
    detail: `past ${bytes} bytes (${WHOLE_TIMES} times ${naming.variable("SVC_MAX_ANSWER_BYTES")}), the most read of one to decide on`,
  })

/**
 * What an exchange means (Service/Response.ts). A read made to decide that passed its bound is
 * refused as it stands: what arrived of it is neither closed nor parsed.
 */
const outcomeOf = (
  target: Target,
  exchange: SvcTransport.Exchange,
  bound: { readonly reading: Reading; readonly maxBytes: number },
  secrets: ReadonlyArray<string>,
  naming: NamingShape,
): Outcome => {
  const { status, text, cut, ...headers } = exchange
  if (cut === true && bound.reading === "whole" && status >= 200 && status < 300)
    return { _tag: "Failed", error: notWhole(target, bound.maxBytes, naming) }
  const read = cut === true ? { ...headers, cutAt: bound.maxBytes } : headers
  return fromResponse(target, status, text, secrets, read, naming)
}

/** Why an answer fails the call: the service's error, or its refusal of the credentials. */
const failureOf = (
  target: Target,
  outcome: Exclude<Outcome, { readonly _tag: "Ok" }>,
  credential: Credential,
  method: Parameters<typeof rejected>[2],
  naming: NamingShape,
  from: Parameters<typeof rejected>[4],
): SvcError =>
  outcome._tag === "Failed"
    ? outcome.error
    : credential.refusal === undefined
      ? rejected(target, outcome, method, naming, from)
      : new SvcAuthError({ call: target, reason: "Rejected", status: outcome.status, detail: credential.refusal })

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
  const cap = config.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES

  const answer = (group: Group, endpoint: string, params: object, reading: Reading = "shown") => {
    const target: Target = { group, endpoint }
    const maxBytes = reading === "whole" ? WHOLE_TIMES * cap : cap
    const url = `${config.url}/${group}/${endpoint}`
    const attempt = (credentials: Readonly<Record<string, string>>) =>
      Effect.flatMap(CallContext.get, ({ address }) => {
        const started = performance.now()
        // The service counts failed authentications per address: each caller's own, never the server's.
        const headers = Option.isSome(address) ? { ...credentials, "x-forwarded-for": address.value } : credentials
        const request = SvcTransport.postJson(url, params, headers)
        return SvcTransport.send(http, target, request, config.timeoutMs, maxBytes).pipe(
          hooks.serviceRequest("POST", `/${group}/${endpoint}`),
          Effect.flatMap((exchange) => {
            const took = Math.round(performance.now() - started)
            const cut = exchange.cut === true ? ", cut" : ""
            return Effect.zipRight(
              Effect.logDebug(`${group}/${endpoint} answered ${exchange.status} in ${took} ms${cut}`),
              Effect.map(auth.secrets, (secrets) =>
                outcomeOf(target, exchange, { reading, maxBytes }, secrets, naming),
              ),
            )
          }),
        )
      })
    const settle = (outcome: Outcome, credential: Credential): Effect.Effect<Reply, SvcError> =>
      outcome._tag === "Ok"
        ? Effect.succeed(outcome)
        : Effect.fail(failureOf(target, outcome, credential, auth.method, naming, keyFrom(config)))
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
  const call = (group: Group, endpoint: string, params: object, reading?: Reading) =>
    Effect.map(answer(group, endpoint, params, reading), (a) => a.value)
  return { call, answer } satisfies SvcClientShape
})

export const layer: Layer.Layer<SvcClient, never, Needs> = Layer.effect(SvcClient, make)
