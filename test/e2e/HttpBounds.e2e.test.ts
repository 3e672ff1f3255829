/**
 * What a hostile caller can open over HTTP, against the built server: a Host
 * that names no host, a body sent without the token, a body that never ends,
 * more connections than the cap, `/readyz` asked for addresses, a session
 * presented with another secret, another spelling or after the token changed,
 * and questions opened and never answered. Each is bounded or refused, and
 * the server goes on serving.
 */
import * as Net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Legacy from "../support/LegacyHttp.js"
import { freePort } from "../support/Ports.js"
import * as RawSocket from "../support/RawSocket.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC messages field by field
type Any = any

const TOKEN = "a-long-random-token-for-the-bounds-0123456789"
const STATE_KEY = "a-state-key-shared-by-the-replicas-of-these-tests-0123456789"
const AUTH = { authorization: `Bearer ${TOKEN}` }

const deleteMonitoring = { resource_type: "stack", params: { id: "monitoring" } }

describe("refused before anything is read", () => {
  it.scopedLive("a Host with userinfo is 400, not a 500; the server serves on", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({}, ["--sandbox"])
      for (const host of ["evil.com@127.0.0.1", "127.0.0.1/x"]) {
        const refused = yield* HttpMcp.raw(server.url, { method: "POST", headers: { ...HttpMcp.JSON_HEADERS, host } })
        expect(refused.status, host).toBe(400)
      }
      const health = yield* HttpMcp.raw(server.url.replace("/mcp", "/healthz"))
      expect(health.status).toBe(200)
    }),
  )

  it.scopedLive("a POST without the token is answered 401 on its headers, its 3 MB body never read", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_MCP_TOKEN: TOKEN }, ["--sandbox"])
      // The headers alone: the body is never sent, so an answer can only come before it is read.
      const exchange = yield* RawSocket.exchange(server.url, RawSocket.postHead(server.url, {}, 3_300_000), 5_000)
      expect(exchange.text).toMatch(/^HTTP\/1\.1 401 /)
      expect(exchange.closed).toBe(true)
    }),
  )

  it.scopedLive("a body that never ends is cut at SVC_MCP_REQUEST_TIMEOUT with 408", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_MCP_TOKEN: TOKEN, SVC_MCP_REQUEST_TIMEOUT: "2s" }, ["--sandbox"])
      const started = Date.now()
      const exchange = yield* RawSocket.exchange(
        server.url,
        `${RawSocket.postHead(server.url, AUTH, 1000)}{"jsonrpc":`,
        15_000,
      )
      expect(exchange.text).toMatch(/^HTTP\/1\.1 408 /)
      expect(exchange.closed).toBe(true)
      // Not the 15 minutes Node would otherwise wait.
      expect(Date.now() - started).toBeLessThan(14_000)
    }),
  )

  it.scopedLive("connections past SVC_MCP_MAX_CONNECTIONS are closed as they come; the rest are served", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_MCP_MAX_CONNECTIONS: "4" }, ["--sandbox"])
      const { port } = new URL(server.url)
      const sockets = yield* Effect.promise(() =>
        Promise.all(
          Array.from(
            { length: 10 },
            () =>
              new Promise<{ socket: Net.Socket; closed: () => boolean }>((resolve) => {
                const socket = Net.connect(Number(port), "127.0.0.1")
                let closed = false
                socket.on("error", () => {})
                socket.on("close", () => {
                  closed = true
                })
                socket.on("connect", () => resolve({ socket, closed: () => closed }))
              }),
          ),
        ),
      )
      yield* Effect.sleep("1 second")
      expect(sockets.filter((s) => s.closed()).length).toBe(6)
      for (const { socket } of sockets) socket.destroy()
      yield* Effect.sleep("200 millis")
      expect((yield* HttpMcp.raw(server.url.replace("/mcp", "/healthz"))).status).toBe(200)
    }),
  )
})

describe("/readyz", () => {
  it.scopedLive("names the service's and the store's addresses only to a request with the token", () =>
    Effect.gen(function* () {
      const [service, store] = yield* Effect.promise(() => Promise.all([freePort(), freePort()]))
      const server = yield* Spawn.serveHttp({
        SVC_URL: `http://127.0.0.1:${service}`,
        SVC_API_KEY: "k",
        SVC_API_SECRET: "s",
        SVC_MCP_TOKEN: TOKEN,
        SVC_MCP_STATE_KEY: STATE_KEY,
        SVC_MCP_STORE: `redis://127.0.0.1:${store}`,
      })
      const ready = server.url.replace("/mcp", "/readyz")
      const anonymous = yield* HttpMcp.raw(ready)
      expect(anonymous.status).toBe(503)
      expect(anonymous.body).not.toContain(String(service))
      expect(anonymous.body).not.toContain(String(store))
      expect(JSON.parse(anonymous.body)).toMatchObject({ status: "not ready", store: { status: "down" } })
      const wrong = yield* HttpMcp.raw(ready, { headers: { authorization: "Bearer not-the-token-at-all-0000" } })
      expect(wrong.body).not.toContain(String(service))
      const shown = yield* HttpMcp.raw(ready, { headers: AUTH })
      expect(shown.status).toBe(503)
      expect(shown.body).toContain(String(service))
      expect(shown.body).toContain(String(store))
    }),
  )
})

describe("a 2025-era session", () => {
  it.scopedLive("opens only with the secret it was made with, and in its one spelling: else 404", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({})
      const server = yield* Spawn.serveHttp({
        SVC_URL: double.url,
        SVC_MCP_CREDENTIALS: "per-request",
        SVC_MCP_TOKEN: TOKEN,
      })
      const mine = { ...AUTH, "x-svc-api-key": "alice", "x-svc-api-secret": "alice-secret-one" }
      const client = yield* Effect.promise(() => Legacy.connect(server.url, { headers: mine }))
      const session = client.session as string
      expect(session).toMatch(/^s1\./)
      const list = { jsonrpc: "2.0", id: 5, method: "tools/list", params: {} }
      expect((yield* Effect.promise(() => client.post(list))).status).toBe(200)
      const otherSecret = yield* Effect.promise(() => client.post(list, { "x-svc-api-secret": "alice-secret-two" }))
      expect(otherSecret.status).toBe(404)
      expect(yield* Effect.promise(() => otherSecret.text())).toContain("initialize again")
      for (const spelled of [
        `${session}==`,
        `${session}=`,
        `${session.slice(0, -1)}${session.at(-1) === "A" ? "B" : "A"}`,
      ]) {
        const respelled = yield* Effect.promise(() => client.post(list, { "mcp-session-id": spelled }))
        expect(respelled.status, spelled).toBe(404)
      }
    }),
  )

  it.scopedLive("ends when SVC_MCP_TOKEN changes, under the same state key", () =>
    Effect.gen(function* () {
      const env = { SVC_MCP_STATE_KEY: STATE_KEY }
      const list = { jsonrpc: "2.0", id: 5, method: "tools/list", params: {} }
      const first = yield* Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Spawn.serveHttp({ ...env, SVC_MCP_TOKEN: TOKEN }, ["--sandbox"])
          const client = yield* Effect.promise(() => Legacy.connect(server.url, { headers: AUTH }))
          return client.session as string
        }),
      )
      const newToken = "the-rotated-token-of-the-team-9876543210"
      const server = yield* Spawn.serveHttp({ ...env, SVC_MCP_TOKEN: newToken }, ["--sandbox"])
      const client = yield* Effect.promise(() =>
        Legacy.connect(server.url, { headers: { authorization: `Bearer ${newToken}` } }),
      )
      expect((yield* Effect.promise(() => client.post(list))).status).toBe(200)
      const old = yield* Effect.promise(() => client.post(list, { "mcp-session-id": first }))
      expect(old.status).toBe(404)
    }),
  )
})

/** Opens `n` confirmed deletes on `client` at once; each one's first message: its question, or its result. */
const openDeletes = (client: Legacy.LegacyClient, from: number, n: number) =>
  Effect.promise(() =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const stream = await client.request(from + i, "tools/call", { name: "svc_delete", arguments: deleteMonitoring })
        return { stream, first: (await stream.next()) as Any }
      }),
    ),
  )

const resultText = (message: Any): string => message?.result?.content?.[0]?.text ?? ""

describe("questions opened and never answered", () => {
  it.scopedLive(
    "past the session's and the principal's bounds are refused at once; the others end at SVC_MCP_QUESTION_TIMEOUT",
    () =>
      Effect.gen(function* () {
        const server = yield* Spawn.serveHttp(
          {
            SVC_CONFIRM: "svc_delete:*",
            SVC_MCP_QUESTIONS_PER_SESSION: "3",
            SVC_MCP_QUESTIONS_PER_PRINCIPAL: "5",
            SVC_MCP_QUESTION_TIMEOUT: "4s",
          },
          ["--sandbox"],
        )
        const asking = { capabilities: { elicitation: {} } }
        const one = yield* Effect.promise(() => Legacy.connect(server.url, asking))
        const two = yield* Effect.promise(() => Legacy.connect(server.url, asking))
        const first = yield* openDeletes(one, 100, 10)
        const asked = first.filter((o) => o.first.method === "elicitation/create")
        const refused = first.filter((o) => o.first.method === undefined)
        expect(asked).toHaveLength(3)
        expect(refused).toHaveLength(7)
        for (const { first: message } of refused) {
          expect(message.result.isError).toBe(true)
          expect(resultText(message)).toContain("SVC_MCP_QUESTIONS_PER_SESSION=3")
        }
        const second = yield* openDeletes(two, 200, 10)
        expect(second.filter((o) => o.first.method === "elicitation/create")).toHaveLength(2)
        for (const { first: message } of second.filter((o) => o.first.method === undefined)) {
          expect(resultText(message)).toContain("SVC_MCP_QUESTIONS_PER_PRINCIPAL=5")
        }
        // Never answered: each waiting call ends at the question's lifetime, nothing sent.
        const ended = yield* Effect.promise(() =>
          Promise.all([...asked, ...second.filter((o) => o.first.method !== undefined)].map((o) => o.stream.next())),
        )
        for (const message of ended) {
          expect(message.result.isError).toBe(true)
          expect(resultText(message)).toContain("SVC_MCP_QUESTION_TIMEOUT")
        }
        // Room again: a new question is asked.
        const again = yield* openDeletes(one, 300, 1)
        expect(again[0]?.first.method).toBe("elicitation/create")
        const got = yield* Effect.promise(() =>
          one.call(400, "svc_get", { resource_type: "stack", params: { stack: "monitoring" } }),
        )
        expect(got.result.isError).toBeFalsy()
      }),
    60_000,
  )
})
