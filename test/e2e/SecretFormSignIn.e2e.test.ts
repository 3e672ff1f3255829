/**
 * With sign-in, a secret is taken in on a form of the HTTP server's own
 * (`<public>/secrets/form/{id}`) that opens only for the person whose call asked, signed in at the
 * same issuer in their browser: the built server over the sandbox, signed in at a real
 * authorization server (oidc-provider), the SDK client declaring URL mode with the person's
 * access token, in both protocol eras. The client holding the URL and the token is sent to the
 * issuer and sees no form; another person, signed in, sees nothing; the person types the value,
 * which the service then holds, and which is in no answer, log or audit line. Without the pages'
 * client, a signed-in person is refused, told what the operator sets, and nothing is made.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Browser from "../support/Browser.js"
import * as Clients from "../support/Clients.js"
import * as PagesSignIn from "../support/PagesSignIn.js"
import * as Sandbox from "../support/Sandbox.js"
import { expectTaken } from "../support/SecretTaken.js"
import * as Spawn from "../support/Spawn.js"
import * as TempDir from "../support/TempDir.js"
import * as Wait from "../support/Wait.js"

const NAME = "svc-mcp-secret-form-signin"
const SECRET = "sk-live-typed-by-alice-on-her-own-form-91d0"

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly isError?: boolean
}

const create = {
  resource_type: "variable",
  params: { name: "API_SIGNING_KEY", is_secret: true },
  from_person: ["value"],
}

/** The server over the sandbox signing people in at the test's issuer, with the pages' client or without; alice's client connected. */
const setUp = (era: Clients.Era, pageClient = true) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox.scoped()
    const { as, base, resource, env } = yield* PagesSignIn.served(pageClient)
    const audit = Path.join(yield* TempDir.scoped("svc-mcp-form-signin-"), "audit.log")
    const served = yield* Spawn.serveHttp({
      SVC_URL: sandbox.url,
      SVC_API_KEY: sandbox.apiKey.key,
      SVC_API_SECRET: sandbox.apiKey.secret,
      SVC_REACH: "all",
      SVC_AUDIT_LOG: audit,
      ...env,
    })
    const authorization = yield* PagesSignIn.authorization(as, resource)
    const made = yield* Clients.overHttp(served.url, { name: NAME, era, answering: "open", headers: { authorization } })
    const call = (args: Record<string, unknown>) =>
      made.client.callTool({ name: "svc_create", arguments: args }) as Promise<Result>
    const visit = PagesSignIn.visitor(as)
    const variable = (name: string) => Sandbox.asAdmin(sandbox).call("read/GetVariable", { name })
    const auditText = () => (Fs.existsSync(audit) ? Fs.readFileSync(audit, "utf8") : "")
    return { ...made, as, base, call, visit, variable, authorization, auditText, stderr: served.stderr }
  })

describe("a secret taken in on a form with sign-in, over HTTP", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.scopedLive(`${era}: the person signed in sets the value; the client and another person get nothing`, () =>
      Effect.gen(function* () {
        const {
          as,
          base,
          call,
          pages,
          asked,
          elicitations,
          completed,
          visit,
          variable,
          authorization,
          auditText,
          stderr,
        } = yield* setUp(era)
        const answered = call(create)
        yield* Wait.until(() => pages.length === 1, 20_000)
        expect(asked).toHaveLength(1)
        expect(asked[0]).toMatch(/sign in there as yourself first: it opens for you alone/)
        expect(asked[0]).toMatch(/type "value" of the variable "API_SIGNING_KEY"/)
        const url = pages[0] as string
        expect(url).toMatch(new RegExp(`^${base}/secrets/form/[A-Za-z0-9_-]{22}$`))

        // The client holds the URL and the person's access token: sent to the issuer, no form.
        for (const headers of [{}, { authorization }]) {
          const response = yield* Effect.promise(() => fetch(url, { redirect: "manual", headers }))
          expect(response.status).toBe(302)
          expect(response.headers.get("location")).toMatch(new RegExp(`^${as.issuer}/`))
          expect(yield* Effect.promise(() => response.text())).not.toContain("csrf")
        }
        // Another person, signed in at the same issuer: back at the form, and nothing.
        const bob = yield* visit("bob", url)
        expect(bob.url).toBe(url)
        expect(bob.status).toBe(404)
        expect(bob.body).not.toContain("csrf")
        // The person who asked: the form, then the value sent.
        const browser = Browser.make()
        const shown = yield* visit("alice", url, browser)
        expect(shown.status).toBe(200)
        const csrf = Browser.csrfOf(shown.body)
        expect(shown.body).toMatch(/name="value" type="password"/)
        const sent = yield* Effect.promise(() => browser.post(url, { csrf, value: SECRET }))
        expect(sent.status).toBe(200)

        const result = yield* Effect.promise(() => answered)
        yield* expectTaken({ result, secret: SECRET, held: variable("API_SIGNING_KEY"), stderr, auditText })
        // Sent: the form is nothing now, even to its person.
        expect((yield* Effect.promise(() => browser.open(url))).status).toBe(404)
        // The 2025 revision's client is told the form was sent; 2026-07-28 has no such notification.
        expect(completed).toEqual(era === "legacy" ? elicitations : [])
        expect(elicitations).toHaveLength(era === "legacy" ? 1 : 0)
      }),
    )
  }

  it.scopedLive("without the pages' client, a signed-in person is refused, told what the operator sets", () =>
    Effect.gen(function* () {
      const { call, pages, asked, variable } = yield* setUp("modern", false)
      const result = yield* Effect.promise(() => call(create))
      expect(result.isError).toBe(true)
      expect(result.content[0]?.text).toMatch(/Nothing was sent: .*SVC_MCP_OAUTH_PAGE_CLIENT_ID/)
      expect(result.content[0]?.text).toMatch(/can set it themselves in the service's own UI/)
      expect(asked).toEqual([])
      expect(pages).toEqual([])
      expect((yield* variable("API_SIGNING_KEY")).status).not.toBe(200)
    }),
  )
})
