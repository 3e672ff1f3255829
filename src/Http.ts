/**
 * Requests to the service over node:http(s) with keep-alive: JSON in, status
 * and text out, bounded by the time-out (see Deadlines). Transport failures are classified
 * here; status codes are left to the caller.
 *
 * Plain node:http rather than a general HTTP client: per call it costs a
 * fraction of one (no web streams, abort signals or tracing spans), and a
 * tool call is little more than one request.
 */
import * as NodeHttp from "node:http"
import * as NodeHttps from "node:https"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Deadlines from "./Deadlines.js"
import { type Call, SvcTimeoutError, SvcUnreachableError } from "./SvcError.js"

export interface RawResponse {
  readonly status: number
  readonly text: string
  /** The Retry-After header, when the service sent one (with 429 or 503). */
  readonly retryAfter?: string
}

export interface Request {
  readonly method: "GET" | "POST"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}

export interface HttpShape {
  /** One request, read to its end, within `timeoutMs`; interrupting it aborts it. */
  readonly send: (
    call: Call,
    request: Request,
    timeoutMs: number,
  ) => Effect.Effect<RawResponse, SvcTimeoutError | SvcUnreachableError>
}

export class Http extends Context.Tag("svc-mcp/Http")<Http, HttpShape>() {}

type Reason = SvcUnreachableError["reason"]
const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/

const reasonOf = (code: string): Reason | undefined => {
  if (code === "ECONNREFUSED") return "Refused"
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return "DNS"
  if (TLS_CODE.test(code)) return "TLS"
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET") return "Reset"
  return undefined
}

/** fetch wraps the socket's error in `cause`, sometimes twice; the innermost code says most. */
export const classify = (error: unknown): { reason: Reason; detail: string } => {
  const details: Array<string> = []
  let reason: Reason | undefined
  let current: unknown = error
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    if (typeof current === "object") {
      const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown }
      if (typeof code === "string") reason = reasonOf(code) ?? reason
      if (typeof message === "string" && message !== "") {
        details.push(typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message)
      }
      current = cause
    } else {
      details.push(String(current))
      break
    }
  }
  return { reason: reason ?? "Network", detail: details.join(" <- ") || "the request failed" }
}

const exchange = (
  agents: { readonly http: NodeHttp.Agent; readonly https: NodeHttps.Agent },
  deadlines: Deadlines.Deadlines,
  call: Call,
  request: Request,
  timeoutMs: number,
): Effect.Effect<RawResponse, SvcTimeoutError | SvcUnreachableError> =>
  Effect.async<RawResponse, SvcTimeoutError | SvcUnreachableError>((resume) => {
    let settled = false
    let disarm = () => {}
    const settle = (result: Effect.Effect<RawResponse, SvcTimeoutError | SvcUnreachableError>) => {
      if (settled) return
      settled = true
      disarm()
      resume(result)
    }
    const failed = (error: unknown) => {
      const { reason, detail } = classify(error)
      settle(Effect.fail(new SvcUnreachableError({ call, reason, detail })))
    }
    let req: NodeHttp.ClientRequest
    try {
      const https = request.url.startsWith("https:")
      const headers: Record<string, string | number> = { ...request.headers }
      if (request.body !== undefined) headers["content-length"] = Buffer.byteLength(request.body)
      req = (https ? NodeHttps : NodeHttp).request(
        request.url,
        { method: request.method, headers, agent: https ? agents.https : agents.http },
        (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () => {
            const status = res.statusCode ?? 0
            const text = Buffer.concat(chunks).toString("utf8")
            const retryAfter = res.headers["retry-after"]
            settle(Effect.succeed(retryAfter === undefined ? { status, text } : { status, text, retryAfter }))
          })
          res.on("error", failed)
          res.on("close", () => {
            if (!res.complete) failed({ code: "ECONNRESET", message: "the connection closed before the answer ended" })
          })
        },
      )
    } catch (error) {
      return failed(error)
    }
    req.on("error", failed)
    req.end(request.body)
    disarm = deadlines.arm(timeoutMs, () => {
      settle(Effect.fail(new SvcTimeoutError({ call, timeoutMs })))
      req.destroy()
    })
    return Effect.sync(() => {
      settled = true
      disarm()
      req.destroy()
    })
  })

/**
 * Connections to the service at most, all kept open: more calls than this wait
 * for a free one rather than open and close connections as the load moves.
 */
const MAX_SOCKETS = 64

export const make = Effect.gen(function* () {
  const agents = yield* Effect.acquireRelease(
    Effect.sync(() => ({
      http: new NodeHttp.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS }),
      https: new NodeHttps.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS }),
    })),
    ({ http, https }) =>
      Effect.sync(() => {
        http.destroy()
        https.destroy()
      }),
  )
  const deadlines = yield* Deadlines.make
  return {
    send: (call, request, timeoutMs) => exchange(agents, deadlines, call, request, timeoutMs),
  } satisfies HttpShape
})

/** Connections to the service are kept alive and reused, and closed with the layer. */
export const layer: Layer.Layer<Http> = Layer.scoped(Http, make)

export const post = (
  http: HttpShape,
  call: Call,
  url: string,
  body: unknown,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Effect.Effect<RawResponse, SvcTimeoutError | SvcUnreachableError> =>
  Effect.suspend(() =>
    http.send(
      call,
      {
        method: "POST",
        url,
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
      },
      timeoutMs,
    ),
  )
