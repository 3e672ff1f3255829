/**
 * The secret pages in a real browser, Debian's chromium driven by playwright-core: with sign-in,
 * the page sends the browser to the issuer (oidc-provider), whose own login and consent forms the
 * person fills in, and back; the page then shows its person the secret, once, and another person
 * nothing. Without sign-in, the loopback page shows it once, a pending page reloading itself
 * until the secret is there.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Browser, chromium } from "playwright-core"
import * as SecretPageServer from "../../src/Confirmation/SecretPageServer.js"
import { makeStore, type Page } from "../../src/Confirmation/SecretPages.js"
import * as PageSignIn from "../../src/SignIn/PageSignIn.js"
import { ensureBinary } from "../support/Debian.js"
import * as PagesSignIn from "../support/PagesSignIn.js"

const MINUTE = 60_000
const SECRET = "S-0123456789abcdef0123456789abcdef"
const PAGE: Page = { title: "The secret of the API key", fields: [{ label: "secret", value: SECRET }] }

let browser: Browser

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: ensureBinary("chromium", "chromium"),
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  })
}, 180_000)

afterAll(async () => {
  await browser?.close()
})

/** A browser of its own (its cookies its own), for the length of a scope. */
const person = Effect.acquireRelease(
  Effect.promise(() => browser.newContext()),
  (context) => Effect.promise(() => context.close()),
).pipe(Effect.flatMap((context) => Effect.promise(() => context.newPage())))

/** The pages with sign-in on a server of their own on 127.0.0.1, the issuer's forms for the browser to fill in. */
const signInPages = Effect.gen(function* () {
  const { server, base } = yield* PagesSignIn.loopback
  const as = yield* PagesSignIn.issuer(base, { forms: true })
  const store = makeStore(10 * MINUTE)
  const settings = PagesSignIn.settings(base, as.issuer)
  server.on("request", PageSignIn.serve(Option.getOrThrow(PageSignIn.make(settings, store))))
  /** A filled page of `login`'s. */
  const pageOf = (login: string) => {
    const made = store.make("binding", Date.now(), PagesSignIn.ownerOf(as.issuer, login))
    store.fill(made.id, "binding", PAGE, Date.now())
    return `${base}/secrets/${made.id}`
  }
  return { as, pageOf }
})

type Tab = Effect.Effect.Success<typeof person>

/** At the issuer's forms: signs in as `login` (any password), and consents. */
const signIn = (tab: Tab, issuer: string, login: string) =>
  Effect.promise(async () => {
    await tab.waitForSelector('input[name="login"]')
    expect(tab.url().startsWith(`${issuer}/`)).toBe(true)
    await tab.fill('input[name="login"]', login)
    await tab.fill('input[name="password"]', "any")
    await Promise.all([tab.waitForNavigation(), tab.click('button[type="submit"]')])
    // The consent form, the first time this person signs in for the client.
    if (tab.url().startsWith(`${issuer}/interaction/`)) {
      await Promise.all([tab.waitForURL((url) => !url.href.startsWith(issuer)), tab.click('button[type="submit"]')])
    }
    await tab.waitForLoadState()
  })

const text = (tab: Tab) => Effect.promise(() => tab.textContent("body").then((found) => found ?? ""))

describe("a secret's page with sign-in, in chromium", () => {
  it.scopedLive(
    "the person signs in at the issuer's form and reads the secret, once; another person reads nothing",
    () =>
      Effect.gen(function* () {
        const { as, pageOf } = yield* signInPages
        const url = pageOf("alice")
        const alice = yield* person
        yield* Effect.promise(() => alice.goto(url))
        // Sent to the issuer's login form: nothing of the secret on the way.
        yield* signIn(alice, as.issuer, "alice")
        expect(alice.url()).toBe(url)
        expect(yield* text(alice)).toContain(SECRET)
        yield* Effect.promise(() => alice.reload())
        const again = yield* text(alice)
        expect(again).toContain("Nothing here")
        expect(again).not.toContain(SECRET)

        const other = pageOf("alice")
        const bob = yield* person
        yield* Effect.promise(() => bob.goto(other))
        yield* signIn(bob, as.issuer, "bob")
        expect(bob.url()).toBe(other)
        const refused = yield* text(bob)
        expect(refused).toContain("Nothing here")
        expect(refused).not.toContain(SECRET)
      }),
    120_000,
  )
})

describe("a secret's loopback page, in chromium", () => {
  it.scopedLive(
    "waits for its secret, reloading itself, shows it once, then nothing",
    () =>
      Effect.gen(function* () {
        const store = makeStore(10 * MINUTE)
        const pages = yield* SecretPageServer.make(store, Date.now)
        const made = store.make("binding", Date.now())
        const url = yield* Effect.promise(() => pages.urlOf(made.id))
        const tab = yield* person
        yield* Effect.promise(() => tab.goto(url))
        expect(yield* text(tab)).toContain("Being made")
        store.fill(made.id, "binding", PAGE, Date.now())
        // The page's own refresh brings the secret, without the person doing anything.
        yield* Effect.promise(() => tab.waitForSelector(`text=${SECRET}`, { timeout: 30_000 }))
        expect(yield* text(tab)).toContain(SECRET)
        yield* Effect.promise(() => tab.reload())
        expect(yield* text(tab)).toContain("Nothing here")
        expect(yield* text(tab)).not.toContain(SECRET)
      }),
    60_000,
  )
})
