/**
 * The node HTTP server under the routes (Http.ts): its time-outs and connection cap, its
 * listening, and its drain on shutdown (the SDK's handler does not drain: its close aborts).
 */
import * as NodeHttp from "node:http"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import type { HttpLimits, HttpSettingsShape } from "../../Settings/Http.js"

/** How long an idle kept-alive connection stays open. */
const KEEP_ALIVE_MS = 65_000

/** How long a request's headers may take to arrive, at most. */
const HEADERS_MS = 10_000

/** How often the time-outs of requests under way are checked. */
const CHECK_EVERY_MS = 1_000

/** How long a shutdown lets calls in flight finish. */
export const DRAIN_MS = 10_000

/** Writes `text` as the whole answer, with its length; an answer already begun is only ended. */
export const sendText = (
  res: NodeHttp.ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) => {
  if (res.headersSent) return void res.end()
  res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(text) })
  res.end(text)
}

/** The HTTP mode's one writer of a JSON answer. */
export const sendJson = (
  res: NodeHttp.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => sendText(res, status, JSON.stringify(body), { "content-type": "application/json", ...headers })

export class ListenError extends Data.TaggedError("ListenError")<{
  readonly address: string
  readonly cause: unknown
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    return `cannot listen on ${this.address} (${code ?? String(this.cause)})${code === "EADDRINUSE" ? ": the port is taken" : ""}`
  }
}

/** Set once the server begins to close; read by each request as it arrives. */
export interface Shutdown {
  draining: boolean
}

type Handle = (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => Promise<void>

/** The node server of `handle`: each request is a fiber of `inFlight` until its response closes. */
export const nodeServer = (handle: Handle, limits: HttpLimits, log: (message: string) => void) =>
  Effect.gen(function* () {
    // Draining waits for the set to empty.
    const inFlight = yield* FiberSet.make<void>()
    const runFork = yield* FiberSet.runtime(inFlight)<never>()
    // Node looks for requests past their time-outs this often (30 s by default, longer than the time-outs).
    const http = NodeHttp.createServer({ connectionsCheckingInterval: CHECK_EVERY_MS }, (req, res) => {
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
    // Slow clients may not hold sockets open: a request arrives whole (headers and body) within
    // its time-out, its headers within HEADERS_MS of it; a refused one is closed before its body.
    http.requestTimeout = limits.requestMs
    http.headersTimeout = Math.min(HEADERS_MS, limits.requestMs)
    // More connections than this are closed as they come, before they cost anything.
    http.maxConnections = limits.maxConnections
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
export const listening = (
  settings: HttpSettingsShape,
  { http, inFlight }: Effect.Effect.Success<ReturnType<typeof nodeServer>>,
  handler: { readonly close: () => Promise<void> },
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
