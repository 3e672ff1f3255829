/**
 * Sign-in on the wire: the protected resource metadata at its two well-known
 * paths, and the gate each /mcp request passes before the SDK's handler sees
 * it. The decisions are SignIn/Resource.ts'; this file speaks HTTP.
 *
 * Of the SDK's pieces, `verifyBearerToken` parses the Authorization header
 * and runs our verifier, `readRequestBody` reads the body within the 4 MiB
 * bound, and `buildOAuthProtectedResourceMetadata` checks each issuer's URL.
 * Where they fall short (docs/sign-in.md): the SDK's challenge always carries an
 * error code (RFC 6750 3.1 wants none without a token) and an
 * `error_description` before the scope; its metadata names one authorization
 * server and no `bearer_methods_supported`; its scope checks have no hierarchy;
 * and its per-tool `scopeChallenge` serves `McpServer` registrations only, not
 * the low-level `Server` ours are made on, so a tool call's scope is screened
 * here, on the JSON-RPC body, before the handler runs.
 */
import {
  buildOAuthProtectedResourceMetadata,
  OAuthError,
  readRequestBody,
  verifyBearerToken,
} from "@modelcontextprotocol/server"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as CallContext from "../Call/Context.js"
import * as Identity from "../SignIn/Identity.js"
import type { Admitted, Refusal, SignInShape } from "../SignIn/Resource.js"
import { SKEW_SECONDS } from "../SignIn/Verifier.js"

/** Thrown through the SDK's verifier to carry our refusal out of it. */
class Refused {
  constructor(readonly refusal: Refusal) {}
}

const STATUS: Readonly<Record<Refusal["_tag"], number>> = {
  Unauthorized: 401,
  InsufficientScope: 403,
  Forbidden: 403,
  Unavailable: 503,
}

const messageOf = (refusal: Refusal): string => {
  switch (refusal._tag) {
    case "Unauthorized":
      return Option.match(refusal.reason, {
        onNone: () => "Unauthorized: sign in; this server takes OAuth access tokens (see its resource metadata)",
        onSome: (reason) => `Unauthorized: ${reason}`,
      })
    case "Unavailable":
      return `The identity provider's keys cannot be had, so no token can be checked: ${refusal.reason}`
    default:
      return `Forbidden: ${refusal.reason}`
  }
}

/** The answer to a refused request. Nothing of it has reached the service. */
const refusalResponse = (signIn: SignInShape, refusal: Refusal, id: unknown = null): Response => {
  const challenge = signIn.challenge(refusal)
  const headers: Record<string, string> = {}
  if (challenge !== undefined) headers["www-authenticate"] = challenge
  if (refusal._tag === "Unavailable") headers["retry-after"] = "5"
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32001, message: messageOf(refusal) }, id },
    { status: STATUS[refusal._tag], headers },
  )
}

/** The RFC 9728 document, built once: the SDK's (which checks the issuer URL), completed. */
export const metadataDocument = (signIn: SignInShape): Readonly<Record<string, unknown>> => {
  const [first] = signIn.settings.issuers
  const built = buildOAuthProtectedResourceMetadata({
    oauthMetadata: { issuer: first as string } as Parameters<
      typeof buildOAuthProtectedResourceMetadata
    >[0]["oauthMetadata"],
    resourceServerUrl: new URL(signIn.settings.resource),
    scopesSupported: [...signIn.scopes.all],
    resourceName: "svc-mcp",
    // The issuer's scheme is the operator's to choose; loopback and tests use http.
    dangerouslyAllowInsecureIssuerUrl: true,
  })
  return { ...built, ...signIn.metadata }
}

/** The metadata's answer for a request to one of its paths, or undefined for another path. */
export const wellKnown = (
  signIn: SignInShape,
  document: Readonly<Record<string, unknown>>,
  path: string,
  method: string,
): { readonly status: number; readonly body: unknown; readonly headers: Record<string, string> } | undefined => {
  if (!signIn.metadataPaths.includes(path.replace(/\/+$/, "") || "/")) return undefined
  if (method === "OPTIONS") {
    return {
      status: 204,
      body: undefined,
      headers: { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, HEAD, OPTIONS" },
    }
  }
  if (method !== "GET" && method !== "HEAD") {
    return { status: 405, body: { error: "method not allowed" }, headers: { allow: "GET, HEAD, OPTIONS" } }
  }
  return {
    status: 200,
    body: document,
    headers: { "access-control-allow-origin": "*", "cache-control": "max-age=300" },
  }
}

const idOf = (body: unknown): unknown =>
  typeof body === "object" && body !== null && !Array.isArray(body) && "id" in body ? body.id : null

/**
 * The gate's first half, on the headers alone, before anything of the body is read: the Bearer
 * access token verified (signature, issuer, audience, expiry), or the Response that refuses it. The
 * token goes no further than this function: the SDK's handler is not given it, and nothing of it
 * is logged.
 */
export const verify =
  (signIn: SignInShape, runtime: Runtime.Runtime<never>) =>
  async (header: string | undefined): Promise<Response | Admitted> => {
    let admitted: Admitted | undefined
    try {
      if (header === undefined || header.trim() === "") {
        throw new Refused({ _tag: "Unauthorized", reason: Option.none() })
      }
      await verifyBearerToken(header.split(",")[0]?.trim(), {
        verifier: {
          verifyAccessToken: async (token) => {
            const exit = await Runtime.runPromiseExit(runtime)(signIn.admit(Option.some(token)))
            if (Exit.isFailure(exit)) {
              const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
              if (failure === undefined) throw new Error("the token could not be checked")
              throw new Refused(failure)
            }
            admitted = exit.value
            // The SDK checks `expiresAt` again, without skew: it is told where the verifier's skew ends.
            return {
              token: "",
              clientId: admitted.identity.subject,
              scopes: [...admitted.identity.scopes],
              expiresAt: admitted.expiresAt + SKEW_SECONDS,
            }
          },
        },
      })
    } catch (error) {
      if (error instanceof Refused) return refusalResponse(signIn, error.refusal)
      if (error instanceof OAuthError) {
        return refusalResponse(signIn, { _tag: "Unauthorized", reason: Option.some(error.message) })
      }
      throw error
    }
    if (admitted === undefined) throw new Error("the token was not checked")
    return admitted
  }

/**
 * The gate's second half, once the body is read: a tool call the token's scopes or identity do
 * not reach is refused; otherwise, how to run the request's calls as the person it comes from.
 */
export const gate =
  (signIn: SignInShape, maxBodyBytes: number) =>
  async (
    admitted: Admitted,
    request: Request,
    parsedBody?: unknown,
  ): Promise<Response | ((context: CallContext.CallContext) => CallContext.CallContext)> => {
    if (request.method === "POST" && parsedBody !== undefined) {
      const refusal = signIn.screen(admitted, parsedBody)
      if (Option.isSome(refusal)) return refusalResponse(signIn, refusal.value, idOf(parsedBody))
    } else if (request.method === "POST") {
      const read = await readRequestBody(request.clone(), maxBodyBytes)
      // Too large or not JSON: the handler answers it (413, parse error), and sends nothing.
      if (!read.tooLarge) {
        let body: unknown
        try {
          body = JSON.parse(read.text)
        } catch {}
        const refusal = signIn.screen(admitted, body)
        if (Option.isSome(refusal)) return refusalResponse(signIn, refusal.value, idOf(body))
      }
    }
    return Identity.signedIn(admitted.identity, admitted.entry)
  }
