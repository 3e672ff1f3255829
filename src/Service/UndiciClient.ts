/**
 * An `@effect/platform` HttpClient on an undici dispatcher, for small JSON
 * exchanges: the request is dispatched with undici's handler interface and its
 * answer collected whole before the client answers, so the response's body is
 * already a value.
 *
 * Why not the platform's own (`NodeHttpClient.makeUndici`, `layerUndici`): per
 * request it builds an AbortController and its listener, registers the response
 * with a FinalizationRegistry, and reads the body through undici's body stream and
 * a promise. Measured in the bench at 200 requests in flight, alternated with this
 * client in the same runs, a tool call cost the server about 30 % more CPU with it,
 * and its calls per second were 0.75 to 1.2x the bare SDK server's where this
 * client's were 0.99 to 1.38x (docs/benchmark.md has the figures).
 * This client is built with `HttpClient.makeWith`, the platform's own constructor
 * beneath `make`, and does none of that: interrupting the request (a cancelled
 * call) aborts it through undici's dispatch controller.
 *
 * It can also keep a request's time limit itself (`executeWithin`), with one
 * Node timer, where `Effect.timeoutFail` would race the request against a sleep
 * in two fibers: see Transport.send for what that costs. A client made from it
 * (`HttpClient.mapRequest` and the like) is another client, which Transport.send
 * bounds with `Effect.timeoutFail`.
 *
 * An answer can be read up to a byte cap (`executeWithin`): what arrived up to it is the
 * response's body, marked cut, and the request is aborted, the rest never read.
 *
 * Bodies: empty, bytes and raw (string or bytes). A stream or form-data body is
 * refused with a RequestError ("Encode"): nothing here sends one.
 */
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import type * as Undici from "@effect/platform-node/Undici"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

type RawHeaders = Record<string, string | ReadonlyArray<string> | undefined>

/** A response whose body has been read whole. */
class WholeResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  private parsedHeaders: Headers.Headers | undefined

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly status: number,
    private readonly rawHeaders: RawHeaders,
    readonly body: Buffer,
    /** Whether the body was cut at the exchange's byte cap, the rest of it never read. */
    readonly cut = false,
  ) {
    super()
  }

  get headers(): Headers.Headers {
    this.parsedHeaders ??= Headers.fromInput(this.rawHeaders)
    return this.parsedHeaders
  }

  get cookies(): Cookies.Cookies {
    const header = this.rawHeaders["set-cookie"]
    if (header === undefined) return Cookies.empty
    return Cookies.fromSetCookie(typeof header === "string" ? [header] : header)
  }

  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }

  private decodeError(cause: unknown) {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.succeed(this.body.toString("utf8"))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.try({
      try: () => {
        const text = this.body.toString("utf8")
        return text === "" ? null : JSON.parse(text)
      },
      catch: (cause) => this.decodeError(cause),
    })
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.try({
      try: () => UrlParams.fromInput(new URLSearchParams(this.body.toString("utf8"))),
      catch: (cause) => this.decodeError(cause),
    })
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.sync(() => new Uint8Array(this.body).buffer)
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.succeed(new Uint8Array(this.body))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.tryPromise({
      try: () => new Response(new Uint8Array(this.body), { headers: this.headers }).formData(),
      catch: (cause) => this.decodeError(cause),
    })
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status,
    })
  }
}

const bodyOf = (request: HttpClientRequest.HttpClientRequest): Uint8Array | string | null | undefined => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return null
    case "Uint8Array":
      return body.body
    case "Raw":
      return typeof body.body === "string" || body.body instanceof Uint8Array ? body.body : undefined
    default:
      return undefined
  }
}

/** A request's time limit, kept by the exchange itself: past `ms`, it is aborted and fails with `onTimeout()`. */
interface Limit<E> {
  readonly ms: number
  readonly onTimeout: () => E
}

/**
 * The longest time a Node timer holds (about 24.8 days): a longer one would fire at
 * once. A limit beyond it is no limit, as on the Effect clock.
 */
const MAX_TIMER_MS = 2 ** 31 - 1

type Outcome<E> = Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError | E>

/**
 * One request's state and the handler undici tells its response to: one object
 * per request, whose steps are its methods. Settled once: by the response's end
 * or error, its limit passing, or its interruption, whichever comes first.
 */
class Exchange<E> implements Undici.Dispatcher.DispatchHandler {
  private settled = false
  timer: ReturnType<typeof setTimeout> | undefined = undefined
  private controller: Undici.Dispatcher.DispatchController | undefined = undefined
  private interrupted = false
  private started: { status: number; headers: RawHeaders } | undefined = undefined
  private readonly chunks: Array<Buffer> = []
  private size = 0

  constructor(
    private readonly request: HttpClientRequest.HttpClientRequest,
    private readonly resumeOnce: (effect: Outcome<E>) => void,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  resume(effect: Outcome<E>): void {
    if (this.settled) return
    this.settled = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.resumeOnce(effect)
  }

  onRequestStart(control: Undici.Dispatcher.DispatchController): void {
    this.controller = control
    if (this.interrupted) control.abort(new Error("the request was interrupted"))
  }

  onResponseStart(_: Undici.Dispatcher.DispatchController, status: number, headers: unknown): void {
    this.started = { status, headers: headers as RawHeaders }
  }

  onResponseData(control: Undici.Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return
    const room = this.maxBytes - this.size
    if (chunk.length <= room) {
      this.chunks.push(chunk)
      this.size += chunk.length
      return
    }
    // The cap: what arrived up to it is the answer; the rest is never read, its request aborted.
    this.chunks.push(chunk.subarray(0, room))
    this.size += room
    this.finish(true)
    control.abort(new Error("the answer passed its byte cap"))
  }

  onResponseEnd(): void {
    this.finish(false)
  }

  private finish(cut: boolean): void {
    const answer = this.started ?? { status: 0, headers: {} }
    const { chunks } = this
    const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
    this.chunks.length = 0
    this.resume(Effect.succeed(new WholeResponse(this.request, answer.status, answer.headers, whole, cut)))
  }

  onResponseError(_: Undici.Dispatcher.DispatchController, cause: Error): void {
    const { request, started } = this
    if (started === undefined) {
      return this.resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause })))
    }
    const response = new WholeResponse(request, started.status, started.headers, Buffer.alloc(0))
    this.resume(Effect.fail(new HttpClientError.ResponseError({ request, response, reason: "Decode", cause })))
  }

  /** Its limit passed: settled first, as aborting calls onResponseError at once, whose error is not the one to tell. */
  expire(error: E): void {
    this.resume(Effect.fail(error))
    this.interrupted = true
    this.controller?.abort(new Error("the request's time limit passed"))
  }

  interrupt(): void {
    this.settled = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.interrupted = true
    this.controller?.abort(new Error("the request was interrupted"))
  }
}

/** One request, dispatched and read to its end; interrupting it, or its limit passing, aborts it. */
const exchange = <E = never>(
  dispatcher: Undici.Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  limit?: Limit<E>,
  maxBytes?: number,
): Outcome<E> =>
  Effect.async((resumeOnce) => {
    const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
    if (url._tag === "Left") {
      return resumeOnce(
        Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left })),
      )
    }
    const body = bodyOf(request)
    if (body === undefined) {
      const description = `a ${request.body._tag} body is not supported by this client`
      return resumeOnce(Effect.fail(new HttpClientError.RequestError({ request, reason: "Encode", description })))
    }
    const state = new Exchange<E>(request, resumeOnce, maxBytes)
    if (limit !== undefined && limit.ms <= MAX_TIMER_MS) {
      state.timer = setTimeout(() => state.expire(limit.onTimeout()), limit.ms)
    }
    try {
      dispatcher.dispatch(
        {
          origin: url.right.origin,
          path: url.right.pathname + url.right.search,
          method: request.method,
          headers: request.headers,
          body,
          // 0: undici's own timers are off: a request's time limit is the exchange's own (one timer
          // over the whole exchange), or Effect.timeoutFail around the client (Transport.send).
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        state,
      )
    } catch (cause) {
      return state.resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause })))
    }
    return Effect.sync(() => state.interrupt())
  })

const LimitedTypeId: unique symbol = Symbol.for("svc-mcp/UndiciClient/Limited")

/** A client that keeps a request's time limit and its answer's byte cap itself, with one timer and no fiber. */
export interface Limited {
  readonly [LimitedTypeId]: <E>(
    request: HttpClientRequest.HttpClientRequest,
    ms: number,
    onTimeout: () => E,
    maxBytes?: number,
  ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError | E>
}

/**
 * Whether a response of this client was cut at its byte cap (`executeWithin`'s `maxBytes`);
 * `undefined` for another client's response, which this client did not read.
 */
export const cutOf = (response: HttpClientResponse.HttpClientResponse): boolean | undefined =>
  response instanceof WholeResponse ? response.cut : undefined

/**
 * `request` through `client` within `ms`, its answer read up to `maxBytes` (`cutOf` says whether
 * it was cut), when the client is one of these (see Transport.send); `undefined` for any other
 * client. A client built from one of these (`HttpClient.mapRequest`...) is another client and
 * answers `undefined`.
 */
export const executeWithin = <E>(
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  ms: number,
  onTimeout: () => E,
  maxBytes?: number,
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError | E> | undefined =>
  LimitedTypeId in client
    ? (client as HttpClient.HttpClient & Limited)[LimitedTypeId](request, ms, onTimeout, maxBytes)
    : undefined

/**
 * The client, on `dispatcher` (an undici Agent: its connections are kept alive and
 * bounded), or on the dispatcher an Effect makes, once, when the first request needs it.
 */
export const make = (dispatcher: Undici.Dispatcher | Effect.Effect<Undici.Dispatcher>): HttpClient.HttpClient => {
  const ready = Effect.isEffect(dispatcher) ? dispatcher : Effect.succeed(dispatcher)
  const client = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    Effect.flatMap((request) => Effect.flatMap(ready, (it) => exchange(it, request))),
    Effect.succeed,
  )
  const within: Limited[typeof LimitedTypeId] = (request, ms, onTimeout, maxBytes) =>
    Effect.flatMap(ready, (it) => exchange(it, request, { ms, onTimeout }, maxBytes))
  return Object.assign(client, { [LimitedTypeId]: within })
}
