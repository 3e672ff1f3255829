/**
 * A secret taken in from the person on a form of svc-mcp's (URL-mode elicitation), never through
 * the model: the built server over HTTP against the sandbox, in both protocol eras, with the SDK
 * client declaring URL mode. A secret variable is created with `from_person: ["value"]`: asked
 * first where SVC_CONFIRM asks, then the form; the value typed into the form is the one the
 * service holds (read back as its admin), and it is in no answer, log or audit line, whose line
 * says which param the person gave. On the 2025 revision the client is told the form was sent
 * (`notifications/elicitation/complete`). A client without URL mode is refused, told how the
 * person sets it themselves, and nothing is made.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Browser from "../support/Browser.js"
import * as Clients from "../support/Clients.js"
import * as Sandbox from "../support/Sandbox.js"
import { expectTaken } from "../support/SecretTaken.js"
import * as Spawn from "../support/Spawn.js"
import * as TempDir from "../support/TempDir.js"
import * as Wait from "../support/Wait.js"

const SECRET = "sk-live-only-the-person-and-the-service-hold-this-4f1c"

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly isError?: boolean
}

const connect = (era: Clients.Era, answering: Clients.Answering) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox.scoped()
    const audit = Path.join(yield* TempDir.scoped("svc-mcp-form-"), "audit.log")
    const served = yield* Spawn.serveHttp({
      SVC_URL: sandbox.url,
      SVC_API_KEY: sandbox.apiKey.key,
      SVC_API_SECRET: sandbox.apiKey.secret,
      SVC_AUDIT_LOG: audit,
      SVC_CONFIRM: "svc_create:variable",
    })
    const made = yield* Clients.overHttp(served.url, { name: "svc-mcp-secret-form", era, answering })
    const call = (args: Record<string, unknown>) =>
      made.client.callTool({ name: "svc_create", arguments: args }) as Promise<Result>
    const auditText = () => (Fs.existsSync(audit) ? Fs.readFileSync(audit, "utf8") : "")
    const variable = (name: string) => Sandbox.asAdmin(sandbox).call("read/GetVariable", { name })
    return { ...made, call, auditText, variable, stderr: served.stderr }
  })

const create = {
  resource_type: "variable",
  params: { name: "API_SIGNING_KEY", is_secret: true },
  from_person: ["value"],
}

for (const era of ["modern", "legacy"] as const) {
  describe(`a secret taken in from the person, ${era}`, () => {
    it.scopedLive("the value typed into the form is at the service, and in no answer, log or audit line", () =>
      Effect.gen(function* () {
        const { call, pages, asked, elicitations, completed, auditText, variable, stderr } = yield* connect(era, "open")
        const answered = call(create)
        yield* Wait.until(() => pages.length === 1, 20_000)
        // SVC_CONFIRM's question first, then the form's.
        expect(asked).toHaveLength(2)
        expect(asked[0]).not.toMatch(/page of svc-mcp's/)
        expect(asked[1]).toMatch(/type "value" of the variable "API_SIGNING_KEY"/)
        const url = pages[0] as string
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/form\/[A-Za-z0-9_-]{22}$/)
        const form = yield* Effect.promise(() => fetch(url).then((r) => r.text()))
        const csrf = Browser.csrfOf(form)
        expect(form).toMatch(/name="value" type="password"/)
        const sent = yield* Effect.promise(() =>
          fetch(url, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ csrf, value: SECRET }).toString(),
          }),
        )
        expect(sent.status).toBe(200)
        const result = yield* Effect.promise(() => answered)
        const held = variable("API_SIGNING_KEY")
        const intents = yield* expectTaken({ result, secret: SECRET, held, stderr, auditText })
        // ... and to whom.
        expect(intents[0]?.secret).toEqual({ passed: "taken", params: ["value"], person: expect.any(String) })
        // The form is gone once sent.
        expect((yield* Effect.promise(() => fetch(url))).status).toBe(404)
        if (era === "legacy") {
          // The 2025 revision's elicitation has an id, and its client is told when the form was sent.
          expect(elicitations).toHaveLength(1)
          expect(completed).toEqual(elicitations)
        } else {
          expect(completed).toEqual([])
        }
      }),
    )

    it.scopedLive("a param that is no secret, or given in params too, is refused before anything is asked", () =>
      Effect.gen(function* () {
        const { call, pages, asked } = yield* connect(era, "open")
        const named = yield* Effect.promise(() =>
          call({ resource_type: "variable", params: { name: "PLAIN" }, from_person: ["description"] }),
        )
        expect(named.isError).toBe(true)
        expect(named.content[0]?.text).toMatch(/"description" is not a secret param/)
        const twice = yield* Effect.promise(() =>
          call({ resource_type: "variable", params: { name: "TWICE", value: "x" }, from_person: ["value"] }),
        )
        expect(twice.content[0]?.text).toMatch(/given in params too/)
        expect(asked).toEqual([])
        expect(pages).toEqual([])
      }),
    )

    it.scopedLive("a client without URL mode is refused, told how the person sets it, and nothing is made", () =>
      Effect.gen(function* () {
        const { call, pages, asked, variable } = yield* connect(era, "accept")
        const result = yield* Effect.promise(() => call(create))
        expect(result.isError).toBe(true)
        expect(result.content[0]?.text).toMatch(/Nothing was sent: .*this client opens no pages/)
        expect(result.content[0]?.text).toMatch(/can set it themselves in the service's own UI/)
        expect(asked).toEqual([])
        expect(pages).toEqual([])
        expect((yield* variable("API_SIGNING_KEY")).status).not.toBe(200)
      }),
    )
  })
}
