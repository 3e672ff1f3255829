/**
 * Per-request service credentials (SVC_MCP_CREDENTIALS=per-request): over HTTP
 * each MCP request carries its caller's own API key and secret, and the calls it
 * makes to the service use exactly those, so the service applies that user's
 * permissions. The caller is part of the call's context (Call/Context.ts), set
 * around the one tool call, so nothing of it can reach another caller's call;
 * there is no fallback. The Auth that sends these credentials is Auth.perRequest.
 */
import type { IncomingHttpHeaders } from "node:http"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as CallContext from "../Call/Context.js"
import { type ConfigError, type CredentialsMode, loadCredentialsMode } from "../Config.js"

export const KEY_HEADER = "x-svc-api-key"
export const SECRET_HEADER = "x-svc-api-secret"

export type Caller = CallContext.Caller

/** Runs `self` on behalf of `caller`. */
export const as =
  (caller: Caller) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    CallContext.locallyWith((context) => ({ ...context, credentials: { _tag: "Caller", caller } }))(self)

export const MISSING =
  "Unauthorized: this server runs with SVC_MCP_CREDENTIALS=per-request; send your own service API key and secret in the X-Svc-Api-Key and X-Svc-Api-Secret headers"

const single = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined

/** The caller an HTTP request names, or on the left why it names none (for a 401). */
export const fromHeaders = (headers: IncomingHttpHeaders): Either.Either<Caller, string> => {
  const key = single(headers[KEY_HEADER])
  const secret = single(headers[SECRET_HEADER])
  if (key === undefined && secret === undefined) return Either.left(MISSING)
  if (key === undefined) return Either.left(`${MISSING} (X-Svc-Api-Key is missing)`)
  if (secret === undefined) return Either.left(`${MISSING} (X-Svc-Api-Secret is missing)`)
  return Either.right({ key, secret: Redacted.make(secret) })
}

/**
 * Whose credentials the calls use, as the server was started (SVC_MCP_CREDENTIALS,
 * read by Config.loadCredentialsMode); by default the server's own.
 */
export class Mode extends Context.Reference<Mode>()("svc-mcp/CredentialsMode", {
  defaultValue: (): CredentialsMode => "server",
}) {}

export const layer = (mode: CredentialsMode): Layer.Layer<Mode> => Layer.succeed(Mode, mode)

/** Per-request credentials off: every call uses the server's own (the default; kept for programs that name it). */
export const layerOff: Layer.Layer<Mode> = layer("server")

/** The mode as SVC_MCP_CREDENTIALS says; provide it beneath the client's bundle, which reads it. */
export const layerConfig: Layer.Layer<Mode, ConfigError> = Layer.effect(Mode, loadCredentialsMode)
