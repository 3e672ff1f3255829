/**
 * The SDK's handler of /mcp, behind the gates that need the request's body: sign-in's screen of
 * the call, the session a 2025-era client carries, and the answers to its questions. The routes
 * (Http.ts) have admitted the request on its headers first; its admission rides its async context.
 */
import type { AsyncLocalStorage } from "node:async_hooks"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { type AuthInfo, createMcpHandler } from "@modelcontextprotocol/server"
import * as Data from "effect/Data"
import * as Option from "effect/Option"
import * as CallContext from "../../Call/Context.js"
import type { Admitted } from "../../SignIn/Resource.js"
import * as Asking from "../Asking/Asking.js"
import * as Session from "../Asking/Session.js"
import type * as Listing from "../Server/Listing.js"
import type { McpServer } from "../Server/Server.js"
import { MAX_MESSAGE_BYTES } from "../Stdio/StdioFraming.js"
import type * as SignInHttp from "./BearerGate.js"

/** A larger body is refused with 413 before it is read to the end (the SDK's default, stated): the bound stdio has too. */
export const MAX_BODY_BYTES = MAX_MESSAGE_BYTES

const SESSION_ENDED =
  "this Mcp-Session-Id has ended (expired, or made with other credentials or before SVC_MCP_TOKEN changed): initialize again"

/**
 * Where a request stands, as the routes read it from its headers and peer, and as the gate
 * completes it (sign-in, the session): served, with the context its calls start from, or refused.
 */
export type Admission = Data.TaggedEnum<{
  Served: {
    readonly context: CallContext.CallContext
    readonly session: Option.Option<Session.Session>
    /** What SVC_MCP_TOKEN's check gave, for the SDK's handler. */
    readonly authInfo?: AuthInfo
    /** With sign-in: whom the access token, verified on the headers, names. */
    readonly admitted?: Admitted
  }
}>
export const Admission = Data.taggedEnum<Admission>()

/**
 * Where the admission of the request being served is kept. The SDK
 * calls our fetch handler with a Fetch Request (no socket, so no peer) and makes the request's
 * server through a factory that takes no argument: neither can be handed a value of ours, so it
 * rides the request's async context, which both run within.
 */
export type Requests = AsyncLocalStorage<Admission>

export type Log = (message: string) => void

/**
 * The SDK's MCP handler: each request's own server, made with the context its admission carries;
 * a 2025-era POST of a session gets the transport that can ask its client.
 */
export const mcpHandler = (
  mcp: McpServer,
  requests: Requests,
  asked: Asking.Asked,
  log: Log,
  reachOf: (admitted: Admitted) => Listing.Reach | undefined,
) =>
  createMcpHandler(
    (info) => {
      const admission = requests.getStore()
      if (admission === undefined) return mcp.create()
      const { context, session } = admission
      // Signed in: the tool list is the person's own.
      const reach = admission.admitted === undefined ? undefined : reachOf(admission.admitted)
      if (info?.era !== "legacy" || Option.isNone(session)) return mcp.create(context, undefined, reach)
      return mcp.create(
        context,
        (transport) =>
          new Asking.AskingTransport(transport, asked.answers, Asking.bindingOf(context, session.value), session.value),
        reach,
      )
    },
    {
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (error) => log(`http: ${error.message}`),
    },
  )

/** The gates of /mcp: the token or sign-in, and what the request's context refuses; then the SDK's handler. */
export const gated = (
  handler: ReturnType<typeof mcpHandler>,
  serverToken: string,
  signInGate: Option.Option<ReturnType<typeof SignInHttp.gate>>,
  requests: Requests,
  asked: Asking.Asked,
  log: Log,
) =>
  toNodeHandler(
    {
      fetch: async (request, options) => {
        const parsedBody = options?.parsedBody
        const admission = requests.getStore()
        const admitted = admission?.admitted
        // The token was verified on the headers (mcpRoute); what is screened here needs the body.
        if (Option.isSome(signInGate) && admitted === undefined) throw new Error("the access token was not verified")
        const signedIn =
          Option.isSome(signInGate) && admitted !== undefined
            ? await signInGate.value(admitted, request, parsedBody)
            : undefined
        if (signedIn instanceof Response) return signedIn
        const authInfo = admission?.authInfo
        // Signed in: the request's calls run as the person its token names.
        const base = admission?.context ?? CallContext.empty
        const signedInContext = signedIn === undefined ? base : signedIn(base)
        const credential = Session.credentialOf(signedInContext, serverToken)
        const token = request.headers.get("mcp-session-id")
        const session = token === null || token === "" ? Option.none() : asked.sessions.open(token, credential)
        // A session that does not open (expired, another credential's, signed before the token
        // changed, forged): 404, which tells a 2025-era client to initialize again.
        if (token !== null && token !== "" && Option.isNone(session)) {
          return Response.json(
            { jsonrpc: "2.0", error: { code: -32001, message: SESSION_ENDED }, id: null },
            { status: 404 },
          )
        }
        const context = Option.isSome(session)
          ? { ...signedInContext, session: Option.some(session.value.nonce) }
          : signedInContext
        const answered = await Asking.routed(asked, context, session, parsedBody)
        if (answered !== undefined) return answered
        const serve = () =>
          handler.fetch(request, {
            ...(authInfo === undefined ? {} : { authInfo }),
            ...(parsedBody === undefined ? {} : { parsedBody }),
          })
        const response = await requests.run(
          Admission.Served({ context, session, ...(admitted === undefined ? {} : { admitted }) }),
          serve,
        )
        // A 2025-era client's initialize: its session token, from what it declared.
        const initialize = Asking.initializeOf(parsedBody)
        if (initialize !== undefined) {
          return Asking.withSession(
            response,
            asked.sessions.issue(credential, initialize.version, initialize.capabilities),
          )
        }
        return response
      },
    },
    { maxRequestBodySize: MAX_BODY_BYTES, onerror: (error) => log(`http: ${error.message}`) },
  )
