/**
 * MCP over Streamable HTTP at /mcp, stateless: each request gets a server of
 * its own (2026-07-28 needs no session; the earlier revisions get a signed
 * `Mcp-Session-Id` that no server keeps, Session.ts), so any number of
 * instances can stand behind a load balancer without affinity. A 2025-era
 * client is asked on the event stream of its POST, and its answer and
 * cancellations, POSTed apart, reach the waiting call wherever it runs (Asking.ts).
 *
 * The SDK does the MCP side: request handling for both eras, the 4 MiB body
 * limit (413), the Host and Origin checks, the Bearer token's challenge. Ours:
 * the routes (/mcp, /healthz, /readyz, and with sign-in its protected resource
 * metadata), the token's constant-time comparison or sign-in's gate (Mcp/SignIn.ts),
 * and draining on shutdown, which the SDK's handler does not do (its close aborts).
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { createHash, timingSafeEqual } from "node:crypto"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import {
  hostHeaderValidation,
  type NodeIncomingMessageLike,
  originValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node"
import {
  createMcpHandler,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
} from "@modelcontextprotocol/server"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as CallContext from "../Call/Context.js"
import { Readiness, type ReadinessShape, type ReadyState } from "../Operations/Readiness.js"
import * as RequestContext from "../Operations/RequestContext.js"
import { TeamSettings } from "../Settings/Team.js"
import { SignIn, type SignInShape } from "../SignIn/Resource.js"
import { Store } from "../Store/Store.js"
import * as Asking from "./Asking.js"
import { type HttpSettingsShape, isLoopback } from "./HttpConfig.js"
import { type McpServer, make, type Requirements as ServerRequirements } from "./Server.js"
import * as Session from "./Session.js"
import * as SignInHttp from "./SignIn.js"
import { MAX_MESSAGE_BYTES } from "./StdioFraming.js"

/** A larger body is refused with 413 before it is read to the end (the SDK's default, stated): the bound stdio has too. */
const MAX_BODY_BYTES = MAX_MESSAGE_BYTES

/** How long an idle kept-alive connection stays open. */
const KEEP_ALIVE_MS = 65_000

/** How long a shutdown lets calls in flight finish. */
export const DRAIN_MS = 10_000

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compares in constant time: hashing first makes the lengths equal too. */
const sameToken = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected))

const sendJson = (
  res: NodeHttp.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  if (res.headersSent) return void res.end()
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

export class ListenError extends Data.TaggedError("ListenError")<{
  readonly address: string
  readonly cause: unknown
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    return `cannot listen on ${this.address} (${code ?? String(this.cause)})${code === "EADDRINUSE" ? ": the port is taken" : ""}`
  }
}

/** What serving over HTTP needs: the tools' (Server.ts); a request's context and `/readyz`'s probe read what is provided. */
export type Requirements = ServerRequirements

export interface Serving {
  /** The URL of the MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string
}

/** The hostnames a loopback bind answers to: the SDK's localhost names, and the bound address. */
const loopbackNames = (host: string) => {
  const names = new Set(localhostAllowedHostnames())
  names.add(host.includes(":") && !host.startsWith("[") ? `[${host}]` : host)
  return [...names]
}

/**
 * What the request being served brought (its caller, its trace), or why it is refused. The SDK
 * calls our fetch handler with a Fetch Request (no socket, so no peer) and makes the request's
 * server through a factory that takes no argument: neither can be handed a value of ours, so it
 * rides the request's async context, which both run within.
 */
/**
 * A POST's body of a declared, bounded length, read and parsed here, once: given
 * to the SDK's handler parsed, it neither copies the request nor reads it again
 * (a clone's stream costs more than the parse). Any other body (chunked, over
 * the bound, not a POST) is left to the SDK, which reads and bounds it itself;
 * one that is not JSON is handed back as it came, for the SDK's own answer.
 */
const bodyOf = async (
  req: NodeHttp.IncomingMessage,
  declared: number,
): Promise<{ readonly parsed: unknown } | { readonly text: string } | undefined> => {
  if (req.method !== "POST" || req.headers["content-length"] === undefined || declared > MAX_BODY_BYTES) {
    return undefined
  }
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString("utf8")
  // The adapter writes a parsed body out again with JSON.stringify, which recurses: a body nested
  // deeper than it can go is left to the SDK's own reading, which answers it with a 400.
  if (deeperThan(text, MAX_NESTING)) return { text }
  try {
    return { parsed: JSON.parse(text) }
  } catch {
    return { text }
  }
}

const MAX_NESTING = 256

/** Whether the JSON text opens more than `limit` arrays or objects within each other (strings skipped). */
const deeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/** The request with its body, read already, given again. */
const replayed = (req: NodeHttp.IncomingMessage, text: string): NodeIncomingMessageLike => ({
  ...(req.method === undefined ? {} : { method: req.method }),
  ...(req.url === undefined ? {} : { url: req.url }),
  headers: req.headers,
  async *[Symbol.asyncIterator]() {
    yield Buffer.from(text, "utf8")
  },
})

/**
 * What a request brought, as the routes read it from its headers and peer, and as the gate
 * completes it (sign-in, the session): the context its calls start from, or why it is refused.
 */
type Brought = Data.TaggedEnum<{
  Refused: { readonly reason: string }
  Served: { readonly context: CallContext.CallContext; readonly session: Option.Option<Session.Session> }
}>
const Brought = Data.taggedEnum<Brought>()

type Requests = AsyncLocalStorage<Brought>

type Log = (message: string) => void

/** What asking a 2025-era client over HTTP needs, made once for the server's life. */
interface Asked {
  readonly sessions: Session.Sessions
  readonly answers: Asking.Answers
}

const bindingOf = (context: CallContext.CallContext, session: Session.Session): Asking.Binding => ({
  session: session.nonce,
  principal: CallContext.bindingPrincipalOf(context),
})

/**
 * The SDK's MCP handler: each request's own server, made with the context the request brought;
 * a 2025-era POST of a session gets the transport that can ask its client.
 */
const mcpHandler = (mcp: McpServer, requests: Requests, asked: Asked, log: Log) =>
  createMcpHandler(
    (info) => {
      const brought = requests.getStore()
      if (brought === undefined || brought._tag === "Refused") return mcp.create()
      const { context, session } = brought
      if (info?.era !== "legacy" || Option.isNone(session)) return mcp.create(context)
      return mcp.create(
        context,
        (transport) =>
          new Asking.AskingTransport(transport, asked.answers, bindingOf(context, session.value), session.value),
      )
    },
    {
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (error) => log(`http: ${error.message}`),
    },
  )

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A JSON-RPC response, which a client POSTs only to answer a server's request (2025-era). */
const isResponse = (body: unknown): body is Readonly<Record<string, unknown>> =>
  isObject(body) &&
  body.jsonrpc === "2.0" &&
  body.method === undefined &&
  "id" in body &&
  ("result" in body || "error" in body)

const accepted = () => new Response(null, { status: 202 })

const jsonRpcError = (status: number, message: string) =>
  Response.json({ jsonrpc: "2.0", error: { code: status === 403 ? -32001 : -32600, message }, id: null }, { status })

/**
 * A 2025-era client's answer to a question, or its cancellation of a call, for a call that may run
 * in another server instance or on another replica; undefined for every other request.
 */
const routed = async (
  asked: Asked,
  context: CallContext.CallContext,
  session: Option.Option<Session.Session>,
  body: unknown,
): Promise<Response | undefined> => {
  if (isResponse(body)) {
    if (Option.isNone(session)) {
      return jsonRpcError(409, "no question was asked of this client: it has no session (initialize first)")
    }
    const delivery = await asked.answers.answer(bindingOf(context, session.value), body as never)
    return delivery._tag === "Delivered" ? accepted() : jsonRpcError(delivery.status, delivery.reason)
  }
  if (Option.isSome(session) && isObject(body) && body.method === "notifications/cancelled" && isObject(body.params)) {
    const requestId = body.params.requestId
    if (typeof requestId === "string" || typeof requestId === "number") {
      await asked.answers.cancel(bindingOf(context, session.value), requestId, body.params.reason)
    }
    return accepted()
  }
  return undefined
}

/** The answer to `initialize` with the session token its client sends from then on. */
const withSession = (response: Response, token: string) => {
  if (!response.ok) return response
  const headers = new Headers(response.headers)
  headers.set("mcp-session-id", token)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/** SVC_MCP_TOKEN's check, when it is set: the Bearer token, compared in constant time. */
const tokenCheck = (token: Option.Option<string>) =>
  Option.map(token, (expected) =>
    requireBearerAuth({
      verifier: {
        verifyAccessToken: async (given) => {
          if (!sameToken(given, expected)) {
            throw new OAuthError(OAuthErrorCode.InvalidToken, "the Bearer token is not SVC_MCP_TOKEN")
          }
          // The token does not expire; the SDK wants to know until when it holds.
          return { token: given, clientId: "svc-mcp", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 }
        },
      },
    }),
  )

/** The gates of /mcp: the token or sign-in, and what the request's context refuses; then the SDK's handler. */
const gated = (
  handler: ReturnType<typeof mcpHandler>,
  authenticate: ReturnType<typeof tokenCheck>,
  signInGate: Option.Option<ReturnType<typeof SignInHttp.gate>>,
  requests: Requests,
  asked: Asked,
  log: Log,
) =>
  toNodeHandler(
    {
      fetch: async (request, options) => {
        const parsedBody = options?.parsedBody
        const authInfo = Option.isNone(authenticate) ? undefined : await authenticate.value(request)
        if (authInfo instanceof Response) return authInfo
        const signedIn = Option.isSome(signInGate) ? await signInGate.value(request, parsedBody) : undefined
        if (signedIn instanceof Response) return signedIn
        // Past the token: a request without what per-request mode needs is refused, never served otherwise.
        const brought = requests.getStore()
        if (brought?._tag === "Refused") {
          return Response.json(
            { jsonrpc: "2.0", error: { code: -32001, message: brought.reason }, id: null },
            { status: 401 },
          )
        }
        // Signed in: the request's calls run as the person its token names.
        const base = brought?.context ?? CallContext.empty
        const signedInContext = signedIn === undefined ? base : signedIn(base)
        const principal = CallContext.bindingPrincipalOf(signedInContext)
        const token = request.headers.get("mcp-session-id")
        const session = token === null ? Option.none() : asked.sessions.open(token, principal)
        const context = Option.isSome(session)
          ? { ...signedInContext, session: Option.some(session.value.nonce) }
          : signedInContext
        const answered = await routed(asked, context, session, parsedBody)
        if (answered !== undefined) return answered
        const serve = () =>
          handler.fetch(request, {
            ...(authInfo === undefined ? {} : { authInfo }),
            ...(parsedBody === undefined ? {} : { parsedBody }),
          })
        const response = await requests.run(Brought.Served({ context, session }), serve)
        // A 2025-era client's initialize: its session token, from what it declared.
        if (isObject(parsedBody) && parsedBody.method === "initialize" && isObject(parsedBody.params)) {
          const version = parsedBody.params.protocolVersion
          return withSession(
            response,
            asked.sessions.issue(principal, typeof version === "string" ? version : "", parsedBody.params.capabilities),
          )
        }
        return response
      },
    },
    { maxRequestBodySize: MAX_BODY_BYTES, onerror: (error) => log(`http: ${error.message}`) },
  )

/** Set once the server begins to close; read by each request as it arrives. */
interface Shutdown {
  draining: boolean
}

/** What the routes answer from, made once for the server's life. */
interface Routes {
  readonly settings: HttpSettingsShape
  readonly readiness: Context.Tag.Service<Readiness>
  readonly probe: (readiness: ReadinessShape) => Promise<ReadyState>
  readonly signIn: Option.Option<SignInShape>
  readonly context: RequestContext.RequestContext
  readonly requests: Requests
  readonly serveMcp: ReturnType<typeof gated>
  readonly shutdown: Shutdown
}

/**
 * The routes: /healthz, /readyz (when readiness is provided), sign-in's metadata, and /mcp, which
 * the DNS rebinding guards and the SDK's body limit stand before; each /mcp request's context is
 * read from its headers and peer here, where the socket is known.
 */
const routes = ({ settings, readiness, probe, signIn, context, requests, serveMcp, shutdown }: Routes) => {
  const signInDocument = Option.map(signIn, SignInHttp.metadataDocument)
  // DNS rebinding: a page elsewhere must not reach a loopback server through a name it controls.
  const guards = isLoopback(settings.host)
    ? [hostHeaderValidation(loopbackNames(settings.host)), originValidation(localhostAllowedOrigins())]
    : []
  return async (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]
    const { draining } = shutdown
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      return sendJson(res, draining ? 503 : 200, { status: draining ? "draining" : "ok" })
    }
    if (path === "/readyz" && Option.isSome(readiness) && (req.method === "GET" || req.method === "HEAD")) {
      const state = draining ? { ready: false, reason: "draining" } : await probe(readiness.value)
      return sendJson(res, state.ready ? 200 : 503, { status: state.ready ? "ready" : "not ready", ...state })
    }
    if (Option.isSome(signIn) && Option.isSome(signInDocument)) {
      const answer = SignInHttp.wellKnown(signIn.value, signInDocument.value, path ?? "/", req.method ?? "GET")
      if (answer !== undefined) {
        if (answer.body === undefined) return void res.writeHead(answer.status, answer.headers).end()
        return sendJson(res, answer.status, answer.body, answer.headers)
      }
    }
    if (path !== "/mcp") return sendJson(res, 404, { error: "not found: the MCP endpoint is /mcp" })
    if (draining) {
      return sendJson(
        res,
        503,
        { jsonrpc: "2.0", error: { code: -32000, message: "The server is shutting down" }, id: null },
        { connection: "close", "retry-after": "1" },
      )
    }
    for (const guard of guards) if (!guard(req, res)) return
    // The SDK answers a declared oversize body with 413 at once and closes: a client still
    // sending it would see its connection reset instead. A body of a sane size is let through first.
    const declared = Number(req.headers["content-length"] ?? 0)
    if (declared > MAX_BODY_BYTES && declared <= 4 * MAX_BODY_BYTES) {
      await new Promise<void>((resolve) => {
        req.once("end", resolve).once("close", resolve).once("error", resolve).resume()
      })
    }
    const read = context.fromHeaders(req.headers, req.socket.remoteAddress)
    const brought =
      typeof read === "string"
        ? Brought.Refused({ reason: read })
        : Brought.Served({ context: read, session: Option.none() })
    const body = await bodyOf(req, declared)
    await requests.run(brought, () =>
      body === undefined || "parsed" in body
        ? serveMcp(req as unknown as NodeIncomingMessageLike, res, body?.parsed)
        : serveMcp(replayed(req, body.text), res),
    )
  }
}

/** The node server of `handle`: each request is a fiber of `inFlight` until its response closes. */
const nodeServer = (handle: ReturnType<typeof routes>, log: Log) =>
  Effect.gen(function* () {
    // Draining waits for the set to empty.
    const inFlight = yield* FiberSet.make<void>()
    const runFork = yield* FiberSet.runtime(inFlight)<never>()
    const http = NodeHttp.createServer((req, res) => {
      runFork(
        Effect.async<void>((resume) => {
          res.on("close", () => resume(Effect.void))
          handle(req, res).catch((error: unknown) => {
            log(`http: ${error instanceof Error ? error.message : String(error)}`)
            sendJson(res, 500, { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null })
          })
        }),
      )
    })
    // Slow clients may not hold sockets open forever.
    http.requestTimeout = 15 * 60 * 1000
    http.headersTimeout = 30_000
    // An idle connection is closed by the side that waits the longer no more: a balancer or client
    // that sends on a connection as this server closes it gets a reset (Node's 5 s made it common
    // under load). Kept past the usual balancers' idle time-outs (60 s), which then close first.
    http.keepAliveTimeout = KEEP_ALIVE_MS
    return { http, inFlight }
  })

/**
 * `http` listening until the scope closes; then it refuses new requests, lets those in flight
 * finish (for at most DRAIN_MS), closes the SDK's handler, and closes.
 */
const listening = (
  settings: HttpSettingsShape,
  { http, inFlight }: Effect.Effect.Success<ReturnType<typeof nodeServer>>,
  handler: ReturnType<typeof mcpHandler>,
  shutdown: Shutdown,
) =>
  Effect.acquireRelease(
    Effect.async<void, ListenError>((resume) => {
      http.once("error", (cause) =>
        resume(Effect.fail(new ListenError({ address: `${settings.host}:${settings.port}`, cause }))),
      )
      http.listen(settings.port, settings.host, () => resume(Effect.void))
    }),
    () =>
      Effect.gen(function* () {
        shutdown.draining = true
        http.close()
        http.closeIdleConnections()
        yield* FiberSet.awaitEmpty(inFlight).pipe(Effect.timeoutOption(DRAIN_MS))
        yield* Effect.promise(() => handler.close())
        http.closeAllConnections()
      }),
  )

/**
 * Listens until the scope closes; then it refuses new requests, lets those in
 * flight finish (for at most DRAIN_MS), and closes.
 */
export const listen = (settings: HttpSettingsShape): Effect.Effect<Serving, ListenError, Requirements | Scope.Scope> =>
  Effect.gen(function* () {
    const mcp = yield* make
    const context = yield* RequestContext.make
    const readiness = yield* Readiness
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runPromise(runtime)
    const log = (message: string) => Runtime.runFork(runtime)(Effect.logWarning(message))
    // Sign-in (OAuth), when its layer is provided: it excludes SVC_MCP_TOKEN (Settings/SignIn.ts).
    const signIn = yield* SignIn
    const requests: Requests = new AsyncLocalStorage()
    // Sessions and questions are signed with the replicas' shared key, so that any replica reads them.
    const key = Option.getOrElse((yield* TeamSettings).stateKey, Session.processKey)
    const asked: Asked = {
      sessions: Session.make(key),
      answers: Asking.make({ key, store: yield* Store, run, warn: log }),
    }
    const handler = mcpHandler(mcp, requests, asked, log)
    const serveMcp = gated(
      handler,
      tokenCheck(Option.map(settings.token, Redacted.value)),
      Option.map(signIn, (s) => SignInHttp.gate(s, runtime, MAX_BODY_BYTES)),
      requests,
      asked,
      log,
    )
    const shutdown: Shutdown = { draining: false }
    const probe = (ready: ReadinessShape) => run(ready.probe)
    const handle = routes({ settings, readiness, probe, signIn, context, requests, serveMcp, shutdown })
    const server = yield* nodeServer(handle, log)
    yield* listening(settings, server, handler, shutdown)
    const { port } = server.http.address() as AddressInfo
    const shownHost = settings.host.includes(":") ? `[${settings.host}]` : settings.host
    return { url: `http://${shownHost}:${port}/mcp` }
  })

/** Where `layerHttp` serves. */
export class HttpServing extends Context.Tag("svc-mcp/HttpServing")<HttpServing, Serving>() {}

/**
 * The tools served over Streamable HTTP for the life of the layer, for a
 * program that composes it with layers of its own; when the layer's scope
 * closes, calls in flight are drained as on shutdown.
 */
export const layerHttp = (settings: HttpSettingsShape): Layer.Layer<HttpServing, ListenError, Requirements> =>
  Layer.scoped(HttpServing, listen(settings))
