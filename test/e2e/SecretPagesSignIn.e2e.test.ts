/**
 * With sign-in, a secret's page is the HTTP server's own (`<public>/secrets/{id}`) and opens only
 * for the person whose call made the secret, signed in at the same issuer in their browser: the
 * built server over the sandbox, signed in at a real authorization server (oidc-provider), the
 * SDK client declaring URL mode with the person's access token. Opened without signing in (by
 * the client, which holds the URL and the token), it sends the browser to the issuer and shows
 * nothing; signed in as another person, nothing; as the person, the secret, once. In both protocol
 * eras (2026-07-28, and 2025-11-25 asked on its POST's stream). A page past its lifetime shows
 * nothing: on the tests' clock, in test/unit/SignIn/PageSignIn.test.ts; and the lifetime the
 * bundle's pages have is SVC_MCP_SECRET_PAGE_LIFETIME's, 30 s at the shortest, in
 * test/unit/Confirmation/SecretPages.test.ts, not waited for here on the real clock.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as PagesSignIn from "../support/PagesSignIn.js"
import * as Spawn from "../support/Spawn.js"

const NAME = "svc-mcp-secret-pages-signin"
const SECRET = /S-[0-9a-f]{48}/
const makeKey = { resource_type: "api_key_for_service_user", params: { user_id: "ci-deployer", name: "deploys" } }

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly isError?: boolean
}

/** The server signing people in at the test's issuer, with the pages' client or without; alice's client connected. */
const setUp = (env: Record<string, string> = {}, pageClient = true, era: Clients.Era = "modern") =>
  Effect.gen(function* () {
    const signIn = yield* PagesSignIn.served(pageClient)
    const { as, base, resource } = signIn
    const audit = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-pages-signin-")), "audit.log")
    const served = yield* Spawn.serveHttp({ SVC_REACH: "all", SVC_AUDIT_LOG: audit, ...signIn.env, ...env }, [
      "--sandbox",
    ])
    const authorization = yield* PagesSignIn.authorization(as, resource)
    const made = yield* Clients.overHttp(served.url, {
      name: NAME,
      era,
      answering: "open",
      headers: { authorization },
    })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => made.client.callTool({ name, arguments: args }) as Promise<Result>)
    /** `login` at a browser of their own, opening `url`. */
    const visit = (login: string, url: string) => PagesSignIn.visitor(as)(login, url)
    const auditText = () => (Fs.existsSync(audit) ? Fs.readFileSync(audit, "utf8") : "")
    return { ...made, as, base, call, visit, authorization, stderr: served.stderr, auditText }
  })

describe("a secret's page with sign-in, over HTTP", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.scopedLive(`${era}: opens for the person who asked, signed in at the issuer, once; for no one else`, () =>
      Effect.gen(function* () {
        const { as, base, call, pages, asked, visit, authorization, stderr, auditText } = yield* setUp({}, true, era)
        const made = yield* call("svc_create", makeKey)
        const text = JSON.stringify(made)
        expect(made.isError, text).toBeFalsy()
        expect(text).not.toMatch(SECRET)
        // To whom: the person signed in, by name (their subject, with no identities file to name a claim).
        expect(text).toContain('handed to \\"alice\\", signed in, on a page')
        expect(asked).toHaveLength(1)
        expect(asked[0]).toMatch(/sign in there as yourself first/)
        expect(pages).toHaveLength(1)
        const page = pages[0] as string
        expect(page).toMatch(new RegExp(`^${base}/secrets/[A-Za-z0-9_-]{22}$`))
        const key = /K-[0-9a-f]{24}/.exec(text)?.[0]
        expect(key).toBeDefined()

        // The client holds the URL and the person's access token: it is sent to the issuer, and sees nothing.
        for (const headers of [{}, { authorization }]) {
          const response = yield* Effect.promise(() => fetch(page, { redirect: "manual", headers }))
          const body = yield* Effect.promise(() => response.text())
          expect(response.status).toBe(302)
          expect(response.headers.get("location")).toMatch(new RegExp(`^${as.issuer}/`))
          expect(body).not.toMatch(SECRET)
          expect(body).not.toContain(key)
        }
        // Another person, signed in at the same issuer: back at the page, and nothing.
        const bob = yield* visit("bob", page)
        expect(bob.url).toBe(page)
        expect(bob.status).toBe(404)
        expect(bob.body).not.toMatch(SECRET)
        // The person who asked: the key and its secret, once.
        const alice = yield* visit("alice", page)
        expect(alice.status).toBe(200)
        expect(alice.body).toContain(key)
        const secret = SECRET.exec(alice.body)?.[0] as string
        expect(secret).toBeDefined()
        const again = yield* visit("alice", page)
        expect(again.status).toBe(404)
        expect(again.body).not.toMatch(SECRET)
        expect(stderr()).not.toContain(secret)
        expect(auditText()).toMatch(/CreateApiKeyForServiceUser/)
        expect(auditText()).not.toContain(secret)
      }),
    )
  }

  it.scopedLive("without the pages' client, a signed-in person's secret stays withheld, as before", () =>
    Effect.gen(function* () {
      const { call, pages } = yield* setUp({}, false)
      const made = yield* call("svc_create", makeKey)
      const text = JSON.stringify(made)
      expect(made.isError, text).toBeFalsy()
      expect(pages).toHaveLength(0)
      expect(text).not.toMatch(SECRET)
      expect(text).toMatch(/can make the API key \\"deploys\\" for the service user \\"ci-deployer\\" themselves/)
    }),
  )
})
