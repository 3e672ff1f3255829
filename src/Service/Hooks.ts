/**
 * What the service's client calls around each request to the service and each
 * login. The client declares them here, below it, and runs them without knowing
 * who provides them: by default they do nothing; telemetry provides spans and
 * metrics (Operations/Telemetry.ts).
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export interface ClientHooks {
  /** Around one request to the service that answers a status. */
  readonly serviceRequest: (
    method: string,
    path: string,
  ) => <A extends { readonly status: number }, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Around a login. */
  readonly login: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Hooks that do nothing: the calls cost what they cost without them. */
export const none: ClientHooks = {
  serviceRequest: () => (self) => self,
  login: (self) => self,
}

/** The client's hooks, read when the client and its Auth are built; `none` unless a layer provides others. */
export class Hooks extends Context.Reference<Hooks>()("svc-mcp/SvcClient/Hooks", { defaultValue: () => none }) {}
