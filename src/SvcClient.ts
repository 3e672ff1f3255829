/**
 * Calls one endpoint of the service: `POST {url}/{group}/{Endpoint}` with the
 * params as the JSON body. Fails only with the tagged errors of SvcError.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Auth } from "./Auth.js"
import { SvcConfig } from "./Config.js"
import { post } from "./Http.js"
import { scrub } from "./Secrets.js"
import { interpret, type Outcome } from "./ServiceResponse.js"
import { type Call, SvcAuthError, type SvcError } from "./SvcError.js"

export type Group = "read" | "write" | "execute"

export interface SvcClientShape {
  readonly call: (group: Group, endpoint: string, params: object) => Effect.Effect<unknown, SvcError>
}

export class SvcClient extends Context.Tag("svc-mcp/SvcClient")<SvcClient, SvcClientShape>() {}

export const make: Effect.Effect<SvcClientShape, never, SvcConfig | Auth | HttpClient.HttpClient> = Effect.gen(
  function* () {
    const config = yield* SvcConfig
    const auth = yield* Auth
    const client = yield* HttpClient.HttpClient

    const call = (group: Group, endpoint: string, params: object) => {
      const target: Call = { group, endpoint }
      const url = `${config.url}/${group}/${endpoint}`
      const attempt = (headers: Readonly<Record<string, string>>) =>
        post(client, target, url, params, headers, config.timeoutMs).pipe(
          Effect.flatMap(({ status, text }) =>
            status >= 200 && status < 300
              ? Effect.succeed(interpret(target, status, text))
              : // An error body may echo what was sent; nothing secret leaves this module.
                Effect.map(auth.secrets, (secrets) => interpret(target, status, scrub(text, secrets))),
          ),
        )
      const settle = (outcome: Outcome): Effect.Effect<unknown, SvcError> => {
        switch (outcome._tag) {
          case "Ok":
            return Effect.succeed(outcome.value)
          case "Failed":
            return Effect.fail(outcome.error)
          case "CredentialsInvalid":
            return Effect.fail(
              new SvcAuthError({
                call: target,
                reason: "Rejected",
                status: outcome.status,
                detail:
                  auth.method === "api-key"
                    ? `the service refused the API key (${outcome.error}); check SVC_API_KEY and SVC_API_SECRET, and whether the key has expired`
                    : `the service refused a fresh login token (${outcome.error})`,
              }),
            )
        }
      }
      return Effect.gen(function* () {
        const credential = yield* auth.credential
        const first = yield* attempt(credential.headers)
        if (first._tag !== "CredentialsInvalid" || Option.isNone(auth.renew)) return yield* settle(first)
        yield* Effect.logDebug(`${group}/${endpoint}: token refused, logging in again`)
        const fresh = yield* auth.renew.value(credential)
        return yield* settle(yield* attempt(fresh.headers))
      }).pipe(
        Effect.withLogSpan(`${group}/${endpoint}`),
        Effect.tapError((error) => Effect.logDebug(error.message)),
      )
    }
    return { call } satisfies SvcClientShape
  },
)

export const layer: Layer.Layer<SvcClient, never, SvcConfig | Auth | HttpClient.HttpClient> = Layer.effect(
  SvcClient,
  make,
)
