/**
 * Transport.send lets go of the service's connection when it stops reading an answer: past the
 * byte cap, and past SVC_TIMEOUT_MS mid-body, with our own client and with the clients an
 * embedding program brings (the platform's fetch, as docs/embedding.md shows, node:http and undici).
 * The service here never ends its answer nor closes anything itself: only the client can close
 * the connection, and each test waits for it to (bounded by the test's timeout).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Transport from "../../../src/Service/Transport.js"
import * as Servers from "../../support/Servers.js"

const CAP = 100_000
const CHUNK = "y".repeat(65_536)
/**
 * Long enough for the answer's first bytes to arrive first (a few ms on loopback): the limit is
 * reached mid-body. The service writes its 10,000 bytes as soon as the request reaches it, so what
 * the test checks holds on a loaded machine too, where the first bytes come later.
 */
const TIMEOUT_MS = 300

/** How one request's connection ended, as the service saw it. */
interface Closed {
  /** Body bytes the service had written when its connection closed. */
  readonly written: number
  /** Whether the service had ended its answer: it never does, so false. */
  readonly ended: boolean
}

/**
 * A service that answers 200 with `bytes` of body (announced as `length` when given), then
 * neither writes nor ends nor closes: `closed` settles when its caller closes the connection.
 */
const stalled = (bytes: number, length?: number) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; closed: Promise<Closed>; server: Http.Server }>((resume) => {
      let closed: (seen: Closed) => void = () => {}
      const seen = new Promise<Closed>((done) => {
        closed = done
      })
      const answer = { written: 0, ended: false }
      const server = Http.createServer((request, response) => {
        request.resume()
        response.writeHead(200, {
          "content-type": "application/json",
          ...(length === undefined ? {} : { "content-length": String(length) }),
        })
        response.on("finish", () => {
          answer.ended = true
        })
        const more = (): void => {
          while (answer.written < bytes && !response.destroyed) {
            const piece = CHUNK.slice(0, Math.min(CHUNK.length, bytes - answer.written))
            answer.written += piece.length
            if (!response.write(piece)) return void response.once("drain", more)
          }
        }
        more()
      })
      // From the connection's start, so that no close goes unseen, however early.
      server.on("connection", (socket) => socket.on("close", () => closed({ ...answer })))
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed: seen, server }),
        ),
      )
    }),
    // Only after the test: a connection the client left open would otherwise hold the release.
    ({ server }) => Effect.promise(() => Servers.close(server)),
  )

/** The client a layer gives, its resources (an agent, a dispatcher) held for the test's scope. */
const provided = (layer: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.map(Layer.build(layer), Context.get(HttpClient.HttpClient))

const clients: ReadonlyArray<readonly [string, Effect.Effect<HttpClient.HttpClient, never, Scope.Scope>]> = [
  ["our undici client (Transport.make)", Transport.make],
  ["the platform's fetch (FetchHttpClient)", provided(FetchHttpClient.layer)],
  ["the platform's node:http (NodeHttpClient.layer)", provided(NodeHttpClient.layer)],
  ["the platform's undici (NodeHttpClient.layerUndici)", provided(NodeHttpClient.layerUndici)],
]

const call = { group: "read", endpoint: "GetStackLog" } as const
const post = (url: string) => HttpClientRequest.post(`${url}/read/GetStackLog`)

// Each test waits on the real clock, on servers of its own: they wait at once.
describe.concurrent.each(clients)("Transport.send through %s", (_, client) => {
  it.scopedLive("an answer past the byte cap is cut, and its connection closed before the answer ends", () =>
    Effect.gen(function* () {
      const service = yield* stalled(4 * CAP)
      const exchange = yield* Transport.send(yield* client, call, post(service.url), 60_000, CAP)
      expect(exchange).toMatchObject({ status: 200, cut: true })
      expect(exchange.text).toBe("y".repeat(CAP))
      expect((yield* Effect.promise(() => service.closed)).ended).toBe(false)
    }),
  )

  it.scopedLive("so is one whose announced length is past the cap", () =>
    Effect.gen(function* () {
      const service = yield* stalled(4 * CAP, 100 * CAP)
      const exchange = yield* Transport.send(yield* client, call, post(service.url), 60_000, CAP)
      expect(exchange).toMatchObject({ status: 200, cut: true })
      expect(exchange.text.length).toBe(CAP)
      expect((yield* Effect.promise(() => service.closed)).ended).toBe(false)
    }),
  )

  // One test a client for every way the time-out is reached: the four clients' waits then fit
  // together in vitest's five tests at once, where eight would wait in two turns.
  it.scopedLive(
    "SVC_TIMEOUT_MS reached mid-body fails the call and closes its connection: no length announced, one under the cap, or no cap",
    () =>
      Effect.gen(function* () {
        const http = yield* client
        // Each on a service of its own, waiting on the clock at once.
        yield* Effect.forEach(
          [
            { length: undefined, cap: CAP },
            { length: 50_000, cap: CAP },
            { length: 50_000, cap: undefined },
          ],
          ({ length, cap }) =>
            Effect.gen(function* () {
              const service = yield* stalled(10_000, length)
              const error = yield* Effect.flip(Transport.send(http, call, post(service.url), TIMEOUT_MS, cap))
              expect(error).toMatchObject({ _tag: "SvcTimeoutError", timeoutMs: TIMEOUT_MS })
              expect(yield* Effect.promise(() => service.closed)).toEqual({ written: 10_000, ended: false })
            }),
          { concurrency: "unbounded", discard: true },
        )
      }),
  )
})
