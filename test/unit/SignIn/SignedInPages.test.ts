/**
 * A secret's form with sign-in (SignIn/SignedInPages.ts) against a real authorization server
 * (oidc-provider), the person's browser following its redirects: the form at
 * `<public>/secrets/form/{id}` is shown and taken only for the identity that owns it, signed in by
 * the authorization code with PKCE; a bare client holding the URL, or another person, gets nothing
 * of it, and it stays open for its owner; its CSRF token, one sending, lifetime and body bound hold
 * as on loopback.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SecretForm from "../../../src/Confirmation/SecretForm.js"
import { MOST_BODY } from "../../../src/Confirmation/SecretFormPage.js"
import { makeStore } from "../../../src/Confirmation/SecretPages.js"
import * as SignedInPages from "../../../src/SignIn/SignedInPages.js"
import * as Browser from "../../support/Browser.js"
import * as PagesSignIn from "../../support/PagesSignIn.js"

const MINUTE = 60_000
const VALUE = "sk-typed-by-the-person-alone-7e21"

/** The pages and forms on a server of their own on 127.0.0.1, the issuer knowing their return; the clock the test's. */
const setUp = Effect.gen(function* () {
  const { server, base } = yield* PagesSignIn.loopback
  const as = yield* PagesSignIn.issuer(base)
  const clock = { now: 1_000_000 }
  const forms = SecretForm.makeStore(10 * MINUTE)
  const settings = PagesSignIn.settings(base, as.issuer)
  const pages = {
    store: makeStore(10 * MINUTE),
    urlOf: () => Promise.reject(new Error("no loopback page with sign-in")),
    forms: () => Promise.resolve(forms),
  }
  const made = Option.getOrThrow(SignedInPages.make(settings, pages, () => clock.now))
  server.on("request", made.route)
  const ownerOf = (login: string) => PagesSignIn.ownerOf(as.issuer, login)
  /** A form of `login`'s asking for `value`, its address as the tools are given it, and what reaches the call. */
  const formOf = (login: string | undefined) => {
    const form = forms.make(
      "binding",
      "call",
      { title: "Give value", fields: ["value"] },
      clock.now,
      login === undefined ? undefined : ownerOf(login),
    )
    const url = made.pages.signedIn?.formUrlOf?.(form.id) ?? ""
    const taken: Array<SecretForm.Values> = []
    forms.wait(form.id, "binding", (values) => taken.push(values), clock.now)
    return { id: form.id, url, taken }
  }
  /** `login` at `browser`, opening `url`. */
  const visit = PagesSignIn.visitor(as)
  const post = (browser: Browser.Browser, url: string, fields: Record<string, string>, headers = {}) =>
    Effect.promise(() => browser.post(url, fields, headers))
  return { as, base, clock, forms, formOf, visit, post }
})

const csrfOf = Browser.csrfOf

describe("a secret's form with sign-in", () => {
  it.scopedLive("is shown to its owner, signed in at the issuer, and taken from them once", () =>
    Effect.gen(function* () {
      const { as, base, formOf, visit, post } = yield* setUp
      const form = formOf("alice")
      expect(form.url).toBe(`${base}/secrets/form/${form.id}`)
      const browser = Browser.make()
      const shown = yield* visit("alice", form.url, browser)
      // Sent to the issuer and back, then the form, with its token.
      expect(shown.hops[1]).toMatch(new RegExp(`^${as.issuer}/`))
      expect(shown.url).toBe(form.url)
      expect(shown.status).toBe(200)
      expect(shown.body).toMatch(/name="value" type="password"/)
      const csrf = csrfOf(shown.body)
      expect(csrf).not.toBe("")
      const sent = yield* post(browser, form.url, { csrf, value: VALUE })
      expect(sent.status).toBe(200)
      expect(sent.body).toMatch(/svc-mcp has the values/)
      expect(form.taken).toEqual([{ value: VALUE }])
      // Once: sent again, or opened again, it is nothing.
      expect((yield* post(browser, form.url, { csrf, value: "again" })).status).toBe(404)
      expect((yield* Effect.promise(() => browser.open(form.url))).status).toBe(404)
      expect(form.taken).toHaveLength(1)
    }),
  )

  it.scopedLive("gives a bare client holding the URL nothing, and stays open for its owner", () =>
    Effect.gen(function* () {
      const { as, clock, forms, formOf, visit, post } = yield* setUp
      const form = formOf("alice")
      const first = yield* Effect.promise(() => fetch(form.url, { redirect: "manual" }))
      const body = yield* Effect.promise(() => first.text())
      expect(first.status).toBe(302)
      expect(first.headers.get("location")).toMatch(new RegExp(`^${as.issuer}/`))
      expect(body).not.toContain("csrf")
      // Even with the form's own token, a POST from no one signed in is nothing, and takes nothing.
      const token = forms.show(form.id, clock.now, JSON.stringify([as.issuer, "alice"]))?.token ?? ""
      expect(token).not.toBe("")
      const bare = yield* post(Browser.make(), form.url, { csrf: token, value: "from-the-client" })
      expect(bare.status).toBe(404)
      expect(form.taken).toEqual([])
      const browser = Browser.make()
      const shown = yield* visit("alice", form.url, browser)
      expect(shown.status).toBe(200)
      expect((yield* post(browser, form.url, { csrf: csrfOf(shown.body), value: VALUE })).status).toBe(200)
      expect(form.taken).toEqual([{ value: VALUE }])
    }),
  )

  it.scopedLive("shows another person nothing and takes nothing from them; it stays its owner's", () =>
    Effect.gen(function* () {
      const { as, clock, forms, formOf, visit, post } = yield* setUp
      const form = formOf("alice")
      const bobs = Browser.make()
      const bob = yield* visit("bob", form.url, bobs)
      // Signed in (back at the form from the issuer), and refused as not its owner.
      expect(bob.hops.some((hop) => hop.includes("/secrets/callback?"))).toBe(true)
      expect(bob.url).toBe(form.url)
      expect(bob.status).toBe(404)
      expect(bob.body).not.toContain("csrf")
      const token = forms.show(form.id, clock.now, JSON.stringify([as.issuer, "alice"]))?.token ?? ""
      expect((yield* post(bobs, form.url, { csrf: token, value: "from-bob" })).status).toBe(404)
      expect(form.taken).toEqual([])
      const alices = Browser.make()
      const shown = yield* visit("alice", form.url, alices)
      expect((yield* post(alices, form.url, { csrf: csrfOf(shown.body), value: VALUE })).status).toBe(200)
      expect(form.taken).toEqual([{ value: VALUE }])
    }),
  )

  it.scopedLive("refuses a wrong token, another origin and a body past its bound; the form stays open", () =>
    Effect.gen(function* () {
      const { formOf, visit, post } = yield* setUp
      const form = formOf("alice")
      const browser = Browser.make()
      const csrf = csrfOf((yield* visit("alice", form.url, browser)).body)
      expect((yield* post(browser, form.url, { csrf: "A".repeat(32), value: VALUE })).status).toBe(403)
      const elsewhere = { origin: "https://elsewhere.example", "sec-fetch-site": "cross-site" }
      expect((yield* post(browser, form.url, { csrf, value: VALUE }, elsewhere)).status).toBe(403)
      expect((yield* post(browser, form.url, { csrf, value: "x".repeat(MOST_BODY) })).status).toBe(413)
      expect((yield* post(browser, form.url, { csrf, value: VALUE, other: "x" })).status).toBe(400)
      expect(form.taken).toEqual([])
      expect((yield* post(browser, form.url, { csrf, value: VALUE })).status).toBe(200)
      expect(form.taken).toEqual([{ value: VALUE }])
    }),
  )

  it.scopedLive("after its lifetime, of no owner, or made up, it is nothing, and no sign-in begins", () =>
    Effect.gen(function* () {
      const { base, clock, formOf, visit } = yield* setUp
      const late = formOf("alice")
      clock.now += 10 * MINUTE
      const gone = yield* visit("alice", late.url)
      expect(gone.hops).toHaveLength(1)
      expect(gone.status).toBe(404)
      // A loopback form (no owner) is not served here.
      const unowned = formOf(undefined)
      const loopback = yield* visit("alice", `${base}/secrets/form/${unowned.id}`)
      expect(loopback.hops).toHaveLength(1)
      expect(loopback.status).toBe(404)
      expect((yield* visit("alice", `${base}/secrets/form/${"A".repeat(22)}`)).status).toBe(404)
    }),
  )
})
