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
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as CallContext from "../../Call/Context.js"
import { Minting, type MintShape } from "../../Mint/Shape.js"
import type * as AuditPeople from "../../Operations/AuditPeople.js"
import { Services } from "../../Registry/Registry.js"
import type * as Runner from "../../Shared/Runner.js"
import * as Identity from "../../SignIn/Identity.js"
import type { Admitted, Refusal, SignInShape } from "../../SignIn/Resource.js"
import { SKEW_SECONDS } from "../../SignIn/Verifier.js"
import * as Listing from "../Server/Listing.js"

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
  (signIn: SignInShape, runner: Runner.Runner, audit: Audited = () => Promise.resolve()) =>
  async (header: string | undefined): Promise<Response | Admitted> => {
    let admitted: Admitted | undefined
    try {
      if (header === undefined || header.trim() === "") {
        throw new Refused({ _tag: "Unauthorized", reason: Option.none() })
      }
      await verifyBearerToken(header.split(",")[0]?.trim(), {
        verifier: {
          verifyAccessToken: async (token) => {
            const exit = await runner.promiseExit(signIn.admit(Option.some(token)))
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
      if (error instanceof Refused) {
        const { refusal } = error
        if (refusal._tag === "Forbidden" && refusal.who !== undefined) {
          await audit({ who: refusal.who, status: 403, kind: "Forbidden", reason: refusal.reason })
        }
        return refusalResponse(signIn, refusal)
      }
      if (error instanceof OAuthError) {
        return refusalResponse(signIn, { _tag: "Unauthorized", reason: Option.some(error.message) })
      }
      throw error
    }
    if (admitted === undefined) throw new Error("the token was not checked")
    return admitted
  }

/** How far a person's tool list reaches: their token's scopes, and their minted level (Listing.ts). */
export const reachOf = (signIn: SignInShape, admitted: Admitted): Listing.Reach => {
  const granted = admitted.identity.scopes
  const tier = (["write", "operate", "read"] as const).find((t) => signIn.scopes.allows(granted, t))
  const { entry } = admitted
  const minted = entry._tag === "All" && entry.credentials._tag === "Mint"
  const level =
    entry._tag === "All" && entry.credentials._tag === "Mint"
      ? (Listing.LEVEL_RANK[entry.credentials.grant.level] ?? 0)
      : Listing.FULL.level
  return { tier: tier === undefined ? -1 : Listing.TIER_RANK[tier], level, ...(minted ? { minted } : {}) }
}

/**
 * Makes sure the key minted for the person is at hand before a tool call goes on (the service's
 * key for the call, `service` among several): the reason it cannot be, or none.
 */
export type Premint = (admitted: Admitted, service: string | undefined) => Promise<Option.Option<Unminted>>

/** Why no key is at hand: the person may have none (403), or not now (503, try again after `retryAfter` s). */
interface Unminted {
  readonly reason: string
  readonly refused: boolean
  readonly retryAfter: number
  /** The service user the person's calls act as. */
  readonly acting: string
}

/** Writes a refusal of a signed-in person to the audit log (AuditPeople.ts), when one is kept. */
export type Audited = (refusal: AuditPeople.GateRefusal) => Promise<void>

const callsIn = (body: unknown): ReadonlyArray<Record<string, unknown>> =>
  (Array.isArray(body) ? body : [body]).filter(
    (message): message is Record<string, unknown> =>
      typeof message === "object" && message !== null && (message as { method?: unknown }).method === "tools/call",
  )

const serviceOf = (call: Record<string, unknown>): string | undefined => {
  const params = call.params as { arguments?: { service?: unknown } } | undefined
  return typeof params?.arguments?.service === "string" ? params.arguments.service : undefined
}

/**
 * Minting that fails before a call is sent, with the reason; nothing reaches the service: 403 for
 * a person who may have no key (revoked, or their entry removed), else 503 with when to try again.
 */
const unminted = (fault: Unminted, id: unknown): Response =>
  fault.refused
    ? Response.json(
        { jsonrpc: "2.0", error: { code: -32001, message: `Forbidden: ${fault.reason}` }, id },
        { status: 403 },
      )
    : Response.json(
        { jsonrpc: "2.0", error: { code: -32001, message: `Service Unavailable: ${fault.reason}` }, id },
        { status: 503, headers: { "retry-after": String(fault.retryAfter) } },
      )

/** The tool a request's first call names, for the audit. */
const toolOf = (body: unknown): string | undefined => {
  const params = callsIn(body)[0]?.params as { name?: unknown } | undefined
  return typeof params?.name === "string" ? params.name : undefined
}

const screened = async (
  signIn: SignInShape,
  admitted: Admitted,
  body: unknown,
  audit: Audited,
): Promise<Response | undefined> => {
  const refusal = signIn.screen(admitted, body)
  if (Option.isNone(refusal)) return undefined
  const tool = toolOf(body)
  await audit({
    who: `oauth:${admitted.identity.name}`,
    status: 403,
    kind: refusal.value._tag,
    reason:
      refusal.value._tag === "Forbidden" || refusal.value._tag === "InsufficientScope" ? refusal.value.reason : "",
    ...(tool === undefined ? {} : { tool }),
  })
  return refusalResponse(signIn, refusal.value, idOf(body))
}

/** The request's body as JSON, when the SDK has not parsed it; undefined when too large or not JSON (the handler answers it). */
const bodyOf = async (request: Request, parsedBody: unknown, maxBodyBytes: number): Promise<unknown> => {
  if (parsedBody !== undefined) return parsedBody
  const read = await readRequestBody(request.clone(), maxBodyBytes)
  if (read.tooLarge) return undefined
  try {
    return JSON.parse(read.text)
  } catch {
    return undefined
  }
}

/**
 * The gate's second half, once the body is read: a tool call the token's scopes or identity do
 * not reach is refused; a person whose key is minted has it before their call goes on;
 * otherwise, how to run the request's calls as the person it comes from.
 */
export const gate =
  (signIn: SignInShape, maxBodyBytes: number, premint?: Premint, audit: Audited = () => Promise.resolve()) =>
  async (
    admitted: Admitted,
    request: Request,
    parsedBody?: unknown,
  ): Promise<Response | ((context: CallContext.CallContext) => CallContext.CallContext)> => {
    if (request.method === "POST") {
      const body = await bodyOf(request, parsedBody, maxBodyBytes)
      const refused = await screened(signIn, admitted, body, audit)
      if (refused !== undefined) return refused
      const minted = admitted.entry._tag === "All" && admitted.entry.credentials._tag === "Mint"
      for (const call of minted && premint !== undefined ? callsIn(body) : []) {
        const fault = await premint?.(admitted, serviceOf(call))
        if (fault === undefined || Option.isNone(fault)) continue
        const { reason, refused, acting } = fault.value
        const status = refused ? 403 : 503
        const kind = refused ? "Forbidden" : "Unavailable"
        const tool = toolOf([call])
        await audit({
          who: `oauth:${admitted.identity.name}`,
          status,
          kind,
          reason,
          acting,
          ...(tool === undefined ? {} : { tool }),
        })
        return unminted(fault.value, idOf(body))
      }
    }
    return Identity.signedIn(admitted.identity, admitted.entry)
  }

/** Each service's minting, by name (the one service's under ""). */
export const mintersOf = Effect.gen(function* () {
  const services = yield* Services
  if (services.length === 0) return new Map(Option.toArray(Option.map(yield* Minting, (m) => ["", m] as const)))
  return new Map(
    services.flatMap((s) => Option.toArray(Option.map(Context.get(s.context, Minting), (m) => [s.name, m] as const))),
  )
})

/** The key minted for the person at the call's service (the first, when it names none), or why there is none. */
export const premintWith =
  (minters: ReadonlyMap<string, MintShape>, run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>): Premint =>
  (admitted, service) => {
    const minter = minters.get(service ?? "") ?? minters.values().next().value
    const { entry } = admitted
    if (minter === undefined || entry._tag !== "All" || entry.credentials._tag !== "Mint") {
      return Promise.resolve(Option.none())
    }
    const person = admitted.identity.name
    return run(
      minter.credential(person, entry.credentials.grant).pipe(
        Effect.as(Option.none<Unminted>()),
        Effect.catchAll((error) =>
          Effect.succeed(
            Option.some({
              reason: error.message,
              refused: error.refused === true,
              retryAfter: error.retryAfter ?? 5,
              acting: minter.usernameOf(person),
            }),
          ),
        ),
      ),
    )
  }
