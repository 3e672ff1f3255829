/**
 * SVC_MCP_CREDENTIALS=per-request over HTTP: two users' clients at once, each
 * served with its own service credentials and nothing of the other's.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connect, INITIALIZE, JSON_HEADERS, raw, textOf } from "../support/HttpMcp.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const ADMIN = { key: "admin-key-4711", secret: "admin-secret-value-4711" }
const VIEWER = { key: "viewer-key", secret: "viewer-secret" }
const TOKEN = "a-long-random-token-for-per-request-tests"
const USERS = { apiKeys: [ADMIN, { ...VIEWER, readOnly: true }] }

const headersOf = (user: { key: string; secret: string }) => ({
  authorization: `Bearer ${TOKEN}`,
  "x-svc-api-key": user.key,
  "x-svc-api-secret": user.secret,
})

const tempFile = (name: string) => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-pr-")), name)

describe("per-request service credentials over HTTP", () => {
  it.scopedLive("serves two users at once, interleaved, each as itself, and nothing of one reaches the other", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      const audit = tempFile("audit.log")
      // No credentials of the server's own: each call can only use its caller's.
      const server = yield* Spawn.serveHttp({
        SVC_URL: double.url,
        SVC_MCP_CREDENTIALS: "per-request",
        SVC_MCP_TOKEN: TOKEN,
        SVC_AUDIT_LOG: audit,
      })
      const admin = yield* connect(server.url, headersOf(ADMIN))
      const viewer = yield* connect(server.url, headersOf(VIEWER))
      const calls = Array.from({ length: 6 }, (_, i) => [
        { who: ADMIN, client: admin, name: "svc_list", arguments: { resource_type: "stack" } },
        { who: VIEWER, client: viewer, name: "svc_list", arguments: { resource_type: "server" } },
        {
          who: ADMIN,
          client: admin,
          name: "svc_create",
          arguments: { resource_type: "tag", params: { name: `a${i}` } },
        },
        {
          who: VIEWER,
          client: viewer,
          name: "svc_create",
          arguments: { resource_type: "tag", params: { name: `v${i}` } },
        },
      ]).flat()
      const results = yield* Effect.promise(() =>
        Promise.all(calls.map((c) => c.client.callTool({ name: c.name, arguments: c.arguments }))),
      )
      const other = (who: typeof ADMIN) => (who === ADMIN ? VIEWER : ADMIN)
      results.forEach((result, i) => {
        const call = calls[i] as (typeof calls)[number]
        const shown = JSON.stringify(result)
        expect(shown).not.toContain(other(call.who).key)
        expect(shown).not.toContain(other(call.who).secret)
        expect(shown).not.toContain(call.who.secret)
        if (call.who === VIEWER && call.name === "svc_create") {
          // The service refused the read-only user's write, as it refuses a permission.
          expect(result.isError).toBe(true)
          expect(result.structuredContent).toMatchObject({ error: { kind: "service_error", status: 500 } })
          expect(textOf(result)).toContain("does not have permission")
        } else {
          expect(result.isError).toBeFalsy()
          expect(JSON.parse(textOf(result)).user).toBe(call.who.key)
        }
      })
      // Each request reached the service with one user's key and that user's secret, never a mix or a default.
      const calledWith = double.calls().map((r) => [r.headers["x-api-key"], r.headers["x-api-secret"]])
      expect(calledWith).toHaveLength(calls.length)
      for (const [key, secret] of calledWith) {
        expect([`${ADMIN.key}/${ADMIN.secret}`, `${VIEWER.key}/${VIEWER.secret}`]).toContain(`${key}/${secret}`)
      }
      expect(calledWith.filter(([key]) => key === VIEWER.key)).toHaveLength(calls.length / 2)
      expect(double.calls().every((r) => r.headers.authorization === undefined)).toBe(true)
      expect(double.logins).toBe(0)
      // The audit log names each write's caller by its key; no secret is in it, nor in the server's log.
      // The lines calls end with: a change's intent before it (test/e2e/Audit.e2e.test.ts) is left out.
      const lines = Fs.readFileSync(audit, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((l) => l.phase !== "intent")
      expect(lines).toHaveLength(12)
      expect(lines.filter((l) => l.caller === ADMIN.key && l.outcome === "ok")).toHaveLength(6)
      expect(lines.filter((l) => l.caller === VIEWER.key && l.outcome === "error" && l.status === 500)).toHaveLength(6)
      for (const l of lines) expect(l.target).toBe(l.params.name)
      const everything = `${Fs.readFileSync(audit, "utf8")}\n${server.stderr()}`
      for (const secret of [ADMIN.secret, VIEWER.secret, TOKEN]) expect(everything).not.toContain(secret)
      expect(server.stderr()).not.toContain(ADMIN.key)
    }),
  )

  it.scopedLive("answers 401 with a clear message to a request without both headers; nothing is sent", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      const server = yield* Spawn.serveHttp({ SVC_URL: double.url, SVC_MCP_CREDENTIALS: "per-request" })
      const none = yield* raw(server.url, { method: "POST", headers: JSON_HEADERS, body: INITIALIZE })
      expect(none.status).toBe(401)
      expect(JSON.parse(none.body).error.message).toMatch(/X-Svc-Api-Key and X-Svc-Api-Secret/)
      const keyOnly = yield* raw(server.url, {
        method: "POST",
        headers: { ...JSON_HEADERS, "x-svc-api-key": ADMIN.key },
        body: INITIALIZE,
      })
      expect(keyOnly.status).toBe(401)
      expect(JSON.parse(keyOnly.body).error.message).toContain("X-Svc-Api-Secret is missing")
      // A wrong secret is the service's to refuse: the call fails, without falling back to anything.
      const wrong = yield* connect(server.url, { "x-svc-api-key": ADMIN.key, "x-svc-api-secret": "not-the-secret" })
      const refused = yield* Effect.promise(() =>
        wrong.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }),
      )
      expect(refused.structuredContent).toMatchObject({ error: { kind: "auth" } })
      // The caller is told about the headers it sent, not the server's own variables.
      expect(JSON.stringify(refused.content)).toMatch(/X-Svc-Api-Key and X-Svc-Api-Secret the client sends/)
      expect(JSON.stringify(refused.content)).not.toMatch(/SVC_API_KEY/)
      expect(double.calls()).toHaveLength(1)
      expect(double.calls()[0]?.headers["x-api-secret"]).toBe("not-the-secret")
    }),
  )

  it.live("is refused over stdio, where no request carries a caller", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.run({ SVC_URL: "http://127.0.0.1:9", SVC_MCP_CREDENTIALS: "per-request" })
      expect(finished.code).toBe(2)
      expect(finished.stderr).toMatch(/SVC_MCP_CREDENTIALS is per-request, which needs HTTP/)
      const typo = yield* Spawn.run({ SVC_URL: "http://127.0.0.1:9", SVC_MCP_CREDENTIALS: "per-user" })
      expect(typo.code).toBe(2)
      expect(typo.stderr).toMatch(/SVC_MCP_CREDENTIALS is "per-user": use server .* or per-request/)
    }),
  )
})
