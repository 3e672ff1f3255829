/**
 * A secret's page with sign-in (SignIn/PageSignIn.ts) against a real authorization server
 * (oidc-provider), the person's browser following its redirects: the page opens only for the
 * identity that owns it, signed in by the authorization code with PKCE, once, and not after its
 * lifetime; the sign-in's state is this browser's and is used once.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { makeStore, type Page } from "../../../src/Confirmation/SecretPages.js"
import * as SignInSettings from "../../../src/Settings/SignIn.js"
import * as PageSignIn from "../../../src/SignIn/PageSignIn.js"
import * as Browser from "../../support/Browser.js"
import * as PagesSignIn from "../../support/PagesSignIn.js"

const MINUTE = 60_000
const SECRET = "S-0123456789abcdef"
const PAGE: Page = { title: "The secret of the API key", fields: [{ label: "secret", value: SECRET }] }

/** The pages on a server of their own on 127.0.0.1, the issuer knowing their return; the clock the test's. */
const setUp = Effect.gen(function* () {
  const { server, base } = yield* PagesSignIn.loopback
  const as = yield* PagesSignIn.issuer(base)
  const clock = { now: 1_000_000 }
  const store = makeStore(10 * MINUTE)
  const settings = PagesSignIn.settings(base, as.issuer)
  const pages = Option.getOrThrow(PageSignIn.make(settings, store, () => clock.now))
  server.on("request", PageSignIn.serve(pages))
  const ownerOf = (login: string) => PagesSignIn.ownerOf(as.issuer, login)
  /** A page of `login`'s, filled with the secret unless `pending`. */
  const pageOf = (login: string, pending = false) => {
    const made = store.make("binding", clock.now, ownerOf(login))
    if (!pending) store.fill(made.id, "binding", PAGE, clock.now)
    return `${base}/secrets/${made.id}`
  }
  /** `login` at a browser of their own, opening `url`. */
  const visit = PagesSignIn.visitor(as)
  return { as, base, clock, store, pageOf, visit }
})

describe("SVC_MCP_OAUTH_PAGE_CLIENT_ID and its secret", () => {
  const load = (env: Record<string, string>) =>
    Effect.runSyncExit(
      SignInSettings.load().pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))),
    )
  const ON = { SVC_MCP_OAUTH_ISSUER: "https://login.example.test", SVC_MCP_PUBLIC_URL: "https://svc.example.test" }

  it("name the pages' client with sign-in, its secret redacted or read from a file; alone, they are refused", () => {
    const none = load(ON)
    expect(Exit.isSuccess(none) && Option.flatMap(none.value, (s) => s.pageClient)).toEqual(Option.none())
    const file = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-page-client-")), "secret")
    Fs.writeFileSync(file, "from-a-file\n")
    for (const [env, secret] of [
      [{ SVC_MCP_OAUTH_PAGE_CLIENT_SECRET: "s3cret" }, "s3cret"],
      [{ SVC_MCP_OAUTH_PAGE_CLIENT_SECRET_FILE: file }, "from-a-file"],
    ] as const) {
      const set = load({ ...ON, SVC_MCP_OAUTH_PAGE_CLIENT_ID: " pages ", ...env })
      const client = Exit.isSuccess(set) ? Option.getOrThrow(Option.getOrThrow(set.value).pageClient) : undefined
      expect(client?.id).toBe("pages")
      expect(String(client?.secret)).not.toContain(secret)
      expect(client && Option.map(client.secret, Redacted.value)).toEqual(Option.some(secret))
    }
    const refused = (env: Record<string, string>, variable: RegExp) => {
      const exit = load(env)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toMatch(variable)
    }
    refused(
      { ...ON, SVC_MCP_OAUTH_PAGE_CLIENT_SECRET: "s3cret" },
      /SVC_MCP_OAUTH_PAGE_CLIENT_SECRET.*SVC_MCP_OAUTH_PAGE_CLIENT_ID is not/,
    )
    refused({ SVC_MCP_OAUTH_PAGE_CLIENT_ID: "pages" }, /SVC_MCP_OAUTH_PAGE_CLIENT_ID.*SVC_MCP_OAUTH_ISSUER is not/)
  })
})

describe("a page with an owner", () => {
  it("opens for its owner alone; opened by another or with none, it is nothing and kept", () => {
    const store = makeStore(MINUTE)
    const { id } = store.make("binding", 0, "alice")
    store.fill(id, "binding", PAGE, 1)
    expect(store.ownerOf(id, 2)).toBe("alice")
    expect(store.open(id, 2)).toEqual({ _tag: "Nothing" })
    expect(store.open(id, 2, "bob")).toEqual({ _tag: "Nothing" })
    expect(store.open(id, 2, "alice")).toEqual({ _tag: "Shown", page: PAGE })
    expect(store.ownerOf(id, 3)).toBeUndefined()
    // A page of no owner opens for no one signed in.
    const loopback = store.make("binding", 0)
    store.fill(loopback.id, "binding", PAGE, 1)
    expect(store.ownerOf(loopback.id, 2)).toBeUndefined()
    expect(store.open(loopback.id, 2, "alice")).toEqual({ _tag: "Nothing" })
  })
})

describe("a secret's page with sign-in", () => {
  it.scopedLive("is shown to its owner, signed in at the issuer, once", () =>
    Effect.gen(function* () {
      const { as, pageOf, visit } = yield* setUp
      const url = pageOf("alice")
      const first = yield* Effect.promise(() => Browser.make().peek(url))
      // Not signed in: sent to the issuer, with PKCE, a state and a nonce; nothing of the secret.
      expect(first.status).toBe(302)
      const to = new URL(first.headers.get("location") ?? "")
      expect(to.origin).toBe(as.issuer)
      expect(Object.fromEntries(to.searchParams)).toMatchObject({
        response_type: "code",
        client_id: PagesSignIn.CLIENT.id,
        scope: "openid",
        code_challenge_method: "S256",
      })
      expect(to.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(to.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(to.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(first.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Lax/)
      expect(yield* Effect.promise(() => first.text())).not.toContain(SECRET)
      const shown = yield* visit("alice", url)
      expect(shown.status).toBe(200)
      expect(shown.body).toContain(SECRET)
      expect(shown.url).toBe(url)
      const again = yield* visit("alice", url)
      expect(again.body).not.toContain(SECRET)
      expect(again.status).toBe(404)
    }),
  )

  it.scopedLive("shows another person nothing, and stays its owner's", () =>
    Effect.gen(function* () {
      const { pageOf, visit } = yield* setUp
      const url = pageOf("alice")
      const bob = yield* visit("bob", url)
      // Signed in (back at the page from the issuer), and refused as not its owner.
      expect(bob.hops.some((hop) => hop.includes("/secrets/callback?"))).toBe(true)
      expect(bob.url).toBe(url)
      expect(bob.status).toBe(404)
      expect(bob.body).not.toContain(SECRET)
      // Signed in as bob, the page is still nothing to that browser.
      const browser = Browser.make()
      yield* visit("bob", url, browser)
      expect((yield* visit("bob", url, browser)).body).not.toContain(SECRET)
      expect((yield* visit("alice", url)).body).toContain(SECRET)
    }),
  )

  it.scopedLive("shows nothing after its lifetime; a pending page waits for its secret", () =>
    Effect.gen(function* () {
      const { clock, store, pageOf, visit } = yield* setUp
      const late = pageOf("alice")
      clock.now += 10 * MINUTE
      const gone = yield* visit("alice", late)
      expect(gone.status).toBe(404)
      expect(gone.body).not.toContain(SECRET)
      const waiting = pageOf("alice", true)
      const browser = Browser.make()
      const pending = yield* visit("alice", waiting, browser)
      expect(pending.status).toBe(200)
      expect(pending.body).toContain("Being made")
      store.fill(waiting.split("/").pop() ?? "", "binding", PAGE, clock.now)
      // The same browser, signed in for the page, reloads it: the secret, once.
      const reloaded = yield* Effect.promise(() => browser.open(waiting))
      expect(reloaded.body).toContain(SECRET)
      expect(reloaded.hops).toHaveLength(1)
    }),
  )

  it.scopedLive("a page of no owner, a made-up id, another browser's or a used return show nothing", () =>
    Effect.gen(function* () {
      const { base, store, clock, pageOf, visit } = yield* setUp
      const loopback = store.make("binding", clock.now)
      store.fill(loopback.id, "binding", PAGE, clock.now)
      const unowned = yield* visit("alice", `${base}/secrets/${loopback.id}`)
      expect(unowned.status).toBe(404)
      expect(unowned.hops).toHaveLength(1)
      expect((yield* visit("alice", `${base}/secrets/${"A".repeat(22)}`)).status).toBe(404)
      // The issuer's return carried to a browser that did not begin the sign-in signs no one in.
      const url = pageOf("alice")
      const began = Browser.make()
      const first = yield* Effect.promise(() => began.peek(url))
      const authorize = first.headers.get("location") ?? ""
      const other = Browser.make()
      const hops = (yield* visit("alice", authorize, other)).hops
      const callback = hops.find((hop) => hop.startsWith(`${base}/secrets/callback`)) ?? ""
      expect(callback).not.toBe("")
      const replayed = yield* Effect.promise(() => began.open(callback))
      expect(replayed.body).not.toContain(SECRET)
      expect(replayed.status).toBe(404)
      // The page is still alice's to open.
      expect((yield* visit("alice", url)).body).toContain(SECRET)
    }),
  )
})
