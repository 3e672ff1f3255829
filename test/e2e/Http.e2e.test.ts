/**
 * The built server in HTTP mode, driven by the SDK's StreamableHTTPClientTransport.
 */
import * as NodeHttp from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import * as Spec from "../support/Spec.js"

const TOKEN = "a-long-random-token-for-the-tests-0123456789"

const start = (env: Record<string, string>) => Spawn.serveHttp(env)

const connect = (url: string, token?: string) =>
  HttpMcp.connect(url, token === undefined ? {} : { authorization: `Bearer ${token}` })

/** A raw POST unless told otherwise, with any Host header and body. */
const raw = (url: string, options: HttpMcp.RawOptions) => HttpMcp.raw(url, { method: "POST", ...options })

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
})
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })

describe("svc-mcp over Streamable HTTP", () => {
  it.scopedLive("initializes, lists, calls, and answers errors as on stdio; /healthz answers without auth", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const server = yield* start(keyEnv(double.url))
      const client = yield* connect(server.url)
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual(Spec.tools)
      const listed = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }),
      )
      expect(JSON.parse((listed.content as Array<{ text: string }>)[0]?.text ?? "")).toEqual({
        endpoint: "read/ListStacks",
        params: {},
      })
      const refused = yield* Effect.promise(() =>
        client.callTool({ name: "svc_get", arguments: { resource_type: "nope" } }),
      )
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toMatchObject({ error: { kind: "invalid_arguments" } })
      const health = yield* raw(server.url.replace("/mcp", "/healthz"), { method: "GET" })
      expect(health).toEqual({ status: 200, body: '{"status":"ok"}' })
    }),
  )

  it.scopedLive(
    "keeps an idle connection open past Node's 5 s (65 s, as it says), so that a balancer reusing it is not reset",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const server = yield* start(keyEnv(double.url))
        const agent = new NodeHttp.Agent({ keepAlive: true, maxSockets: 1 })
        yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
        const healthz = server.url.replace("/mcp", "/healthz")
        const get = () =>
          new Promise<{ status: number; reused: boolean; keepAlive: string | undefined }>((resolve, reject) => {
            const req = NodeHttp.get(healthz, { agent }, (res) => {
              res.resume()
              res.on("end", () =>
                resolve({
                  status: res.statusCode ?? 0,
                  reused: req.reusedSocket,
                  keepAlive: res.headers["keep-alive"]?.toString(),
                }),
              )
            })
            req.on("error", reject)
          })
        const first = yield* Effect.promise(get)
        expect(first.status).toBe(200)
        // The idle time-out the server keeps a connection for, as it tells the client: past the
        // usual balancers' 60 s, where Node's own is 5 s.
        expect(Number(/^timeout=(\d+)$/.exec(first.keepAlive ?? "")?.[1])).toBeGreaterThan(60)
        const [socket] = Object.values(agent.freeSockets).flat()
        let closed = false
        socket?.once("close", () => {
          closed = true
        })
        yield* Effect.sleep("1 second")
        expect(closed).toBe(false)
        const again = yield* Effect.promise(get)
        expect(again).toMatchObject({ status: 200, reused: true })
      }),
  )

  it.scopedLive("with SVC_MCP_TOKEN: the right Bearer token is accepted, a wrong or missing one gets 401", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const server = yield* start({ ...keyEnv(double.url), SVC_MCP_TOKEN: TOKEN })
      const client = yield* connect(server.url, TOKEN)
      expect((yield* Effect.promise(() => client.listTools())).tools.map((tool) => tool.name)).toEqual(Spec.tools)
      const wrong = yield* raw(server.url, {
        headers: { ...JSON_HEADERS, authorization: "Bearer not-the-token" },
        body: INIT,
      })
      expect(wrong.status).toBe(401)
      const missing = yield* raw(server.url, { headers: JSON_HEADERS, body: INIT })
      expect(missing.status).toBe(401)
      expect(server.stderr()).not.toContain(TOKEN)
    }),
  )

  it.scopedLive("refuses a foreign Host or Origin on a loopback bind, and a body over 4 MiB", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const server = yield* start(keyEnv(double.url))
      const port = new URL(server.url).port
      const foreign = yield* raw(server.url, { headers: { ...JSON_HEADERS, host: "evil.example.com" }, body: INIT })
      expect(foreign.status).toBe(403)
      const origin = yield* raw(server.url, {
        headers: { ...JSON_HEADERS, host: `localhost:${port}`, origin: "http://evil.example.com" },
        body: INIT,
      })
      expect(origin.status).toBe(403)
      const local = yield* raw(server.url, {
        headers: { ...JSON_HEADERS, host: `localhost:${port}`, origin: `http://localhost:${port}` },
        body: INIT,
      })
      expect(local.status).toBe(200)
      const big = yield* raw(server.url, { headers: JSON_HEADERS, body: Buffer.alloc(5 * 1024 * 1024, 0x20) })
      expect(big.status).toBe(413)
      const after = yield* raw(server.url, { headers: JSON_HEADERS, body: INIT })
      expect(after.status).toBe(200)
    }),
  )

  it.live("refuses to bind off loopback without a token", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.run({
        ...keyEnv("http://127.0.0.1:9"),
        SVC_MCP_HTTP_PORT: "0",
        SVC_MCP_HTTP_HOST: "0.0.0.0",
      })
      expect(finished.code).toBe(2)
      expect(finished.stderr).toMatch(
        /^svc-mcp: SVC_MCP_TOKEN is not set, and SVC_MCP_HTTP_HOST=0\.0\.0\.0 is not a loopback address/,
      )
    }),
  )

  it.scopedLive("on SIGTERM, lets a call in flight finish, refuses new ones, and exits", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/read/ListServers", { delayMs: 1000 })
      const server = yield* start(keyEnv(double.url))
      const client = yield* connect(server.url)
      const slow = client.callTool({ name: "svc_list", arguments: { resource_type: "server" } })
      yield* Effect.promise(async () => {
        while (double.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
      })
      server.child.kill("SIGTERM")
      yield* Effect.sleep("200 millis")
      // Refused with 503 while draining, or not answered at all once the listener has closed.
      const refused = yield* Effect.exit(
        raw(server.url, { headers: JSON_HEADERS, body: INIT }).pipe(Effect.timeout("2 seconds")),
      )
      if (Exit.isSuccess(refused)) expect(refused.value.status).toBe(503)
      const result = yield* Effect.promise(() => slow)
      expect(result.isError).toBeFalsy()
      const code = yield* Effect.promise(() => server.exited)
      expect(code === 0 || code === null).toBe(true)
    }),
  )
})
