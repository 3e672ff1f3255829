/**
 * Floods against two built replicas sharing a real redis-server: cancellations
 * of calls that do not exist, each with a 1 MB reason, leave nothing in the
 * store; a cancellation of a call in flight on the other replica still stops
 * it, its reason cut; and however many questions wait on a replica, it reads
 * the store about as often as with one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Legacy from "../support/LegacyHttp.js"
import * as Redis from "../support/Redis.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC messages field by field
type Any = any

const STATE_KEY = "a-state-key-shared-by-the-replicas-of-these-tests-0123456789"
const deleteMonitoring = { resource_type: "stack", params: { id: "monitoring" } }

const redisServer = Redis.scoped()

/** Two replicas of the sandbox sharing `redis`, every delete confirmed. */
const replicas = (redis: Redis.RedisServer, env: Record<string, string> = {}) => {
  const shared = {
    SVC_MCP_STATE_KEY: STATE_KEY,
    SVC_MCP_STORE: redis.url,
    SVC_CONFIRM: "svc_delete:*",
    ...env,
  }
  return Effect.all([Spawn.serveHttp(shared, ["--sandbox"]), Spawn.serveHttp(shared, ["--sandbox"])], {
    concurrency: "unbounded",
  })
}

/** One message POSTed to `url` as `client`'s session. */
const postAs = (url: string, client: Legacy.LegacyClient, message: unknown) =>
  Effect.promise(() =>
    fetch(url, {
      method: "POST",
      headers: {
        ...HttpMcp.JSON_HEADERS,
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": client.session as string,
      },
      body: JSON.stringify(message),
    }),
  )

const cancelled = (requestId: number, reason: string) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason },
})

const usedMemory = (redis: Redis.RedisServer) =>
  Effect.map(
    Effect.promise(() => redis.command("INFO", "memory")),
    (info) => Number(/used_memory:(\d+)/.exec(info)?.[1]),
  )

const getCalls = (redis: Redis.RedisServer) =>
  Effect.map(
    Effect.promise(() => redis.command("INFO", "commandstats")),
    (info) => Number(/cmdstat_get:calls=(\d+)/.exec(info)?.[1] ?? 0),
  )

describe("two replicas sharing a real redis-server", () => {
  it.scopedLive(
    "50 cancellations of calls that do not exist, 1 MB of reason each, store nothing; one of a call in flight stops it",
    () =>
      Effect.gen(function* () {
        const redis = yield* redisServer
        const [a, b] = yield* replicas(redis)
        const client = yield* Effect.promise(() => Legacy.connect(a.url, { capabilities: { elicitation: {} } }))
        const before = yield* usedMemory(redis)
        const reason = "r".repeat(1_000_000)
        for (let id = 1000; id < 1050; id++) {
          const posted = yield* postAs(b.url, client, cancelled(id, reason))
          expect(posted.status).toBe(202)
        }
        expect(yield* Effect.promise(() => redis.command("KEYS", "svc-mcp:cancel:*"))).toBe("0")
        const after = yield* usedMemory(redis)
        expect(after - before).toBeLessThan(1_000_000)

        // A call waiting on its question on A, cancelled through B: it stops, and its stream ends.
        const stream = yield* Effect.promise(() =>
          client.request(7, "tools/call", { name: "svc_delete", arguments: deleteMonitoring }),
        )
        const question = (yield* Effect.promise(() => stream.next())) as Any
        expect(question.method).toBe("elicitation/create")
        yield* Effect.sleep("500 millis")
        expect((yield* postAs(b.url, client, cancelled(7, reason))).status).toBe(202)
        expect(yield* Effect.promise(() => redis.command("KEYS", "svc-mcp:cancel:*"))).toBe("1")
        expect((yield* usedMemory(redis)) - after).toBeLessThan(100_000)
        // The server lets go of its question, naming it as the client knows it, with the reason cut; then the stream ends.
        const letGo = (yield* Effect.promise(() => stream.next()).pipe(Effect.timeout("5 seconds"))) as Any
        expect(letGo).toMatchObject({ method: "notifications/cancelled", params: { requestId: question.id } })
        expect(letGo.params.reason.length).toBeLessThanOrEqual(256)
        expect(yield* Effect.promise(() => stream.next()).pipe(Effect.timeout("5 seconds"))).toBeUndefined()
        // The answer to the cancelled call's question is refused: nothing waits for it.
        const late = yield* postAs(a.url, client, Legacy.answer(question, "accept"))
        expect(late.status).toBe(409)
      }),
    60_000,
  )

  it.scopedLive(
    "40 questions waiting on a replica read the store about as often as one (its inbox, every 100 ms)",
    () =>
      Effect.gen(function* () {
        const redis = yield* redisServer
        // No tracked copy: every read of the store is a GET the store counts.
        const [a] = yield* replicas(redis, {
          SVC_MCP_STORE_CACHE: "off",
          SVC_MCP_QUESTIONS_PER_SESSION: "100",
          SVC_MCP_QUESTIONS_PER_PRINCIPAL: "100",
        })
        const client = yield* Effect.promise(() => Legacy.connect(a.url, { capabilities: { elicitation: {} } }))
        const streams = yield* Effect.promise(() =>
          Promise.all(
            Array.from({ length: 40 }, async (_, i) => {
              const stream = await client.request(100 + i, "tools/call", {
                name: "svc_delete",
                arguments: deleteMonitoring,
              })
              return { stream, first: (await stream.next()) as Any }
            }),
          ),
        )
        expect(streams.every((s) => s.first.method === "elicitation/create")).toBe(true)
        yield* Effect.sleep("300 millis")
        const start = yield* getCalls(redis)
        yield* Effect.sleep("1 second")
        const reads = (yield* getCalls(redis)) - start
        // One read per 100 ms for the replica: some 10 in a second, where one per question would be 400.
        expect(reads).toBeGreaterThan(2)
        expect(reads).toBeLessThan(30)
        for (const { stream } of streams) yield* Effect.promise(() => stream.close())
      }),
    60_000,
  )
})
