import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Undici from "@effect/platform-node/Undici"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { identity } from "effect/Function"
import * as Stream from "effect/Stream"
import * as Transport from "../../../src/Service/Transport.js"
import * as UndiciClient from "../../../src/Service/UndiciClient.js"
import * as Servers from "../../support/Servers.js"
import { until } from "../../support/Wait.js"

interface Seen {
  readonly method: string
  readonly url: string
  readonly body: string
}

/** A server on 127.0.0.1 that records each request and answers with `answer`, for the scope. */
const serve = (answer: (request: Http.IncomingMessage, response: Http.ServerResponse, body: string) => void) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; seen: Array<Seen>; server: Http.Server }>((resume) => {
      const seen: Array<Seen> = []
      const server = Http.createServer((request, response) => {
        let body = ""
        request.setEncoding("utf8")
        request.on("data", (chunk: string) => {
          body += chunk
        })
        request.on("end", () => {
          seen.push({ method: request.method ?? "", url: request.url ?? "", body })
          answer(request, response, body)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server })),
      )
    }),
    // Its callers' connections are closed with it, so that a test failing with a request still in flight
    // does not hold the release too. (A client past the byte cap closes its own: Transport.test.ts.)
    ({ server }) => Effect.promise(() => Servers.close(server)),
  )

const client = Effect.acquireRelease(
  Effect.sync(() => new Undici.Agent({ connections: 4 })),
  (agent) => Effect.promise(() => agent.destroy()),
).pipe(Effect.map(UndiciClient.make))

describe("UndiciClient", () => {
  it.scoped("sends the method, path, query and body, and reads an answer of many chunks whole", () =>
    Effect.gen(function* () {
      const big = "x".repeat(1_000_000)
      const service = yield* serve((_, response) => {
        response.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] })
        // Written in pieces, so that the answer arrives in several chunks.
        for (let i = 0; i < 10; i++) response.write(big.slice(i * 100_000, (i + 1) * 100_000))
        response.end()
      })
      const http = yield* client
      const request = HttpClientRequest.post(`${service.url}/read/GetStack`).pipe(
        HttpClientRequest.setUrlParam("q", "a b"),
        HttpClientRequest.bodyText('{"stack":"web"}', "application/json"),
      )
      const response = yield* http.execute(request)
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(response.cookies.cookies.a?.value).toBe("1")
      expect(response.cookies.cookies.b?.value).toBe("2")
      const text = yield* response.text
      expect(text.length).toBe(big.length)
      expect(text === big).toBe(true)
      const streamed = yield* Stream.runCollect(response.stream)
      expect(Chunk.reduce(streamed, 0, (n, bytes) => n + bytes.length)).toBe(big.length)
      expect(service.seen).toEqual([{ method: "POST", url: "/read/GetStack?q=a+b", body: '{"stack":"web"}' }])
    }),
  )

  it.scoped("an answer that is not JSON fails json with a Decode error; an empty one is null", () =>
    Effect.gen(function* () {
      const service = yield* serve((request, response) => response.end(request.url === "/empty" ? "" : "<html>"))
      const http = yield* client
      const bad = yield* Effect.flip(
        Effect.flatMap(http.execute(HttpClientRequest.get(`${service.url}/html`)), (r) => r.json),
      )
      expect(bad._tag).toBe("ResponseError")
      expect(bad.reason).toBe("Decode")
      const empty = yield* Effect.flatMap(http.execute(HttpClientRequest.get(`${service.url}/empty`)), (r) => r.json)
      expect(empty).toBeNull()
    }),
  )

  it.scoped("a stream body is refused before anything is sent", () =>
    Effect.gen(function* () {
      const service = yield* serve((_, response) => response.end("{}"))
      const http = yield* client
      const request = HttpClientRequest.post(`${service.url}/x`).pipe(
        HttpClientRequest.bodyStream(Stream.make(new Uint8Array([1, 2, 3]))),
      )
      const error = yield* Effect.flip(http.execute(request))
      expect(error._tag).toBe("RequestError")
      expect(error.reason).toBe("Encode")
      expect(service.seen).toEqual([])
    }),
  )

  it.scoped("a connection closed before the answer is a Transport error, with the socket's code", () =>
    Effect.gen(function* () {
      const service = yield* serve((request) => request.socket.destroy())
      const http = yield* client
      const error = yield* Effect.flip(http.execute(HttpClientRequest.post(`${service.url}/x`)))
      expect(error._tag).toBe("RequestError")
      expect(error.reason).toBe("Transport")
      expect(String((error.cause as { code?: unknown }).code)).toMatch(/^UND_ERR_SOCKET|ECONNRESET$/)
    }),
  )

  // Each test waits on the real clock, on servers of its own: they wait at once.
  describe.concurrent("executeWithin: the request's time limit, kept by the client", () => {
    /** A service that never answers, and counts the connections its callers closed. */
    const silent = Effect.gen(function* () {
      const closed = { count: 0 }
      const service = yield* serve((request) => request.socket.on("close", () => closed.count++))
      return { ...service, closed }
    })
    const within = (http: HttpClient.HttpClient, url: string, ms: number, counted: { count: number }) => {
      const request = HttpClientRequest.post(url).pipe(HttpClientRequest.bodyText("{}", "application/json"))
      const bounded = UndiciClient.executeWithin(http, request, ms, () => {
        counted.count++
        return "too late" as const
      })
      if (bounded === undefined) throw new Error("this client keeps no time limit")
      return bounded
    }

    it.scopedLive("past the limit, the request is aborted and fails with the caller's error, once", () =>
      Effect.gen(function* () {
        const service = yield* silent
        const http = yield* client
        const timedOut = { count: 0 }
        const started = performance.now()
        const error = yield* Effect.flip(within(http, `${service.url}/x`, 200, timedOut))
        expect(error).toBe("too late")
        expect(performance.now() - started).toBeGreaterThanOrEqual(190)
        expect(timedOut.count).toBe(1)
        yield* until(() => service.closed.count === 1)
        expect(service.seen).toHaveLength(1)
      }),
    )

    it.scopedLive("an answer within the limit, or an interrupted request, never reaches it", () =>
      Effect.gen(function* () {
        const answering = yield* serve((_, response) => response.end('{"ok":true}'))
        const service = yield* silent
        const http = yield* client
        const timedOut = { count: 0 }
        // The first request loads undici's agent (Transport.ts): not what the 100 ms are about.
        yield* Effect.flatMap(within(http, `${answering.url}/x`, 20_000, timedOut), (first) => first.text)
        const response = yield* within(http, `${answering.url}/x`, 100, timedOut)
        expect(yield* response.text).toBe('{"ok":true}')
        const fiber = yield* Effect.fork(within(http, `${service.url}/x`, 100, timedOut))
        yield* until(() => service.seen.length === 1)
        yield* Fiber.interrupt(fiber)
        yield* until(() => service.closed.count === 1)
        // Past both limits: neither timer is left to fire.
        yield* Effect.sleep("250 millis")
        expect(timedOut.count).toBe(0)
      }),
    )

    it.scopedLive("a limit longer than a Node timer holds is no limit, as on the Effect clock", () =>
      Effect.gen(function* () {
        const slow = yield* serve((_, response) => setTimeout(() => response.end("{}"), 50))
        const http = yield* client
        const timedOut = { count: 0 }
        const response = yield* within(http, `${slow.url}/x`, 2 ** 31, timedOut)
        expect(yield* response.text).toBe("{}")
        expect(timedOut.count).toBe(0)
      }),
    )

    it.scoped("only this client keeps one: a client made from it, or another, answers undefined", () =>
      Effect.gen(function* () {
        const http = yield* client
        const request = HttpClientRequest.get("http://127.0.0.1:9/x")
        const others = [HttpClient.mapRequest(http, identity), HttpClient.filterStatusOk(http)]
        for (const other of others)
          expect(UndiciClient.executeWithin(other, request, 100, () => "late")).toBeUndefined()
        const fetched = yield* HttpClient.HttpClient.pipe(Effect.provide(FetchHttpClient.layer))
        expect(UndiciClient.executeWithin(fetched, request, 100, () => "late")).toBeUndefined()
      }),
    )
  })
})

describe("an answer past its byte cap", () => {
  /** An answer that would never end: a chunk of 64 KB after another, until its connection is closed. */
  const endless = serve((_, response) => {
    response.writeHead(200, { "content-type": "application/json" })
    const chunk = "y".repeat(65_536)
    const more = () => {
      while (!response.destroyed) if (!response.write(chunk)) return response.once("drain", more)
    }
    response.on("close", () => response.destroy())
    more()
  })

  it.scoped("is read up to the cap, said cut, and its request aborted: our client", () =>
    Effect.gen(function* () {
      const service = yield* endless
      const http = yield* client
      const request = HttpClientRequest.post(`${service.url}/read/GetStackLog`)
      const within = UndiciClient.executeWithin(http, request, 10_000, () => "late", 100_000)
      expect(within).toBeDefined()
      const response = yield* within as NonNullable<typeof within>
      expect(UndiciClient.cutOf(response)).toBe(true)
      expect((yield* response.text).length).toBe(100_000)
    }),
  )

  it.scoped("is read up to the cap and said cut through another client too", () =>
    Effect.gen(function* () {
      const service = yield* endless
      const http = yield* HttpClient.HttpClient.pipe(Effect.provide(FetchHttpClient.layer))
      const request = HttpClientRequest.post(`${service.url}/read/GetStackLog`)
      const exchange = yield* Transport.send(http, { group: "read", endpoint: "GetStackLog" }, request, 10_000, 100_000)
      expect(exchange.cut).toBe(true)
      expect(exchange.text.length).toBe(100_000)
      // Under the cap, nothing is cut.
      const whole = yield* Transport.send(
        yield* client,
        { group: "read", endpoint: "GetStackLog" },
        HttpClientRequest.post(`${(yield* serve((_, r) => r.end('{"a":1}'))).url}/x`),
        10_000,
        100_000,
      )
      expect(whole).toEqual({ status: 200, text: '{"a":1}' })
    }),
  )
})
