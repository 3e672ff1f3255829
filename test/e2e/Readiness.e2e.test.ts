/**
 * GET /readyz of the built server over HTTP: ready only when the service is
 * reachable and the configured credentials are accepted; checked at most once
 * per interval, whatever the rate of probes.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { READY_INTERVAL_MS } from "../../src/Operations/Readiness.js"
import { raw } from "../support/HttpMcp.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })

const probe = (mcpUrl: string) =>
  Effect.map(raw(mcpUrl.replace(/\/mcp$/, "/readyz")), ({ status, body }) => ({
    status,
    body: JSON.parse(body) as { status: string; ready: boolean; reason?: string },
  }))

describe("/readyz", () => {
  it.scopedLive("is 200 when the service answers and takes the key; many probes make one check", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const server = yield* Spawn.serveHttp(keyEnv(double.url))
      for (let i = 0; i < 20; i++) {
        expect(yield* probe(server.url)).toEqual({ status: 200, body: { status: "ready", ready: true } })
      }
      expect(double.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /version", "POST /read/GetVersion"])
    }),
  )

  it.scopedLive("is 503 with the reason when the key is refused, and never shows the secret", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: "another-secret-entirely" } })
      const server = yield* Spawn.serveHttp(keyEnv(double.url))
      const { status, body } = yield* probe(server.url)
      expect(status).toBe(503)
      expect(body.ready).toBe(false)
      expect(body.reason).toMatch(/^auth: .*refused the API key/)
      expect(JSON.stringify(body)).not.toContain(Layers.SECRET)
    }),
  )

  it.scopedLive("turns 503 after the service stops answering, at the next check, not at every probe", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const server = yield* Spawn.serveHttp(keyEnv(double.url))
      expect((yield* probe(server.url)).status).toBe(200)
      double.next("/version", { status: 502, raw: "bad gateway" }, { sticky: true })
      const started = Date.now()
      let last = yield* probe(server.url)
      while (last.status === 200 && Date.now() - started < READY_INTERVAL_MS + 5_000) {
        yield* Effect.sleep("100 millis")
        last = yield* probe(server.url)
      }
      expect(last.status).toBe(503)
      expect(last.body.reason).toMatch(/^reach: GET \/version answered 502/)
      // The finding was kept for the interval: the change shows only after it.
      expect(Date.now() - started).toBeGreaterThanOrEqual(READY_INTERVAL_MS - 1_000)
      expect(double.requests.filter((r) => r.path === "/version")).toHaveLength(2)
    }),
  )

  it.scopedLive("in per-request mode: ready when the service answers, and checks the server's own key when given", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const ownless = yield* Spawn.serveHttp({ SVC_URL: double.url, SVC_MCP_CREDENTIALS: "per-request" })
      expect(yield* probe(ownless.url)).toEqual({ status: 200, body: { status: "ready", ready: true } })
      expect(double.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /version"])
      expect(ownless.stderr()).not.toMatch(/WARN|ERROR/)
      const wrong = yield* Spawn.serveHttp({
        SVC_URL: double.url,
        SVC_MCP_CREDENTIALS: "per-request",
        SVC_API_KEY: Layers.KEY,
        SVC_API_SECRET: "not-the-secret",
      })
      const { status, body } = yield* probe(wrong.url)
      expect(status).toBe(503)
      expect(body.reason).toMatch(/^auth: /)
      const down = yield* Spawn.serveHttp({ SVC_URL: "http://127.0.0.1:9", SVC_MCP_CREDENTIALS: "per-request" })
      const unreachable = yield* probe(down.url)
      expect(unreachable.status).toBe(503)
      expect(unreachable.body.reason).toMatch(/^reach: /)
    }),
  )
})
