/**
 * MCP over Streamable HTTP at /mcp, stateless: each request gets a server of
 * its own, so any number of instances can stand behind a load balancer.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { type HttpSettingsShape, isLoopback } from "../Config.js"
import { Readiness } from "../Readiness.js"
import * as RequestContext from "../RequestContext.js"
import { connect, make, type Requirements } from "./Server.js"

/** A larger body is refused with 413 before it is read to the end. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** How long a shutdown lets calls in flight finish. */
export const DRAIN_MS = 10_000

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compares in constant time: hashing first makes the lengths equal too. */
const sameToken = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected))

const hostnameOf = (hostHeader: string) => {
  try {
    return new URL(`http://${hostHeader}`).hostname
  } catch {
    return undefined
  }
}

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

const rpcError = (
  res: NodeHttp.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
) => sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers)

/** Reads the body, at most MAX_BODY_BYTES; undefined when it is larger (413 is sent). */
const readBody = (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) =>
  new Promise<string | undefined>((resolve, reject) => {
    const tooLarge = () => {
      rpcError(res, 413, -32600, `The request body is larger than ${MAX_BODY_BYTES} bytes`, { connection: "close" })
      resolve(undefined)
    }
    if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
      req.resume()
      return tooLarge()
    }
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        req.destroy()
        return tooLarge()
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

export class ListenError extends Data.TaggedError("ListenError")<{
  readonly address: string
  readonly cause: unknown
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    return `cannot listen on ${this.address} (${code ?? String(this.cause)})${code === "EADDRINUSE" ? ": the port is taken" : ""}`
  }
}

export interface Serving {
  /** The URL of the MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string
}

/**
 * Listens until the scope closes; then it refuses new requests, lets those in
 * flight finish (for at most DRAIN_MS), and closes.
 */
export const listen = (settings: HttpSettingsShape): Effect.Effect<Serving, ListenError, Requirements | Scope.Scope> =>
  Effect.gen(function* () {
    const mcp = yield* make
    const context = yield* RequestContext.make
    const readiness = yield* Effect.serviceOption(Readiness)
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runPromise(runtime)
    const log = (message: string) => Runtime.runFork(runtime)(Effect.logWarning(message))
    const loopback = isLoopback(settings.host)
    const token = Option.map(settings.token, Redacted.value)
    let draining = false
    let active = 0
    let drained: (() => void) | undefined

    const handle = async (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => {
      const path = (req.url ?? "/").split("?")[0]
      if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
        return sendJson(res, draining ? 503 : 200, { status: draining ? "draining" : "ok" })
      }
      if (path === "/readyz" && Option.isSome(readiness) && (req.method === "GET" || req.method === "HEAD")) {
        const state = draining ? { ready: false, reason: "draining" } : await run(readiness.value.probe)
        return sendJson(res, state.ready ? 200 : 503, { status: state.ready ? "ready" : "not ready", ...state })
      }
      if (path !== "/mcp") return sendJson(res, 404, { error: "not found: the MCP endpoint is /mcp" })
      if (draining)
        return rpcError(res, 503, -32000, "The server is shutting down", { connection: "close", "retry-after": "1" })
      // DNS rebinding: a page elsewhere must not reach a loopback server through a name it controls.
      if (loopback) {
        const host = hostnameOf(req.headers.host ?? "")
        const origin = req.headers.origin
        const originHost = origin === undefined ? undefined : hostnameOf(origin.replace(/^[a-z]+:\/\//i, ""))
        if (
          host === undefined ||
          !isLoopback(host) ||
          (origin !== undefined && (originHost === undefined || !isLoopback(originHost)))
        ) {
          return rpcError(res, 403, -32000, "Forbidden: the Host or Origin is not this machine")
        }
      }
      if (Option.isSome(token)) {
        const [scheme, given] = (req.headers.authorization ?? "").split(" ")
        if (scheme?.toLowerCase() !== "bearer" || given === undefined || !sameToken(given, token.value)) {
          return rpcError(res, 401, -32001, "Unauthorized: send Authorization: Bearer <SVC_MCP_TOKEN>", {
            "www-authenticate": 'Bearer realm="svc-mcp"',
          })
        }
      }
      const around = context.fromHeaders(req.headers)
      if (typeof around === "string") return rpcError(res, 401, -32001, around)
      if (req.method !== "POST") {
        return rpcError(res, 405, -32000, "Method not allowed: this server is stateless; POST JSON-RPC to /mcp", {
          allow: "POST",
        })
      }
      const text = await readBody(req, res)
      if (text === undefined) return
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return rpcError(res, 400, -32700, "Parse error: the body is not JSON")
      }
      const server = mcp.create(around)
      // No sessionIdGenerator: the transport is stateless, one per request.
      const transport = new StreamableHTTPServerTransport({})
      res.on("close", () => {
        void transport.close()
        void server.close()
      })
      await connect(server, transport)
      await transport.handleRequest(req, res, body)
    }

    const http = NodeHttp.createServer((req, res) => {
      active++
      res.on("close", () => {
        if (--active === 0) drained?.()
      })
      handle(req, res).catch((error: unknown) => {
        log(`http: ${error instanceof Error ? error.message : String(error)}`)
        rpcError(res, 500, -32603, "Internal error")
      })
    })
    // Slow clients may not hold sockets open forever.
    http.requestTimeout = 15 * 60 * 1000
    http.headersTimeout = 30_000

    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        http.once("error", (cause) =>
          resume(Effect.fail(new ListenError({ address: `${settings.host}:${settings.port}`, cause }))),
        )
        http.listen(settings.port, settings.host, () => resume(Effect.void))
      }),
      () =>
        Effect.promise(async () => {
          draining = true
          http.close()
          http.closeIdleConnections()
          if (active > 0) {
            await new Promise<void>((resolve) => {
              drained = resolve
              setTimeout(resolve, DRAIN_MS).unref()
            })
          }
          http.closeAllConnections()
        }),
    )
    const { port } = http.address() as AddressInfo
    const shownHost = settings.host.includes(":") ? `[${settings.host}]` : settings.host
    return { url: `http://${shownHost}:${port}/mcp` }
  })
