/**
 * Two built servers sharing a store found through Redis Sentinel (Debian's
 * redis-server as a primary, its replica and three Sentinels, each with a
 * password), in front of a service double that counts what it is sent: a
 * question asked on one is honoured once on the other; the Sentinels fail the
 * primary over, and with no restart a new question is honoured once again.
 * `svc-mcp check` and `/readyz` name the Sentinels, never a password.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Sentinel from "../support/Sentinel.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const ADMIN = { key: "admin-key-1913", secret: "admin-secret-value-1913" }
const STATE_KEY = "sentinel-replicas-share-this-state-key-0123"
const META = HttpMcp.modernMeta("sentinel-test", { elicitation: {} })

const call = (url: string, params: Record<string, unknown>) =>
  HttpMcp.modern(url, "tools/call", params, {
    meta: META,
    from: "127.0.0.2",
    headers: { "x-svc-api-key": ADMIN.key, "x-svc-api-secret": ADMIN.secret },
  })
const deleteTag = (id: string) => ({ name: "svc_delete", arguments: { resource_type: "tag", params: { id } } })
const accept = (state: string) => ({ inputResponses: { confirm: { action: "accept" } }, requestState: state })
const isQuestion = (answer: { body: Any }) => answer.body.result?.resultType === "input_required"
const isDone = (answer: { body: Any }) => answer.body.result?.resultType === "complete" && !answer.body.result.isError

let set: Sentinel.SentinelSet
beforeAll(async () => {
  set = await Sentinel.start()
}, 30_000)
afterAll(() => set?.stop())

describe("replicas sharing a store through Redis Sentinel (built server, HTTP, per-request, SVC_CONFIRM)", () => {
  it.live("a malformed or conflicting Sentinel setting stops it in one line, exit 2, never quoting a password", () =>
    Effect.gen(function* () {
      const base = {
        SVC_URL: "http://127.0.0.1:9",
        SVC_API_KEY: "k",
        SVC_API_SECRET: "s",
        SVC_MCP_STATE_KEY: STATE_KEY,
      }
      for (const [env, expected] of [
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter22@s1:26379" }, /^svc-mcp: SVC_MCP_STORE names no primary/],
        [
          { SVC_MCP_STORE: "redis+sentinel://:hunter22@s1/mymaster", SVC_MCP_STORE_CLUSTER: "true" },
          /^svc-mcp: SVC_MCP_STORE_CLUSTER is true, but SVC_MCP_STORE names Sentinels/,
        ],
        [
          { SVC_MCP_STORE: "redis://:hunter22@cache", SVC_MCP_STORE_SENTINEL_PASSWORD: "hunter22" },
          /^svc-mcp: SVC_MCP_STORE_SENTINEL_PASSWORD is set, but SVC_MCP_STORE does not name Sentinels/,
        ],
      ] as const) {
        const finished = yield* Spawn.run({ ...base, ...env })
        expect(finished.code).toBe(2)
        expect(finished.stderr.trim().split("\n")).toHaveLength(1)
        expect(finished.stderr).toMatch(expected)
        expect(finished.stderr).not.toContain("hunter22")
      }
    }),
  )

  it.scopedLive(
    "asked on A and honoured once on B; after a fail-over, with no restart, honoured once again",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped({ apiKeys: [ADMIN] })
        const env = {
          SVC_URL: double.url,
          SVC_MCP_CREDENTIALS: "per-request",
          SVC_CONFIRM: "svc_delete:*",
          SVC_MCP_STATE_KEY: STATE_KEY,
          SVC_MCP_STORE: set.url,
          SVC_MCP_STORE_SENTINEL_PASSWORD: Sentinel.SENTINEL_PASSWORD,
        }
        const where = `redis+sentinel://${set.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(",")}/${Sentinel.NAME}`
        const checked = yield* Spawn.run(env, ["check"])
        expect(checked.stderr).toContain(`the shared store at ${where} answers`)
        const [a, b] = yield* Effect.all([Spawn.serveHttp(env), Spawn.serveHttp(env)], { concurrency: "unbounded" })
        if (a === undefined || b === undefined) throw new Error("two replicas")
        const deletes = (id: string) =>
          double.calls().filter((r) => r.path === "/write/DeleteTag" && (r.body as Any)?.id === id)

        /** Asked on `asker`, the same answer sent to both at once: one send. */
        const honouredOnce = (id: string, asker: Spawn.Serving) =>
          Effect.gen(function* () {
            const asked = yield* call(asker.url, deleteTag(id))
            expect(isQuestion(asked), JSON.stringify(asked.body)).toBe(true)
            const state = asked.body.result.requestState as string
            const answers = yield* Effect.all(
              [a, b].map((replica) => call(replica.url, { ...deleteTag(id), ...accept(state) })),
              { concurrency: "unbounded" },
            )
            expect(answers.filter(isDone)).toHaveLength(1)
            expect(deletes(id)).toHaveLength(1)
            const replayed = yield* call(b.url, { ...deleteTag(id), ...accept(state) })
            expect(isQuestion(replayed)).toBe(true)
            expect(deletes(id)).toHaveLength(1)
          })

        yield* honouredOnce("before", a)

        const first = yield* Effect.promise(() => set.primaryPort())
        const second = yield* Effect.promise(() => set.failover())
        expect(second).not.toBe(first)
        // Once each server's writes reach the new primary (a question asked there adds a key to it;
        // the old one no longer replicates to it)...
        for (const replica of [a, b]) {
          const end = Date.now() + 15_000
          for (;;) {
            const before = Number(yield* Effect.promise(() => set.data(second, "DBSIZE")))
            const probe = yield* call(replica.url, deleteTag("probe"))
            const after = Number(yield* Effect.promise(() => set.data(second, "DBSIZE")))
            if (isQuestion(probe) && after > before) break
            if (Date.now() > end) throw new Error(`${replica.url}'s store did not follow the fail-over`)
            yield* Effect.sleep("100 millis")
          }
        }
        // ... a question asked on B is honoured once, and the store is up, with no restart.
        yield* honouredOnce("after", b)
        expect(a.child.exitCode).toBeNull()
        expect(b.child.exitCode).toBeNull()
        for (const replica of [a, b]) {
          const ready = yield* HttpMcp.raw(replica.url.replace(/\/mcp$/, "/readyz"))
          expect(ready.status).toBe(200)
          expect(JSON.parse(ready.body)).toMatchObject({ store: { status: "up", where } })
          expect(replica.stderr()).toContain(`the shared store's primary is 127.0.0.1:${second} (through Sentinel)`)
          expect(replica.stderr()).not.toContain(Sentinel.DATA_PASSWORD)
          expect(replica.stderr()).not.toContain(Sentinel.SENTINEL_PASSWORD)
        }
      }),
    60_000,
  )
})
