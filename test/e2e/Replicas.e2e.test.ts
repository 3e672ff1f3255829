/**
 * Three replicas of the built server behind a small round-robin proxy, sharing
 * one real redis-server (Debian's) and one SVC_MCP_STATE_KEY, in front of a
 * service double that counts what it is sent. A confirmation is honoured once
 * across them all, a refused key is remembered by all, and killing things
 * (the store, a replica mid-call) never sends anything twice.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { proxy } from "../support/Balancer.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Redis from "../support/Redis.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import { eventually } from "../support/Wait.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const ADMIN = { key: "admin-key-4711", secret: "admin-secret-value-4711" }
const STATE_KEY = "replicas-share-this-state-key-of-40-bytes"
const META = HttpMcp.modernMeta("replicas-test", { elicitation: {} })

interface Caller {
  readonly from: string
  readonly key: string
  readonly secret: string
}

const admin: Caller = { from: "127.0.0.2", ...ADMIN }

const call = (url: string, caller: Caller, params: Record<string, unknown>) =>
  HttpMcp.modern(url, "tools/call", params, {
    meta: META,
    from: caller.from,
    headers: { "x-svc-api-key": caller.key, "x-svc-api-secret": caller.secret },
  })

const stateOf = (answer: { body: Any }): string => {
  const result = answer.body.result
  expect(result.resultType, JSON.stringify(answer.body)).toBe("input_required")
  return result.requestState as string
}

const isQuestion = (answer: { body: Any }) => answer.body.result?.resultType === "input_required"

const accept = (state: string) => ({ inputResponses: { confirm: { action: "accept" } }, requestState: state })

const deleteTag = (id: string) => ({ name: "svc_delete", arguments: { resource_type: "tag", params: { id } } })
const listTags = { name: "svc_list", arguments: { resource_type: "tag" } }

const readyz = (url: string) =>
  Effect.map(HttpMcp.raw(url.replace(/\/mcp$/, "/readyz")), ({ status, body }) => ({
    status,
    body: JSON.parse(body) as Any,
  }))

/** Polls `effect` until `done` holds of its value (a condition the servers reach on their own time). */

describe("three replicas sharing a store (2026-07-28, HTTP, per-request, SVC_CONFIRM)", () => {
  it.scopedLive(
    "a confirmation is honoured once across them, a refused key is remembered by all, and killing things sends nothing twice",
    () =>
      Effect.gen(function* () {
        const redis = yield* Redis.scoped()
        const double = yield* Double.scoped({ apiKeys: [ADMIN] })
        const env = {
          SVC_URL: double.url,
          SVC_MCP_CREDENTIALS: "per-request",
          SVC_CONFIRM: "svc_delete:*",
          SVC_MCP_STATE_KEY: STATE_KEY,
          SVC_MCP_STORE: redis.url,
        }
        const [a, b, c] = yield* Effect.all([Spawn.serveHttp(env), Spawn.serveHttp(env), Spawn.serveHttp(env)], {
          concurrency: "unbounded",
        })
        if (a === undefined || b === undefined || c === undefined) throw new Error("three replicas")
        let alive = [a, b, c]
        const balancer = yield* proxy(() => alive.map((r) => r.url))
        const deletes = (id: string) =>
          double.calls().filter((r) => r.path === "/write/DeleteTag" && (r.body as Any)?.id === id)

        // Asked on A, answered on B: sent once.
        const asked = stateOf(yield* call(a.url, admin, deleteTag("t1")))
        const sent = yield* call(b.url, admin, { ...deleteTag("t1"), ...accept(asked) })
        expect(sent.body.result.resultType).toBe("complete")
        expect(sent.body.result.isError).toBeFalsy()
        expect(deletes("t1")).toHaveLength(1)

        // The same answer replayed on C: asked again, nothing sent.
        const replayed = yield* call(c.url, admin, { ...deleteTag("t1"), ...accept(asked) })
        expect(isQuestion(replayed)).toBe(true)
        expect(deletes("t1")).toHaveLength(1)

        // The same answer to A and B at once, twenty times over: exactly one send each time.
        for (let round = 0; round < 20; round++) {
          const id = `race-${round}`
          const state = stateOf(yield* call(balancer.url, admin, deleteTag(id)))
          const answers = yield* Effect.all(
            [a, b].map((replica) => call(replica.url, admin, { ...deleteTag(id), ...accept(state) })),
            { concurrency: "unbounded" },
          )
          expect(answers.filter((x) => x.body.result.resultType === "complete" && !x.body.result.isError)).toHaveLength(
            1,
          )
          expect(deletes(id), id).toHaveLength(1)
        }

        // A key refused on A: B and C answer from memory, and the service saw one 401.
        const wrong: Caller = { from: "127.0.0.3", key: ADMIN.key, secret: "wrong-secret-value" }
        const sentWrong = () => double.calls().filter((r) => r.headers["x-api-secret"] === wrong.secret)
        const refused = yield* call(a.url, wrong, listTags)
        expect(refused.body.result.isError).toBe(true)
        expect(sentWrong()).toHaveLength(1)
        for (const replica of [b, c]) {
          const remembered = yield* call(replica.url, wrong, listTags)
          expect(remembered.body.result.isError).toBe(true)
          expect(JSON.stringify(remembered.body.result)).toMatch(/remembered, so it is not sent again until/)
        }
        expect(sentWrong()).toHaveLength(1)
        // Nothing of the key or its secret is in the store: only keyed hashes.
        const keys = (yield* Effect.promise(() => redis.command("KEYS", "*"))).toString()
        expect(keys).not.toContain(ADMIN.key)
        expect(keys).not.toContain("wrong-secret")

        // Redis killed: an accept is refused clearly and nothing is sent, reads are served, /readyz says the store is down.
        const beforeKill = stateOf(yield* call(a.url, admin, deleteTag("t2")))
        yield* Effect.promise(() => redis.kill())
        const writesBefore = double.calls().filter((r) => r.path.startsWith("/write/")).length
        const unrecorded = yield* call(b.url, admin, { ...deleteTag("t2"), ...accept(beforeKill) })
        expect(unrecorded.body.result.isError).toBe(true)
        expect(JSON.stringify(unrecorded.body.result)).toMatch(/the confirmation could not be recorded/)
        // A new question cannot be recorded either: refused, not asked.
        const notAsked = yield* call(c.url, admin, deleteTag("t3"))
        expect(isQuestion(notAsked)).toBe(false)
        expect(JSON.stringify(notAsked.body.result)).toMatch(/could not be recorded/)
        for (const replica of [a, b, c]) {
          const read = yield* call(replica.url, admin, listTags)
          expect(read.body.result.isError, replica.url).toBeFalsy()
        }
        expect(double.calls().filter((r) => r.path.startsWith("/write/")).length).toBe(writesBefore)
        const down = yield* eventually(readyz(a.url), (r) => r.body.store?.status === "down")
        expect(down.status).toBe(200)
        expect(down.body).toMatchObject({ status: "ready", store: { status: "down" } })

        // Redis back, empty: questions asked before are not honoured, new ones work, with no restart.
        yield* Effect.promise(() => redis.restart())
        // Each replica reconnects on its own backoff: the answers below go to all three.
        for (const replica of [a, b, c]) {
          const up = yield* eventually(readyz(replica.url), (r) => r.body.store?.status === "up")
          expect(up.body.store?.status, replica.url).toBe("up")
        }
        const old = yield* call(b.url, admin, { ...deleteTag("t2"), ...accept(beforeKill) })
        expect(isQuestion(old)).toBe(true)
        expect(deletes("t2")).toHaveLength(0)
        const fresh = yield* eventually(call(c.url, admin, deleteTag("t4")), isQuestion)
        const honoured = yield* call(a.url, admin, { ...deleteTag("t4"), ...accept(stateOf(fresh)) })
        expect(honoured.body.result.isError).toBeFalsy()
        expect(deletes("t4")).toHaveLength(1)

        // A replica killed with SIGKILL mid-call: the others serve, and nothing is sent twice.
        double.next("/write/DeleteTag", { delayMs: 1_500 })
        const midCall = stateOf(yield* call(a.url, admin, deleteTag("t5")))
        const inFlight = yield* Effect.fork(Effect.exit(call(a.url, admin, { ...deleteTag("t5"), ...accept(midCall) })))
        yield* eventually(
          Effect.sync(() => deletes("t5").length),
          (n) => n === 1,
          5_000,
        )
        const arrived = Date.now()
        a.child.kill("SIGKILL")
        alive = [b, c]
        const lost = yield* Fiber.join(inFlight)
        expect(Exit.isFailure(lost)).toBe(true)
        // The client retries its answer through the balancer: not sent again, and told so.
        const retried = yield* call(balancer.url, admin, { ...deleteTag("t5"), ...accept(midCall) })
        expect(retried.body.result.isError).toBe(true)
        expect(JSON.stringify(retried.body.result)).toMatch(/honoured already and its call sent/)
        for (let i = 0; i < 4; i++) {
          const read = yield* call(balancer.url, admin, listTags)
          expect(read.body.result.isError).toBeFalsy()
        }
        // Past the time the delayed answer would have come: nothing more reached the service.
        yield* Effect.sleep(Math.max(0, arrived + 1_700 - Date.now()))
        expect(deletes("t5")).toHaveLength(1)
        // Every delete in this test reached the service exactly once.
        const ids = double
          .calls()
          .filter((r) => r.path === "/write/DeleteTag")
          .map((r) => (r.body as Any).id)
        expect(new Set(ids).size).toBe(ids.length)
      }),
    120_000,
  )
})
