/**
 * What an HTTP request brings to the tool calls it carries: in per-request
 * mode its caller's service credentials (refused with 401 when absent), and
 * with telemetry its `traceparent` header. The adapter asks once per request,
 * and runs the request's calls inside what it gets.
 */
import type { IncomingHttpHeaders } from "node:http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as ServiceCallers from "../Service/ServiceCallers.js"
import * as Telemetry from "./Telemetry.js"

/** Runs a call within what its request brought: its caller, its trace. */
export type WithinRequest = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** A call that came with no request of its own (stdio): it runs as the server. */
export const noRequest: WithinRequest = (self) => self

export interface RequestContext {
  /** How to run the calls of a request with these headers, or why it is refused (a 401). */
  readonly fromHeaders: (headers: IncomingHttpHeaders) => WithinRequest | string
}

export const make: Effect.Effect<RequestContext> = Effect.gen(function* () {
  const mode = Option.getOrElse(yield* Effect.serviceOption(CallerCredentials.Mode), () => "server")
  const traced = Option.isSome(Option.flatten(yield* Effect.serviceOption(Telemetry.Telemetry)))
  const perRequest = mode === "per-request"
  // Several services: each one's key in its own header pair.
  const named = yield* Effect.serviceOption(ServiceCallers.Named)
  if (!perRequest && !traced) return { fromHeaders: () => noRequest }
  return {
    fromHeaders: (headers) => {
      const caller = !perRequest
        ? undefined
        : Option.isSome(named)
          ? ServiceCallers.fromHeaders(named.value, headers)
          : CallerCredentials.fromHeaders(headers)
      if (typeof caller === "string") return caller
      const traceparent = traced ? headers.traceparent : undefined
      return <A, E, R>(self: Effect.Effect<A, E, R>) => {
        let program = self
        if (caller instanceof Map) program = ServiceCallers.as(caller)(program)
        else if (caller !== undefined) program = CallerCredentials.as(caller as CallerCredentials.Caller)(program)
        if (typeof traceparent === "string") program = Effect.locally(program, Telemetry.headerTraceparent, traceparent)
        return program
      }
    },
  }
})
