/**
 * The shared store's outage under two replicas of the built server with minted
 * keys, a real redis-server (Debian's) killed, then stalled (SIGSTOP) and woken
 * (SIGCONT), the sandbox as the service and a stand-in issuer (oidc-provider):
 * a person already served goes on being served on either replica; a new person
 * is refused at once (within the store's time-out, well within any client's
 * patience) with a 503 that says why; `/readyz` says not ready, and why to an
 * operator's token; the log says what happened to the store, and the audit log
 * holds each refused call. And `/readyz` checks the issuer.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as AuthServer from "../support/AuthServer.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Ports from "../support/Ports.js"
import * as Redis from "../support/Redis.js"
import * as Sandbox from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"
import { eventually } from "../support/Wait.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const client = (id: string) => ({ id, secret: `${id}-client-secret-0123456789` })
const ALICE = client("alice")
const BOB = client("bob")
const CAROL = client("carol")
const PUBLIC = "http://svc-mcp.outage.test"
const STATE_KEY = "the-replicas-share-this-state-key-of-44-bytes"
const META = HttpMcp.modernMeta("outage-test", { elicitation: {} })
const email = AuthServer.emailOf

/** Far beyond the store's 500 ms, far within a client's 60 s: a refusal that comes at all comes fast. */
const PROMPT_MS = 15_000

const LIST = { name: "svc_list", arguments: { resource_type: "tag" } }

const call = (url: string, token: string, params: Record<string, unknown> = LIST) =>
  HttpMcp.modern(url, "tools/call", params, { meta: META, headers: { authorization: `Bearer ${token}` } })

const served = (answer: { status: number; body: Any }) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  expect(answer.body.result?.isError, JSON.stringify(answer.body)).toBeFalsy()
}

/** A first call while the store does not answer: 503 within the bound, saying why. */
const refusedPromptly = (url: string, token: string, person: string, detail: RegExp) =>
  Effect.gen(function* () {
    const started = Date.now()
    const answer = yield* call(url, token)
    expect(Date.now() - started).toBeLessThan(PROMPT_MS)
    expect(answer.status).toBe(503)
    const message = answer.body.error.message as string
    expect(message).toContain(`no service key could be minted for "${person}": the shared store at redis://127.0.0.1:`)
    expect(message).toMatch(detail)
    expect(message).toContain("people this replica has served already go on being served")
  })

const readyz = (url: string, token?: string) =>
  Effect.map(
    HttpMcp.raw(
      url.replace(/\/mcp$/, "/readyz"),
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    ),
    ({ status, body }) => ({ status, body: JSON.parse(body) as Any }),
  )

const auditLines = (file: string): ReadonlyArray<Any> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line))
    : []

const refusedIn = (file: string, person: string) =>
  auditLines(file).filter((line) => line.who === `oauth:${person}` && line.outcome === "refused")

describe("the shared store's outage, two replicas minting keys", () => {
  it.scopedLive(
    "killed, then stalled: those served are served, a new person is refused at once, /readyz, the log and the audit say so",
    () =>
      Effect.gen(function* () {
        const redis = yield* Redis.scoped()
        const sandbox = yield* Sandbox.scoped()
        const as = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [ALICE, BOB, CAROL] })
        const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-outage-"))
        const identities = Path.join(folder, "identities.json")
        Fs.writeFileSync(
          identities,
          JSON.stringify({
            claim: "email",
            identities: Object.fromEntries(
              ["alice", "bob", "carol"].map((name) => [email(name), { mint: { level: "Write" } }]),
            ),
          }),
        )
        const audit = (name: string) => Path.join(folder, `audit-${name}.log`)
        const env = (name: string) => ({
          SVC_URL: sandbox.url,
          SVC_API_KEY: sandbox.apiKey.key,
          SVC_API_SECRET: sandbox.apiKey.secret,
          SVC_MCP_OAUTH_ISSUER: as.issuer,
          SVC_MCP_PUBLIC_URL: PUBLIC,
          SVC_MCP_IDENTITIES: identities,
          SVC_MCP_STORE: redis.url,
          SVC_MCP_STATE_KEY: STATE_KEY,
          SVC_GUARD: "off",
          SVC_CONFIRM: "svc_delete:*",
          SVC_AUDIT_LOG: audit(name),
        })
        const [a, b] = yield* Effect.all([Spawn.serveHttp(env("a")), Spawn.serveHttp(env("b"))], {
          concurrency: "unbounded",
        })
        if (a === undefined || b === undefined) throw new Error("two replicas")
        const token = (who: { id: string; secret: string }, scope: string) =>
          Effect.promise(() => as.clientToken(who, scope))
        const alice = yield* token(ALICE, "svc.write")
        const aliceReads = yield* token(ALICE, "svc.read")
        const bob = yield* token(BOB, "svc.write")
        const carol = yield* token(CAROL, "svc.write")

        // Alice is served on both replicas: her key is minted once, and opened by each.
        served(yield* call(a.url, alice))
        served(yield* call(b.url, alice))
        // /readyz with sign-in: the status to anyone, the details to a token with svc.write alone.
        const ready = yield* readyz(a.url)
        expect(ready.status).toBe(200)
        expect(ready.body).toEqual({ status: "ready", ready: true, store: { status: "up" } })
        const detailed = yield* readyz(a.url, alice)
        expect(detailed.body.store).toEqual({ status: "up", where: redis.url })
        expect((yield* readyz(a.url, aliceReads)).body.store).toEqual({ status: "up" })

        // 1. The store killed.
        yield* Effect.promise(() => redis.kill())
        for (const replica of [a, b]) served(yield* call(replica.url, alice))
        yield* refusedPromptly(a.url, bob, email("bob"), /does not answer \(get: [^)]+\)/)
        const down = yield* eventually(readyz(a.url), (r) => r.status === 503, 20_000)
        expect(down.status).toBe(503)
        expect(down.body).toMatchObject({
          status: "not ready",
          ready: false,
          reason: "store: not ready (the details are shown to an access token with svc.write)",
          store: { status: "down" },
        })
        const why = yield* readyz(a.url, alice)
        expect(why.status).toBe(503)
        expect(why.body.reason).toContain(`store: the shared store at ${redis.url} does not answer`)
        expect(why.body.reason).toContain("the people this replica holds a key for are still served")
        expect(a.stderr()).toMatch(/the shared store at redis:\/\/127\.0\.0\.1:\d+ is unreachable/)
        const bobRefused = refusedIn(audit("a"), email("bob"))
        expect(bobRefused).toHaveLength(1)
        expect(bobRefused[0]).toMatchObject({
          tool: "svc_list",
          acting: `svc-mcp:${email("bob")}`,
          sent: false,
          kind: "Unavailable",
          status: 503,
        })
        expect(bobRefused[0].reason).toContain("does not answer")

        // Back, empty: every replica ready again, and bob served.
        yield* Effect.promise(() => redis.restart())
        for (const replica of [a, b]) {
          expect((yield* eventually(readyz(replica.url), (r) => r.status === 200, 20_000)).status).toBe(200)
        }
        served(yield* eventually(call(b.url, bob), (answer) => answer.status === 200, 20_000))
        // The store came back empty: alice's key is minted anew, and the old one deleted at the
        // service. Each replica opens the new one from the store as it serves her and bob.
        for (const replica of [a, b]) {
          served(yield* call(replica.url, alice))
          served(yield* call(replica.url, bob))
        }

        // 2. The store stalled: its connections open, answering nothing.
        redis.pause()
        for (const replica of [a, b]) {
          served(yield* call(replica.url, alice))
          served(yield* call(replica.url, bob))
        }
        yield* refusedPromptly(b.url, carol, email("carol"), /does not answer \(get: no answer within 500 ms\)/)
        // A change to be confirmed: its question cannot be recorded, so it is refused, promptly, nothing sent.
        const started = Date.now()
        const deleting = yield* call(a.url, alice, {
          name: "svc_delete",
          arguments: { resource_type: "tag", params: { id: "no-such-tag" } },
        })
        expect(Date.now() - started).toBeLessThan(PROMPT_MS)
        expect(deleting.body.result?.resultType).toBe("complete")
        expect(deleting.body.result?.isError).toBe(true)
        expect(JSON.stringify(deleting.body.result)).toContain("the confirmation could not be recorded")
        const deleteRefused = auditLines(audit("a")).filter((line) => line.tool === "svc_delete")
        expect(deleteRefused).toHaveLength(1)
        expect(deleteRefused[0]).toMatchObject({ who: `oauth:${email("alice")}`, outcome: "refused", sent: false })
        const stalled = yield* eventually(readyz(b.url, alice), (r) => r.status === 503, 20_000)
        expect(stalled.status).toBe(503)
        expect(stalled.body.reason).toContain("does not answer (no answer within 500 ms)")
        expect(b.stderr()).toMatch(
          /the shared store at redis:\/\/127\.0\.0\.1:\d+ does not answer \(no answer within 500 ms\): it has stalled/,
        )
        expect(refusedIn(audit("b"), email("carol"))).toHaveLength(1)

        // Woken: it answers again, said so; carol is served.
        redis.resume()
        expect((yield* eventually(readyz(b.url), (r) => r.status === 200, 20_000)).status).toBe(200)
        served(yield* eventually(call(b.url, carol), (answer) => answer.status === 200, 20_000))
        expect(b.stderr()).toMatch(/the shared store at redis:\/\/127\.0\.0\.1:\d+ answers again/)
        // Nothing of a minted key's secret in any line written.
        for (const key of sandbox.world.apiKeys) {
          expect(a.stderr() + b.stderr()).not.toContain(key.secret)
          expect(Fs.readFileSync(audit("a"), "utf8") + Fs.readFileSync(audit("b"), "utf8")).not.toContain(key.secret)
        }
      }),
    150_000,
  )

  it.scopedLive("/readyz checks the issuer: one that does not answer leaves the server not ready", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandbox.scoped()
      const issuer = `http://127.0.0.1:${yield* Ports.closedPort}/realms/team`
      const server = yield* Spawn.serveHttp({
        SVC_URL: sandbox.url,
        SVC_API_KEY: sandbox.apiKey.key,
        SVC_API_SECRET: sandbox.apiKey.secret,
        SVC_MCP_OAUTH_ISSUER: issuer,
        SVC_MCP_PUBLIC_URL: PUBLIC,
      })
      const answer = yield* readyz(server.url)
      expect(answer.status).toBe(503)
      expect(answer.body).toEqual({
        status: "not ready",
        ready: false,
        reason: "issuer: not ready (the details are shown to an access token with svc.write)",
      })
    }),
  )
})
