/**
 * The outbound transport to the service: an `@effect/platform` HttpClient on an
 * undici Agent (UndiciClient), with connections kept alive and bounded and no
 * tracing spans. One exchange is a request sent and its answer read to
 * the end (status, text, and the two headers the client acts on), within
 * SVC_TIMEOUT_MS (see send). Transport failures become `SvcUnreachableError`
 * with a reason; status codes are left to the caller.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type * as Undici from "@effect/platform-node/Undici"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Once from "../Shared/Once.js"
import { SvcTimeoutError, SvcUnreachableError, type Target } from "./Errors.js"
import * as UndiciClient from "./UndiciClient.js"

export interface Exchange {
  readonly status: number
  readonly text: string
  /** The Retry-After header, when the service sent one (with 429 or 503). */
  readonly retryAfter?: string
  /** The Location header (where a redirect points), made absolute against the request's URL. */
  readonly location?: string
  /** Set when the body passed the byte cap: `text` is what arrived up to it, the rest never read. */
  readonly cut?: true
}

type Reason = SvcUnreachableError["reason"]
const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/

const reasonOf = (code: string): Reason | undefined => {
  if (code === "ECONNREFUSED") return "Refused"
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return "DNS"
  if (TLS_CODE.test(code)) return "TLS"
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET" || code === "UND_ERR_CLOSED") {
    return "Reset"
  }
  return undefined
}

/** The client wraps the socket's error in `cause`, sometimes more than once; the innermost code says most. */
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

/**
 * A request the client could not send, or an answer it could not read to its
 * end: what the socket said, not the HttpClient's wrapper around it.
 */
export const unreachable = (call: Target, error: HttpClientError.HttpClientError): SvcUnreachableError => {
  if (error._tag === "RequestError" && error.reason === "InvalidUrl") {
    return new SvcUnreachableError({ call, reason: "Network", detail: `the URL is not valid: ${error.request.url}` })
  }
  const { reason, detail } = classify(error.cause ?? error)
  return new SvcUnreachableError({ call, reason, detail })
}

const absolute = (location: string, base: string): string => {
  try {
    return new URL(location, base).href
  } catch {
    return location
  }
}

/**
 * Another client's body read up to `maxBytes`. The fold stops at the cap, and ending the stream
 * there ends its request: the platform's clients (fetch, node:http, undici; all made with
 * `HttpClient.make`) cancel the body's reader and abort the request when their response's stream
 * ends, so the connection is closed as the exchange returns (test/unit/Service/Transport.test.ts).
 * Our own client reads up to the cap itself (UndiciClient).
 */
const cappedText = (response: HttpClientResponse.HttpClientResponse, maxBytes: number) =>
  Number.isFinite(maxBytes) && !(Number(response.headers["content-length"] ?? Number.NaN) <= maxBytes)
    ? Effect.map(
        Stream.runFoldWhile(
          response.stream,
          { chunks: [] as Array<Uint8Array>, size: 0, cut: false },
          (read) => !read.cut,
          (read, chunk) => {
            const room = maxBytes - read.size
            const cut = chunk.length > room
            read.chunks.push(cut ? chunk.subarray(0, room) : chunk)
            return { chunks: read.chunks, size: read.size + Math.min(room, chunk.length), cut }
          },
        ),
        (read) => ({ text: Buffer.concat(read.chunks).toString("utf8"), cut: read.cut }),
      )
    : Effect.map(response.text, (text) => ({ text, cut: false }))

/** The body as read: our own client has read it up to the cap already, and says whether it cut it. */
const cutOf = (response: HttpClientResponse.HttpClientResponse, maxBytes: number) => {
  const cut = UndiciClient.cutOf(response)
  return cut === undefined ? cappedText(response, maxBytes) : Effect.map(response.text, (text) => ({ text, cut }))
}

const exchanged = (
  request: HttpClientRequest.HttpClientRequest,
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number,
) =>
  Effect.map(cutOf(response, maxBytes), ({ text, cut }): Exchange => {
    const { status } = response
    const headers = response.headers
    const retryAfter = headers["retry-after"]
    const location = headers.location
    return {
      status,
      text,
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(location === undefined ? {} : { location: absolute(location, request.url) }),
      ...(cut ? { cut: true } : {}),
    }
  })

/**
 * Sends `request` and reads its answer, up to `maxBytes` (past them the exchange says it is cut,
 * and the rest is never read), within `timeoutMs`; past it, the request is aborted and the
 * exchange fails with SvcTimeoutError.
 *
 * Our own client (UndiciClient) keeps that limit itself, with one timer. Any other
 * HttpClient (an embedding program's) is bounded by `Effect.timeoutFail` on the
 * Effect clock, which interrupts the request, or the reading of its body: the platform's
 * clients abort the request either way, closing its connection. The two differ only in cost: the
 * race forks two fibers per request, and at 200 calls in flight that was some
 * 20 % of the server's CPU per tool call (docs/benchmark.md).
 */
export const send = (
  client: HttpClient.HttpClient,
  call: Target,
  request: HttpClientRequest.HttpClientRequest,
  timeoutMs: number,
  maxBytes = Number.POSITIVE_INFINITY,
): Effect.Effect<Exchange, SvcTimeoutError | SvcUnreachableError> => {
  const onTimeout = () => new SvcTimeoutError({ call, timeoutMs })
  const kept = UndiciClient.executeWithin(client, request, timeoutMs, onTimeout, maxBytes)
  if (kept !== undefined) {
    return kept.pipe(
      Effect.flatMap((response) => exchanged(request, response, maxBytes)),
      Effect.mapError((error) => (error._tag === "SvcTimeoutError" ? error : unreachable(call, error))),
    )
  }
  return client.execute(request).pipe(
    Effect.flatMap((response) => exchanged(request, response, maxBytes)),
    Effect.mapError((error) => unreachable(call, error)),
    Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout }),
  )
}

/** `POST url` with `body` as JSON. */
export const postJson = (url: string, body: unknown, headers: Readonly<Record<string, string>>) =>
  HttpClientRequest.post(url, { headers }).pipe(
    HttpClientRequest.bodyText(JSON.stringify(body ?? {}), "application/json"),
  )

/**
 * Connections to the service at most, all kept open: more calls than this wait
 * for a free one rather than open and close connections as the load moves.
 */
export const MAX_CONNECTIONS = 64

/**
 * undici's Agent alone, with the client and pool beneath it: its index would load the whole
 * package (fetch, WebSocket, cookies, the mock agent), some 70 ms of CPU on the first call.
 */
const loadAgent = (): Promise<{ readonly default: new (options: Undici.Agent.Options) => Undici.Agent }> =>
  // @ts-expect-error undici types its package as a whole, not each of its modules
  import("undici/lib/dispatcher/agent.js")

/**
 * The client the service's modules use: undici (see UndiciClient), keep-alive,
 * at most MAX_CONNECTIONS connections, closed with the layer. It builds no
 * spans: telemetry's own hooks trace each service request when configured.
 *
 * undici's Agent (loadAgent) is loaded, and made, by the first request: a start that serves
 * tools/list and nothing else needs none of it, and loading it was the largest single part of
 * the start.
 */
export const make: Effect.Effect<HttpClient.HttpClient, never, Scope.Scope> = Effect.gen(function* () {
  const made = yield* Ref.make(Option.none<Undici.Agent>())
  yield* Effect.addFinalizer(() =>
    Effect.flatMap(Ref.get(made), (agent) =>
      Option.isSome(agent) ? Effect.promise(() => agent.value.destroy()) : Effect.void,
    ),
  )
  const agent = yield* Once.make(
    Effect.promise(loadAgent).pipe(
      // Its default export: undici is CommonJS, whose named exports a split chunk does not carry over.
      Effect.map((Agent) => new Agent.default({ connections: MAX_CONNECTIONS })),
      Effect.tap((agent) => Ref.set(made, Option.some(agent))),
    ),
  )
  return UndiciClient.make(agent)
})

/** `make` as a layer. */
export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(HttpClient.HttpClient, make)
