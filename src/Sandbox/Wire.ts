/**
 * The sandbox's HTTP: bodies read up to the service's size, and answers in its
 * shape (JSON, and `{error, trace}` for a failure).
 */
import type * as Http from "node:http"
import { ServiceFailure } from "./World/Store.js"

const MAX_BODY = 4 * 1024 * 1024

export const send = (res: Http.ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

/** What a handler threw, as the service answers a failure. */
export const asFailure = (error: unknown): ServiceFailure =>
  error instanceof ServiceFailure ? error : new ServiceFailure(500, String(error))

export const fail = (res: Http.ServerResponse, failure: ServiceFailure): void =>
  send(res, failure.status, { error: failure.error, trace: failure.trace })

/** A request listener that reads the whole body, then hands it to `handle`; what it throws is answered as a failure. */
export const listener =
  (handle: (req: Http.IncomingMessage, res: Http.ServerResponse, body: string) => void) =>
  (req: Http.IncomingMessage, res: Http.ServerResponse): void => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        fail(res, new ServiceFailure(413, "the request body is too large"))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString("utf8"))
      } catch (error) {
        fail(res, asFailure(error))
      }
    })
  }
