/**
 * The sandbox's HTTP: bodies read up to the service's size, and answers in its
 * shape (JSON, and `{error, trace}` for a failure). A request is answered the
 * same whether it came over a socket (`listener`) or from the same process
 * (`inProcess`, Server.ts's `handle`), so that a test with no need of a socket
 * reaches the same service.
 */
import type * as Http from "node:http"
import { ServiceFailure } from "./World/Store.js"

const MAX_BODY = 4 * 1024 * 1024

/** A request as the sandbox reads it: an `IncomingMessage`, or the same fields from the same process. */
export interface WireRequest {
  readonly method?: string | undefined
  readonly url?: string | undefined
  readonly headers: Http.IncomingHttpHeaders
  /** The peer the service sees; from the same process, loopback. */
  readonly socket: { readonly remoteAddress?: string | undefined }
}

export interface WireAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** A request's answer: at once, or once a batch's pattern engine has loaded. */
export type Handle = (request: WireRequest, body: string) => WireAnswer | Promise<WireAnswer>

export const send = (status: number, body: unknown): WireAnswer => {
  const text = JSON.stringify(body)
  return {
    status,
    headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) },
    body: text,
  }
}

/** What a handler threw, as the service answers a failure. */
const asFailure = (error: unknown): ServiceFailure =>
  error instanceof ServiceFailure ? error : new ServiceFailure(500, String(error))

export const fail = (failure: ServiceFailure): WireAnswer =>
  send(failure.status, { error: failure.error, trace: failure.trace })

const TOO_LARGE = () => fail(new ServiceFailure(413, "the request body is too large"))

/** `handle`'s answer, or the failure it threw, as the service answers it. */
const answering = (handle: Handle, request: WireRequest, body: string): Promise<WireAnswer> => {
  try {
    return Promise.resolve(handle(request, body)).catch((error: unknown) => fail(asFailure(error)))
  } catch (error) {
    return Promise.resolve(fail(asFailure(error)))
  }
}

/** A request listener that reads the whole body, then answers it with `handle`. */
export const listener =
  (handle: Handle) =>
  (req: Http.IncomingMessage, res: Http.ServerResponse): void => {
    const respond = (answer: WireAnswer) => {
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
    }
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        respond(TOO_LARGE())
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => void answering(handle, req, Buffer.concat(chunks).toString("utf8")).then(respond))
  }

/** A request from the same process, answered as `listener` answers it over a socket, from loopback. */
export const inProcess =
  (handle: Handle) =>
  (request: Omit<WireRequest, "socket">, body: string): Promise<WireAnswer> =>
    Buffer.byteLength(body) > MAX_BODY
      ? Promise.resolve(TOO_LARGE())
      : answering(handle, { ...request, socket: { remoteAddress: "127.0.0.1" } }, body)
