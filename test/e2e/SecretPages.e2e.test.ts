/**
 * A secret the service shows once, handed to the person on a page of svc-mcp's (URL-mode
 * elicitation), never to the model: the built server over the sandbox at SVC_REACH=all, in both
 * protocol eras (2026-07-28 over HTTP, 2025-11-25 over stdio), with the SDK client declaring URL
 * mode. The page shows the secret once; the answer, the log and the audit never hold it. A client
 * without URL mode keeps today's behaviour, and its answer says how the person makes one themselves.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"
import * as Wait from "../support/Wait.js"

const NAME = "svc-mcp-secret-pages"

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

const connect = (era: Clients.Era, answering: Clients.Answering) =>
  Effect.gen(function* () {
    const audit = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-pages-")), "audit.log")
    const env = { SVC_REACH: "all", SVC_AUDIT_LOG: audit }
    const served = era === "modern" ? yield* Spawn.serveHttp(env, ["--sandbox"]) : undefined
    const made =
      served === undefined
        ? yield* Spawn.v2({ name: NAME, era, env, args: ["--sandbox"], answering })
        : { ...(yield* Clients.overHttp(served.url, { name: NAME, era, answering })), stderr: served.stderr }
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => made.client.callTool({ name, arguments: args }) as Promise<Result>)
    const auditText = () => (Fs.existsSync(audit) ? Fs.readFileSync(audit, "utf8") : "")
    return { ...made, call, auditText }
  })

const makeKey = { resource_type: "api_key_for_service_user", params: { user_id: "ci-deployer", name: "deploys" } }

const open = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.text(), headers: response.headers }
  })

const SECRET = /S-[0-9a-f]{48}/

for (const era of ["modern", "legacy"] as const) {
  describe(`a secret handed to the person, ${era}`, () => {
    it.scopedLive(
      "a created key's secret reaches its page exactly once, and never the answer, the log or the audit",
      () =>
        Effect.gen(function* () {
          const { call, pages, asked, stderr, auditText, elicitations, completed } = yield* connect(era, "open")
          const made = yield* call("svc_create", makeKey)
          const text = JSON.stringify(made)
          expect(made.isError, text).toBeFalsy()
          // One question, the page's, naming what it makes; none in form mode.
          expect(asked).toHaveLength(1)
          expect(asked[0]).toMatch(/the API key "deploys" for the service user "ci-deployer"/)
          expect(pages).toHaveLength(1)
          const page = pages[0] as string
          expect(page).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{22}$/)
          // The model is told it was handed over, to whom and until when; the key's id, not its secret.
          expect(text).toMatch(/handed to the person using this client/)
          expect(text).toMatch(/open until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/)
          expect(text).toContain('"secret":"[redacted]"')
          expect(text).not.toMatch(SECRET)
          const key = /K-[0-9a-f]{24}/.exec(text)?.[0]
          expect(key).toBeDefined()
          const first = yield* open(page)
          expect(first.status).toBe(200)
          expect(first.headers.get("cache-control")).toBe("no-store")
          expect(first.body).toContain(key)
          const secret = SECRET.exec(first.body)?.[0]
          expect(secret).toBeDefined()
          // Opened again: nothing.
          const second = yield* open(page)
          expect(second.status).toBe(404)
          expect(second.body).not.toMatch(SECRET)
          expect(second.body).not.toContain(key)
          // A page never made shows nothing either.
          const guessed = yield* open(page.replace(/[A-Za-z0-9_-]{22}$/, "A".repeat(22)))
          expect(guessed.status).toBe(404)
          expect(stderr()).not.toContain(secret)
          expect(auditText()).toMatch(/CreateApiKeyForServiceUser/)
          expect(auditText()).not.toContain(secret)
          // The audit says the secret was handed over, which param and to whom; never the secret.
          const handed = auditText()
            .split("\n")
            .filter((line) => line.includes('"secret":{'))
            .map((line) => (JSON.parse(line) as { secret: unknown }).secret)
          expect(handed.length).toBeGreaterThan(0)
          expect(handed[0]).toEqual({ passed: "handed", params: ["secret"], person: expect.any(String) })
          if (era === "legacy") {
            // The 2025 revision's client is told the elicitation is complete once the page was read.
            expect(elicitations).toHaveLength(1)
            yield* Wait.until(() => completed.length === 1)
            expect(completed).toEqual(elicitations)
          } else {
            expect(completed).toEqual([])
          }
        }),
    )

    it.scopedLive("a page declined sends nothing", () =>
      Effect.gen(function* () {
        const { call, pages, auditText } = yield* connect(era, "refuse-page")
        const made = yield* call("svc_create", makeKey)
        expect(made.isError).toBe(true)
        expect(made.content[0]?.text).toMatch(/declined the page .*nothing was sent/)
        expect(pages).toHaveLength(1)
        const page = yield* open(pages[0] as string)
        expect(page.status).toBe(404)
        const lines = auditText()
          .split("\n")
          .filter((line) => line.includes("CreateApiKeyForServiceUser"))
          .map((line) => (JSON.parse(line) as { phase?: string; outcome?: string }).phase ?? "")
        expect(lines).not.toContain("intent")
      }),
    )

    it.scopedLive("a client without URL mode is asked as before, and told how the person makes the key", () =>
      Effect.gen(function* () {
        const { call, pages, asked } = yield* connect(era, "accept")
        const made = yield* call("svc_create", makeKey)
        const text = JSON.stringify(made)
        expect(made.isError, text).toBeFalsy()
        expect(pages).toHaveLength(0)
        expect(asked[0]).toMatch(/it will not be shown/)
        expect(text).toContain("[redacted]")
        expect(text).not.toMatch(SECRET)
        expect(text).toMatch(/can make the API key \\"deploys\\" for the service user \\"ci-deployer\\" themselves/)
      }),
    )
  })
}
