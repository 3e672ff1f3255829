/**
 * What an HTTP request brings to the tool calls it carries: its caller's
 * address (named to the service in X-Forwarded-For), in per-request mode its
 * caller's service credentials (refused with 401 when absent), and with
 * telemetry its `traceparent` header. The adapter asks once per request,
 * and runs the request's calls inside what it gets.
 */
import type { IncomingHttpHeaders } from "node:http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallerAddress from "../Callers/Address.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as ServiceCallers from "../Service/ServiceCallers.js"
import { TeamSettings } from "../Settings/Team.js"
import * as Telemetry from "./Telemetry.js"

/** Runs a call within what its request brought: its caller, its trace. */
export type WithinRequest = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** A call that came with no request of its own (stdio): it runs as the server. */
export const noRequest: WithinRequest = (self) => self

export interface RequestContext {
  /**
   * How to run the calls of a request with these headers, from this TCP peer
   * (none: not known), or why it is refused (a 401).
   */
  readonly fromHeaders: (headers: IncomingHttpHeaders, peer?: string) => WithinRequest | string
}

/** What the context of a request depends on: whose credentials calls use, whether they are traced, which proxies are trusted. */
export type Requirements = CallerCredentials.Mode | Telemetry.Telemetry | TeamSettings | ServiceCallers.Named

export const make: Effect.Effect<RequestContext, never, Requirements> = Effect.gen(function* () {
  const mode = yield* CallerCredentials.Mode
  const traced = Option.isSome(yield* Telemetry.Telemetry)
  const trusted = (yield* TeamSettings).trustedProxies
  const perRequest = mode === "per-request"
  // Several services: each one's key in its own header pair.
  const named = yield* ServiceCallers.Named
  return {
    fromHeaders: (headers, peer) => {
      const caller = !perRequest
        ? undefined
        : named.length > 0
          ? ServiceCallers.fromHeaders(named, headers)
          : CallerCredentials.fromHeaders(headers)
      if (typeof caller === "string") return caller
      const traceparent = traced ? headers.traceparent : undefined
      const address = peer === undefined ? undefined : CallerAddress.callerAddress(peer, headers, trusted)
      if (caller === undefined && traceparent === undefined && address === undefined) return noRequest
      return <A, E, R>(self: Effect.Effect<A, E, R>) => {
        let program = self
        if (address !== undefined) program = Effect.locally(program, CallerAddress.current, Option.some(address))
        if (caller instanceof Map) program = ServiceCallers.as(caller)(program)
        else if (caller !== undefined) program = CallerCredentials.as(caller as CallerCredentials.Caller)(program)
        if (typeof traceparent === "string") program = Effect.locally(program, Telemetry.headerTraceparent, traceparent)
        return program
      }
    },
  }
})
