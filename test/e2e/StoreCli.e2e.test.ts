/**
 * The shared store's settings and status as the built server shows them: a
 * malformed setting stops it with one line and exit 2, a store that does not
 * answer at start is said and served around, and `svc-mcp check` reports it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Redis from "../support/Redis.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const KEY = { key: "store-key-1", secret: "store-secret-1" }
const STATE_KEY = "a-state-key-shared-by-replicas-0123456789"

describe("svc-mcp with SVC_MCP_STORE", () => {
  it.live("refuses a malformed setting in one line, exit 2, never quoting its password", () =>
    Effect.gen(function* () {
      const base = { SVC_URL: "http://127.0.0.1:9", SVC_API_KEY: "k", SVC_API_SECRET: "s" }
      for (const [env, expected] of [
        [
          { SVC_MCP_STORE: "http://:hunter22@cache:6379", SVC_MCP_STATE_KEY: STATE_KEY },
          /^svc-mcp: SVC_MCP_STORE has the scheme "http"/,
        ],
        [{ SVC_MCP_STORE: "redis://cache:6379" }, /^svc-mcp: SVC_MCP_STORE is set without SVC_MCP_STATE_KEY/],
        [
          { SVC_MCP_STORE: "redis://cache", SVC_MCP_STATE_KEY: STATE_KEY, SVC_MCP_STORE_PREFIX: "a b" },
          /^svc-mcp: SVC_MCP_STORE_PREFIX is "a b"/,
        ],
      ] as const) {
        for (const args of [[], ["check"]]) {
          const finished = yield* Spawn.run({ ...base, ...env }, args)
          expect(finished.code).toBe(2)
          expect(finished.stderr.trim().split("\n")).toHaveLength(1)
          expect(finished.stderr).toMatch(expected)
          expect(finished.stderr).not.toContain("hunter22")
        }
      }
    }),
  )

  it.scopedLive("starts with the store down and says so; check warns and /readyz stays 200 until it answers", () =>
    Effect.gen(function* () {
      const redis = yield* Redis.scoped()
      yield* Effect.promise(() => redis.kill())
      const double = yield* Double.scoped({ apiKey: KEY })
      const env = {
        SVC_URL: double.url,
        SVC_API_KEY: KEY.key,
        SVC_API_SECRET: KEY.secret,
        SVC_MCP_STORE: `redis://:store-password@127.0.0.1:${redis.port}`,
        SVC_MCP_STATE_KEY: STATE_KEY,
      }
      const checked = yield* Spawn.run(env, ["check"])
      expect(checked.code).toBe(0)
      expect(checked.stderr).toMatch(/\[warn\] store +the shared store at redis:\/\/127\.0\.0\.1:\d+ does not answer/)
      expect(checked.stderr).not.toContain("store-password")

      const server = yield* Spawn.serveHttp(env)
      expect(server.stderr()).toMatch(/the shared store at redis:\/\/127\.0\.0\.1:\d+ is unreachable at start/)
      const readyz = server.url.replace(/\/mcp$/, "/readyz")
      const down = yield* HttpMcp.raw(readyz)
      expect(down.status).toBe(200)
      expect(JSON.parse(down.body)).toMatchObject({ status: "ready", store: { status: "down" } })
      // No password in what the server says.
      expect(server.stderr()).not.toContain("store-password")

      yield* Effect.promise(() => redis.restart())
      const checkedUp = yield* Spawn.run({ ...env, SVC_MCP_STORE: redis.url }, ["check"])
      expect(checkedUp.stderr).toMatch(/\[ok {2}\] store +the shared store at redis:\/\/127\.0\.0\.1:\d+ answers/)
    }),
  )
})
