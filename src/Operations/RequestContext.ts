/**
 * What an HTTP request brings to the tool calls it carries: its caller's
 * address (named to the service in X-Forwarded-For), in per-request mode its
 * caller's service credentials (refused with 401 when absent), and with
 * telemetry its `traceparent` header. The adapter asks once per request, and
 * each of the request's calls starts from the context it gets (Call/Context.ts).
 */
import type { IncomingHttpHeaders } from "node:http"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"
import * as CallerAddress from "../Callers/Address.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as ServiceCallers from "../Service/ServiceCallers.js"
import { TeamSettings } from "../Settings/Team.js"
import * as Telemetry from "./Telemetry.js"

export interface RequestContext {
  /**
   * The context the calls of a request with these headers, from this TCP peer
   * (none: not known), start from, or on the left why the request is refused (a 401).
   */
  readonly fromHeaders: (headers: IncomingHttpHeaders, peer?: string) => Either.Either<CallContext.CallContext, string>
}

/**
 * Reads what the context of a request depends on, each off unless provided:
 * whose credentials calls use, whether they are traced, which proxies are trusted.
 */
export const make: Effect.Effect<RequestContext> = Effect.gen(function* () {
  const mode = yield* CallerCredentials.Mode
  const traced = Option.isSome(yield* Telemetry.Telemetry)
  const trusted = (yield* TeamSettings).trustedProxies
  const perRequest = mode === "per-request"
  // Several services: each one's key in its own header pair.
  const named = yield* ServiceCallers.Named
  const server = Either.right<CallContext.Credentials>({ _tag: "Server" })
  const credentialsOf = (headers: IncomingHttpHeaders): Either.Either<CallContext.Credentials, string> => {
    if (!perRequest) return server
    if (named.length > 0) {
      return Either.map(ServiceCallers.fromHeaders(named, headers), (callers) => ({ _tag: "PerService", callers }))
    }
    return Either.map(CallerCredentials.fromHeaders(headers), (caller) => ({ _tag: "Caller", caller }))
  }
  return {
    fromHeaders: (headers, peer) =>
      Either.map(credentialsOf(headers), (credentials) => {
        const traceparent = traced ? headers.traceparent : undefined
        return {
          ...CallContext.empty,
          credentials,
          address:
            peer === undefined ? Option.none() : Option.some(CallerAddress.callerAddress(peer, headers, trusted)),
          traceparent: typeof traceparent === "string" ? Option.some(traceparent) : Option.none(),
        }
      }),
  }
})
