/**
 * A server shared by a team, end to end over HTTP against the built server:
 * callers on distinct loopback addresses, per-request credentials, SVC_CONFIRM.
 * A confirmation sends exactly what was confirmed, by whom, once; the question
 * shows what will happen; one caller's bad key never holds the others.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Sandboxes from "../support/Sandbox.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const ADMIN = { key: "admin-key-4711", secret: "admin-secret-value-4711" }
const OTHER = { key: "other-key-0815", secret: "other-secret-value-0815" }

const META = HttpMcp.modernMeta("team-test", { elicitation: {} })

const tempFile = (name: string) => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-team-")), name)

interface Caller {
  /** The loopback address its socket is bound to. */
  readonly from: string
  readonly key: string
  readonly secret: string
}

/** One 2026-07-28 tools/call from `caller`'s own address, answered as JSON. */
const call = (url: string, caller: Caller, params: Record<string, unknown>, extra: Record<string, string> = {}) =>
  HttpMcp.modern(url, "tools/call", params, {
    meta: META,
    from: caller.from,
    headers: { "x-svc-api-key": caller.key, "x-svc-api-secret": caller.secret, ...extra },
  })

const question = (answer: { body: Any }): { message: string; state: string } => {
  const result = answer.body.result
  expect(result.resultType).toBe("input_required")
  expect(typeof result.requestState).toBe("string")
  const request = result.inputRequests.confirm
  return { message: request.params.message, state: result.requestState }
}

const accept = (state: string | undefined) => ({
  inputResponses: { confirm: { action: "accept" } },
  ...(state === undefined ? {} : { requestState: state }),
})

// The lines calls end with: a change's intent before it (test/e2e/Audit.e2e.test.ts) is left out.
const auditLines = (file: string): Array<Any> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line))
        .filter((line) => line.phase !== "intent")
    : []

/** The server a team shares: per-request keys, deletes confirmed, every call audited to a file of its own. */
const confirming = (double: Double.ServiceDouble) =>
  Effect.gen(function* () {
    const audit = tempFile("audit.log")
    const server = yield* Spawn.serveHttp({
      SVC_URL: double.url,
      SVC_MCP_CREDENTIALS: "per-request",
      SVC_CONFIRM: "svc_delete:*",
      SVC_AUDIT_LOG: audit,
    })
    return { server, audit }
  })

describe("a confirmation binds what was confirmed (2026-07-28, HTTP, per-request)", () => {
  it.scopedLive("nothing is sent on any other answer; the honest path sends exactly once", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKeys: [ADMIN, OTHER] })
      const { server, audit } = yield* confirming(double)
      const admin: Caller = { from: "127.0.0.2", ...ADMIN }
      const other: Caller = { from: "127.0.0.3", ...OTHER }
      const prod = { name: "svc_delete", arguments: { resource_type: "tag", params: { id: "production" } } }
      const dev = { name: "svc_delete", arguments: { resource_type: "tag", params: { id: "dev" } } }
      const writes = () => double.calls().filter((r) => !r.path.startsWith("/read/"))

      const first = question(yield* call(server.url, admin, prod))
      expect(first.message).toMatch(/^svc_delete resource_type "tag" will call write\/DeleteTag on id="production"\./)

      // An accept on the first attempt, with no state: asked, not sent.
      const unasked = yield* call(server.url, admin, { ...prod, ...accept(undefined) })
      const fresh = question(unasked)
      expect(fresh.state).not.toBe(first.state)
      // Forged: a state never sealed here.
      question(yield* call(server.url, admin, { ...prod, ...accept("eyJ2IjoxfQ.AAAA") }))
      // Tampered: the seal's last character changed.
      const tag = first.state.slice(-1) === "A" ? "B" : "A"
      question(yield* call(server.url, admin, { ...prod, ...accept(`${first.state.slice(0, -1)}${tag}`) }))
      // Other arguments: the state of the question about "production", echoed with "dev".
      question(yield* call(server.url, admin, { ...dev, ...accept(first.state) }))
      // Another principal's: the admin's state, echoed by another caller.
      question(yield* call(server.url, other, { ...prod, ...accept(fresh.state) }))
      expect(writes()).toEqual([])

      // The honest path: the state of the question, by the caller asked, with the same arguments.
      const honest = question(yield* call(server.url, admin, prod))
      const sent = yield* call(server.url, admin, { ...prod, ...accept(honest.state) })
      expect(sent.body.result.resultType).toBe("complete")
      expect(sent.body.result.isError).toBeFalsy()
      expect(writes().map((r) => [r.path, r.body, r.headers["x-api-key"]])).toEqual([
        ["/write/DeleteTag", { id: "production" }, ADMIN.key],
      ])
      // Reused: the same state again is asked about again, and nothing more is sent.
      question(yield* call(server.url, admin, { ...prod, ...accept(honest.state) }))
      expect(writes()).toHaveLength(1)

      // A decline: nothing sent, the result says so.
      const declined = yield* call(server.url, admin, {
        ...dev,
        inputResponses: { confirm: { action: "decline" } },
        requestState: question(yield* call(server.url, admin, dev)).state,
      })
      expect(declined.body.result.structuredContent).toMatchObject({ error: { kind: "not_confirmed" } })
      expect(writes()).toHaveLength(1)

      const lines = auditLines(audit)
      const outcomes = lines.map((l) => [l.outcome, l.caller, l.target])
      expect(outcomes.filter(([o]) => o === "asked").length).toBeGreaterThanOrEqual(8)
      expect(outcomes).toContainEqual(["asked", OTHER.key, "production"])
      expect(outcomes).toContainEqual(["ok", ADMIN.key, "production"])
      expect(outcomes).toContainEqual(["declined", ADMIN.key, "dev"])
      for (const line of lines) expect(JSON.stringify(line)).not.toMatch(/secret-value/)
    }),
  )

  it.scopedLive("a client that cannot be asked is refused without asking, and the audit says so", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKeys: [ADMIN] })
      const { server, audit } = yield* confirming(double)
      const { body: answer } = yield* HttpMcp.modern(
        server.url,
        "tools/call",
        { name: "svc_delete", arguments: { resource_type: "tag", params: { id: "production" } } },
        {
          meta: HttpMcp.modernMeta("team-test"),
          headers: { "x-svc-api-key": ADMIN.key, "x-svc-api-secret": ADMIN.secret },
        },
      )
      expect(answer.result.structuredContent).toMatchObject({ error: { kind: "denied" } })
      expect(double.calls()).toEqual([])
      expect(auditLines(audit).map((l) => [l.outcome, l.target])).toEqual([["refused", "production"]])
    }),
  )
})

describe("the question shows what will happen, read from the sandbox", () => {
  it.scopedLive("a delete, a batch and a sync", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const server = yield* Spawn.serveHttp({
        SVC_URL: sandbox.url,
        SVC_MCP_CREDENTIALS: "per-request",
        SVC_CONFIRM: "svc_delete:*,svc_execute:batch_*,svc_execute:run_sync",
      })
      const admin: Caller = { from: "127.0.0.2", ...sandbox.apiKey }
      const asked = (params: Record<string, unknown>) =>
        Effect.map(call(server.url, admin, params), (answer) => question(answer).message)
      expect(
        yield* asked({ name: "svc_delete", arguments: { resource_type: "stack", params: { id: "web" } } }),
      ).toContain('This deletes the stack "web" (on server "prod-01", now running).')
      expect(
        yield* asked({
          name: "svc_execute",
          arguments: { operation: "batch_deploy_stack", params: { pattern: "*web", tags: ["production"] } },
        }),
      ).toContain(
        'BatchDeployStack with the pattern "*web" and the tags "production" matches 1 stack now: "web". The service runs only those of them that the user may execute.',
      )
      const sync = yield* asked({
        name: "svc_execute",
        arguments: { operation: "run_sync", params: { sync: "estate-sync" } },
      })
      expect(sync).toContain(
        'Running the sync "estate-sync" applies the changes pending from commit c41e7d2 ("Move the cache to its own stack; retire legacy-cron"), as of its last refresh:',
      )
      // One change a line, the delete first.
      expect(sync).toContain(
        ':\n- delete Deployment "legacy-cron"\n- update Stack "web"\n- update Build "docs-image"\n',
      )
      // A read that fails is said in the question.
      expect(
        yield* asked({ name: "svc_delete", arguments: { resource_type: "stack", params: { id: "nope" } } }),
      ).toContain('The stack "nope" could not be read before asking')
    }),
  )
})

describe("one caller's failures stay with that caller (HTTP, per-request)", () => {
  it.scopedLive("seven bad keys from one caller: it is held, the others are still served", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const server = yield* Spawn.serveHttp({ SVC_URL: sandbox.url, SVC_MCP_CREDENTIALS: "per-request" })
      const list = { name: "svc_list", arguments: { resource_type: "tag" } }
      const bad = (i: number): Caller => ({ from: "127.0.0.2", key: `bad-key-${i}`, secret: `bad-secret-${i}` })
      const texts: Array<string> = []
      for (let i = 0; i < 7; i++) {
        const answer = yield* call(server.url, bad(i), list)
        expect(answer.body.result.isError).toBe(true)
        texts.push(JSON.stringify(answer.body.result.structuredContent))
      }
      // The service counts five failures from the caller's address, then answers 429 to it.
      expect(texts.slice(0, 5).every((t) => t.includes("401") || t.includes("authentication"))).toBe(true)
      expect(texts.slice(5).every((t) => t.includes("429"))).toBe(true)
      // Every other caller, from its own address, is served: the server's address was never charged.
      for (const [from, who] of [
        ["127.0.0.3", sandbox.apiKey],
        ["127.0.0.4", sandbox.viewer.apiKey],
      ] as const) {
        const answer = yield* call(server.url, { from, ...who }, list)
        expect(answer.body.result.isError, from).toBeFalsy()
      }
      // The held caller is held still, by its address, even with a good key.
      const held = yield* call(server.url, { from: "127.0.0.2", ...sandbox.apiKey }, list)
      expect(JSON.stringify(held.body.result.structuredContent)).toContain("429")
    }),
  )

  it.scopedLive("a refused key is not sent again: the same refusal at once, said to be remembered", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKeys: [ADMIN] })
      const server = yield* Spawn.serveHttp({ SVC_URL: double.url, SVC_MCP_CREDENTIALS: "per-request" })
      const list = { name: "svc_list", arguments: { resource_type: "tag" } }
      const wrong: Caller = { from: "127.0.0.2", key: ADMIN.key, secret: "wrong-secret-value" }
      const first = yield* call(server.url, wrong, list)
      expect(first.body.result.isError).toBe(true)
      expect(double.calls()).toHaveLength(1)
      expect(double.calls()[0]?.headers["x-forwarded-for"]).toBe("127.0.0.2")
      const again = yield* call(server.url, wrong, list)
      expect(again.body.result.isError).toBe(true)
      expect(JSON.stringify(again.body.result)).toMatch(/remembered, so it is not sent again until/)
      expect(double.calls()).toHaveLength(1)
      // The corrected secret is another key to the server: sent, and served.
      // A header the caller sent itself is never passed on: its peer is no trusted proxy.
      const right = yield* call(server.url, { from: "127.0.0.2", ...ADMIN }, list, {
        "x-forwarded-for": "203.0.113.9",
      })
      expect(right.body.result.isError).toBeFalsy()
      expect(double.calls()).toHaveLength(2)
      expect(double.calls().map((r) => r.headers["x-forwarded-for"])).toEqual(["127.0.0.2", "127.0.0.2"])
      // The wrong secret stays remembered: the success was another key+secret's.
      const still = yield* call(server.url, wrong, list)
      expect(JSON.stringify(still.body.result)).toMatch(/remembered/)
      expect(double.calls()).toHaveLength(2)
    }),
  )

  it.scopedLive("behind a trusted proxy, the client it reports is the caller's address", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKeys: [ADMIN] })
      const server = yield* Spawn.serveHttp({
        SVC_URL: double.url,
        SVC_MCP_CREDENTIALS: "per-request",
        SVC_MCP_TRUSTED_PROXIES: "127.0.0.5/32",
      })
      const list = { name: "svc_list", arguments: { resource_type: "tag" } }
      const viaProxy = yield* call(server.url, { from: "127.0.0.5", ...ADMIN }, list, {
        "x-forwarded-for": "198.51.100.7, 127.0.0.5",
      })
      expect(viaProxy.body.result.isError).toBeFalsy()
      const direct = yield* call(server.url, { from: "127.0.0.6", ...ADMIN }, list, {
        "x-forwarded-for": "198.51.100.7",
      })
      expect(direct.body.result.isError).toBeFalsy()
      expect(double.calls().map((r) => r.headers["x-forwarded-for"])).toEqual(["198.51.100.7", "127.0.0.6"])
    }),
  )
})
