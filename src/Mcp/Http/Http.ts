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
 * the routes (/mcp, /healthz, /readyz, and with sign-in the secret pages and its protected resource
 * metadata), the token's constant-time comparison or sign-in's gate (Mcp/Http/BearerGate.ts),
 * and draining on shutdown, which the SDK's handler does not do (its close aborts).
 */
import { AsyncLocalStorage } from "node:async_hooks"
import type * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { hostHeaderValidation, type NodeIncomingMessageLike, originValidation } from "@modelcontextprotocol/node"
import { type AuthInfo, localhostAllowedHostnames, localhostAllowedOrigins } from "@modelcontextprotocol/server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { SecretPages } from "../../Confirmation/SecretPages.js"
import * as AuditPeople from "../../Operations/AuditPeople.js"
import { Readiness, type ReadinessShape, type ReadyState } from "../../Operations/Readiness.js"
import * as RequestContext from "../../Operations/RequestContext.js"
import { DEFAULT_LIMITS, type HttpLimits, type HttpSettingsShape, isLoopback } from "../../Settings/Http.js"
import { TeamSettings } from "../../Settings/Team.js"
import * as Runner from "../../Shared/Runner.js"
import { type Admitted, SignIn, type SignInShape } from "../../SignIn/Resource.js"
import * as SignedInPages from "../../SignIn/SignedInPages.js"
import { Store } from "../../Store/Store.js"
import * as Answers from "../Asking/Answers.js"
import type * as Asking from "../Asking/Asking.js"
import * as Session from "../Asking/Session.js"
import { make, type Requirements as ServerRequirements } from "../Server/Server.js"
import * as SignInHttp from "./BearerGate.js"
import * as HttpBody from "./HttpBody.js"
import * as HttpGate from "./HttpGate.js"
import { type ListenError, listening, nodeServer, type Shutdown, sendJson } from "./HttpServer.js"
import { Admission, gated, MAX_BODY_BYTES, mcpHandler, type Requests } from "./McpHandler.js"
import * as Token from "./Token.js"

export { DRAIN_MS, ListenError } from "./HttpServer.js"

/** What serving over HTTP needs: the tools' (Server.ts) and the shared store the tools bundle provides; a request's context and `/readyz`'s probe read what is provided. */
export type Requirements = ServerRequirements | Store

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

/** What the routes answer from, made once for the server's life. */
interface Routes {
  readonly settings: HttpSettingsShape
  readonly readiness: Context.Tag.Service<Readiness>
  readonly probe: (readiness: ReadinessShape) => Promise<ReadyState>
  readonly signIn: Option.Option<SignInShape>
  /** Sign-in's check of the access token, on the headers. */
  readonly verify: Option.Option<ReturnType<typeof SignInHttp.verify>>
  readonly context: RequestContext.RequestContext
  readonly requests: Requests
  readonly serveMcp: ReturnType<typeof gated>
  readonly shutdown: Shutdown
  /** With sign-in and its pages' client: the secrets' pages and forms (SignIn/SignedInPages.ts). */
  readonly pages: Option.Option<SignedInPages.Route>
}

const BAD_HOST = { error: "the Host header names no host (a name or an address, and a port)" }

/**
 * Whether `/readyz` may name the service's and the store's addresses, and say why it is not ready:
 * to a request carrying SVC_MCP_TOKEN; with sign-in (which has no such token), to one carrying an
 * access token checked as /mcp checks it, of a person with an entry, that holds the broadest
 * scope (svc.write, prefixed): whoever may change everything may read where it is; without
 * either, on the loopback-only server.
 */
const showsAddresses = async (
  { settings, signIn, verify }: Pick<Routes, "settings" | "signIn" | "verify">,
  authorization: string | undefined,
): Promise<boolean> => {
  if (Option.isSome(settings.token)) return Token.carries(Redacted.value(settings.token.value), authorization)
  if (Option.isNone(signIn) || Option.isNone(verify)) return true
  if (authorization === undefined) return false
  const checked = await verify.value(authorization)
  return !(checked instanceof Response) && signIn.value.scopes.allows(checked.identity.scopes, "write")
}

/**
 * The routes: /healthz, /readyz (when readiness is provided), sign-in's metadata, and /mcp, which
 * the DNS rebinding guards and the SDK's body limit stand before; each /mcp request's context is
 * read from its headers and peer here, where the socket is known.
 */
const routes = (given: Routes) => {
  const { settings, readiness, probe, signIn, shutdown, pages } = given
  const signInDocument = Option.map(signIn, SignInHttp.metadataDocument)
  // DNS rebinding: a page elsewhere must not reach a loopback server through a name it controls.
  const guards = isLoopback(settings.host)
    ? [hostHeaderValidation(loopbackNames(settings.host)), originValidation(localhostAllowedOrigins())]
    : []
  const mcp = mcpRoute(given, guards)
  return async (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => {
    if (!HttpGate.hostAcceptable(req)) return HttpGate.refuseNow(res, 400, BAD_HOST)
    const path = (req.url ?? "/").split("?")[0]
    const { draining } = shutdown
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      return sendJson(res, draining ? 503 : 200, { status: draining ? "draining" : "ok" })
    }
    if (path === "/readyz" && Option.isSome(readiness) && (req.method === "GET" || req.method === "HEAD")) {
      const state = draining ? { ready: false, reason: "draining" } : await probe(readiness.value)
      const shown = await showsAddresses(given, req.headers.authorization)
      return sendJson(res, state.ready ? 200 : 503, {
        status: state.ready ? "ready" : "not ready",
        ...(shown ? state : HttpGate.withoutAddresses(state, Option.isSome(signIn))),
      })
    }
    if (Option.isSome(signIn) && Option.isSome(signInDocument)) {
      const answer = SignInHttp.wellKnown(signIn.value, signInDocument.value, path ?? "/", req.method ?? "GET")
      if (answer !== undefined) {
        if (answer.body === undefined) return void res.writeHead(answer.status, answer.headers).end()
        return sendJson(res, answer.status, answer.body, answer.headers)
      }
    }
    if (Option.isSome(pages) && path?.startsWith(SignedInPages.PREFIX)) return pages.value(req, res)
    if (path !== "/mcp") return sendJson(res, 404, { error: "not found: the MCP endpoint is /mcp" })
    return mcp(req, res, draining)
  }
}

/** /mcp: refused while draining, by the DNS rebinding guards, and unauthenticated, before its body is read. */
const mcpRoute = (
  { settings, verify, context, requests, serveMcp }: Routes,
  guards: ReadonlyArray<(req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => boolean>,
) => {
  const authenticate = Token.check(Option.map(settings.token, Redacted.value))
  return async (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse, draining: boolean) => {
    if (draining) {
      return sendJson(
        res,
        503,
        { jsonrpc: "2.0", error: { code: -32000, message: "The server is shutting down" }, id: null },
        { connection: "close", "retry-after": "1" },
      )
    }
    for (const guard of guards) if (!guard(req, res)) return
    // Authentication first: the token or sign-in's access token (signature, issuer, audience,
    // expiry), then the credentials per-request mode needs, on the headers alone; a refused
    // request's body is never read, and its connection is closed.
    let authInfo: AuthInfo | undefined
    if (Option.isSome(authenticate)) {
      const checked = await authenticate.value(req.headers.authorization)
      if (checked instanceof Response) return HttpGate.respondNow(res, checked)
      authInfo = checked
    }
    let admitted: Admitted | undefined
    if (Option.isSome(verify)) {
      const checked = await verify.value(req.headers.authorization)
      if (checked instanceof Response) return HttpGate.respondNow(res, checked)
      admitted = checked
    }
    const start = context.fromHeaders(req.headers, req.socket.remoteAddress)
    if (Either.isLeft(start)) {
      return HttpGate.refuseNow(res, 401, { jsonrpc: "2.0", error: { code: -32001, message: start.left }, id: null })
    }
    // The SDK answers a declared oversize body with 413 at once and closes: a client still
    // sending it would see its connection reset instead. A body of a sane size is let through first.
    const declared = Number(req.headers["content-length"] ?? 0)
    if (declared > MAX_BODY_BYTES && declared <= 4 * MAX_BODY_BYTES) {
      await new Promise<void>((resolve) => {
        req.once("end", resolve).once("close", resolve).once("error", resolve).resume()
      })
    }
    const admission = Admission.Served({
      context: start.right,
      session: Option.none(),
      ...(authInfo === undefined ? {} : { authInfo }),
      ...(admitted === undefined ? {} : { admitted }),
    })
    const body = await HttpBody.bodyOf(req, declared, MAX_BODY_BYTES)
    await requests.run(admission, () =>
      body === undefined || "parsed" in body
        ? serveMcp(req as unknown as NodeIncomingMessageLike, res, body?.parsed)
        : serveMcp(HttpBody.replayed(req, body.text), res),
    )
  }
}

/**
 * Listens until the scope closes; then it refuses new requests, lets those in
 * flight finish (for at most DRAIN_MS), and closes.
 */
export const listen = (settings: HttpSettingsShape): Effect.Effect<Serving, ListenError, Requirements | Scope.Scope> =>
  Effect.gen(function* () {
    // Sign-in (OAuth), when its layer is provided: it excludes SVC_MCP_TOKEN (Settings/SignIn.ts).
    const signIn = yield* SignIn
    const { pages: served, route: pages } = yield* SignedInPages.over(Option.map(signIn, (s) => s.settings))
    const mcp = yield* Effect.provideService(make, SecretPages, served)
    const context = yield* RequestContext.make
    const readiness = yield* Readiness
    const runner = yield* Runner.current
    const run = runner.promise
    const log = (message: string) => runner.fork(Effect.logWarning(message))
    const requests: Requests = new AsyncLocalStorage()
    // Sessions and questions are signed with the replicas' shared key, so that any replica reads them.
    const key = Option.getOrElse((yield* TeamSettings).stateKey, Session.processKey)
    const limits: HttpLimits = { ...DEFAULT_LIMITS, ...settings.limits }
    const asked: Asking.Asked = {
      sessions: Session.make(key, { lifetimeMs: limits.sessionMs }),
      // The replicas' shared store, where one is provided: answers landing on another replica reach the call through it.
      answers: Answers.make({ key, store: yield* Store, run, warn: log, limits }),
    }
    const handler = mcpHandler(mcp, requests, asked, log, (admitted) =>
      Option.isSome(signIn) ? SignInHttp.reachOf(signIn.value, admitted) : undefined,
    )
    const premint = SignInHttp.premintWith(yield* SignInHttp.mintersOf, run)
    const audited: SignInHttp.Audited = (refusal) => run(AuditPeople.refusal(refusal))
    const serveMcp = gated(
      handler,
      Token.bindingOf(Option.map(settings.token, Redacted.value)),
      Option.map(signIn, (s) => SignInHttp.gate(s, MAX_BODY_BYTES, premint, audited)),
      requests,
      asked,
      log,
    )
    const shutdown: Shutdown = { draining: false }
    const probe = (ready: ReadinessShape) => run(ready.probe)
    const verify = Option.map(signIn, (s) => SignInHttp.verify(s, runner, audited))
    const handle = routes({ settings, readiness, probe, signIn, verify, context, requests, serveMcp, shutdown, pages })
    const server = yield* nodeServer(handle, limits, log)
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
