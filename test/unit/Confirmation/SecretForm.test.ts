/**
 * The forms a secret is taken in on (Confirmation/SecretForm.ts), served on loopback by the
 * secret pages' server: shown by GET until sent, sent once by POST with the token the page carries,
 * closed after their lifetime, bounded in what they read, and bound to the caller and the call.
 * And `from_person` as a call names it (Tools/Params/FromPerson.ts): secrets only, never in params too.
 */
import * as Http from "node:http"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FormStore, makeStore } from "../../../src/Confirmation/SecretForm.js"
import { MOST_BODY, renderForm } from "../../../src/Confirmation/SecretFormPage.js"
import { make as makeServer } from "../../../src/Confirmation/SecretPageServer.js"
import { makeStore as makePages } from "../../../src/Confirmation/SecretPages.js"
import { svc_create, svc_update } from "../../../src/Tools/Catalog/Definitions.js"
import { resolve } from "../../../src/Tools/Invoke.js"
import { PLACEHOLDER } from "../../../src/Tools/Params/FromPerson.js"
import * as FromPersonCheck from "../../../src/Tools/Params/FromPersonCheck.js"

const MINUTE = 60_000
const FORM = { title: "Give the value", fields: ["value"] }

let clock = 0
let forms: FormStore
let scope: Scope.CloseableScope
let formUrlOf: (id: string) => Promise<string>

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const pages = await Effect.runPromise(
    Scope.extend(
      makeServer(makePages(MINUTE), () => clock, 10 * MINUTE),
      scope,
    ),
  )
  forms = await (pages.forms as () => Promise<FormStore>)()
  formUrlOf = pages.formUrlOf as (id: string) => Promise<string>
})

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const tokenOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    redirect: "manual",
  })

/** A made form, its address and the token its page carries. */
const opened = async (fields = ["value"]) => {
  const { id } = forms.make("alice", "call", { title: "Give it", fields }, clock)
  const url = await formUrlOf(id)
  const page = await fetch(url)
  return { id, url, page, html: await page.text() }
}

describe("a secret's form, over HTTP on loopback", () => {
  it("shows one password field per param and a token, with the handover page's strict headers, and no secret in its address", async () => {
    const { url, page, html } = await opened(["value", "account.token"])
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/form\/[A-Za-z0-9_-]{22}$/)
    expect(page.status).toBe(200)
    expect(html.match(/type="password"/g)).toHaveLength(2)
    expect(html).toContain('name="account.token"')
    expect(html).toMatch(/<form method="post"/)
    expect(tokenOf(html)).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(page.headers.get("cache-control")).toBe("no-store")
    expect(page.headers.get("referrer-policy")).toBe("no-referrer")
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'none'.*form-action 'self'/)
  })

  it("is sent once, with its token: the values wait for the call, and the page is gone after", async () => {
    const { id, url, html } = await opened()
    const taken: Array<Readonly<Record<string, string>>> = []
    forms.wait(id, "alice", (values) => taken.push(values), clock)
    const sent = await post(url, new URLSearchParams({ csrf: tokenOf(html), value: "s3cr3t&=x" }).toString())
    expect(sent.status).toBe(200)
    expect(await sent.text()).not.toContain("s3cr3t")
    expect(taken).toEqual([{ value: "s3cr3t&=x" }])
    // Sent once: neither shown nor taken again.
    expect((await fetch(url)).status).toBe(404)
    const again = await post(url, new URLSearchParams({ csrf: tokenOf(html), value: "other" }).toString())
    expect(again.status).toBe(404)
    expect(taken).toHaveLength(1)
  })

  it("refuses a POST without the page's token, or from another origin, and takes nothing", async () => {
    const { id, url, html } = await opened()
    const taken: Array<unknown> = []
    forms.wait(id, "alice", (values) => taken.push(values), clock)
    expect((await post(url, "value=x")).status).toBe(403)
    expect((await post(url, "csrf=AAAA&value=x")).status).toBe(403)
    const body = new URLSearchParams({ csrf: tokenOf(html), value: "x" }).toString()
    expect((await post(url, body, { origin: "http://evil.example" })).status).toBe(403)
    expect((await post(url, body, { "sec-fetch-site": "cross-site" })).status).toBe(403)
    // `null` without the browser saying the fetch is its own site's: refused.
    expect((await post(url, body, { origin: "null" })).status).toBe(403)
    expect((await post(url, body, { "content-type": "text/plain" })).status).toBe(403)
    expect(taken).toEqual([])
    // The page is still there for the person.
    expect((await fetch(url)).status).toBe(200)
  })

  it("refuses a field left empty, one not asked, or one sent twice", async () => {
    const { url, html } = await opened()
    const csrf = tokenOf(html)
    expect((await post(url, `csrf=${csrf}&value=`)).status).toBe(400)
    expect((await post(url, `csrf=${csrf}&value=x&extra=y`)).status).toBe(400)
    expect((await post(url, `csrf=${csrf}&value=x&value=y`)).status).toBe(400)
    expect((await fetch(url)).status).toBe(200)
  })

  it("answers any method but GET and POST 405, naming both", async () => {
    const { url } = await opened()
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const answer = await fetch(url, { method })
      expect(answer.status).toBe(405)
      expect(answer.headers.get("allow")).toBe("GET, POST")
    }
  })

  it("reads a body no larger than its bound: past it, 413 and nothing taken, however it is sent", async () => {
    const { id, url, html } = await opened()
    const taken: Array<unknown> = []
    forms.wait(id, "alice", (values) => taken.push(values), clock)
    const big = `csrf=${tokenOf(html)}&value=${"a".repeat(MOST_BODY)}`
    expect((await post(url, big)).status).toBe(413)
    // Without a length: streamed in chunks, cut off once past the bound.
    const streamed = await new Promise<number>((done, fail) => {
      const request = Http.request(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" },
      })
      request.on("response", (response) => {
        response.resume()
        done(response.statusCode ?? 0)
      })
      request.on("error", fail)
      for (let i = 0; i < 8; i++) request.write("a".repeat(MOST_BODY / 4))
      request.end()
    })
    expect(streamed).toBe(413)
    expect(taken).toEqual([])
  })

  it("closes after its lifetime: shown and taken no more", async () => {
    const { id, url, html } = await opened()
    clock += 10 * MINUTE
    try {
      expect((await fetch(url)).status).toBe(404)
      expect((await post(url, `csrf=${tokenOf(html)}&value=x`)).status).toBe(404)
      expect(forms.pending(id, "alice", "call", clock)).toBeUndefined()
    } finally {
      clock -= 10 * MINUTE
    }
  })
})

describe("a secret's form, in the store", () => {
  it("is bound to the caller and the call that asked: another waits, drops or finds nothing", () => {
    const store = makeStore(MINUTE)
    const { id, until } = store.make("alice", "call-1", FORM, 0)
    expect(store.pending(id, "alice", "call-1", 1)).toBe(until)
    expect(store.pending(id, "bob", "call-1", 1)).toBeUndefined()
    expect(store.pending(id, "alice", "call-2", 1)).toBeUndefined()
    const taken: Array<unknown> = []
    store.wait(id, "bob", (values) => taken.push(values), 1)
    store.drop(id, "bob")
    const token = store.show(id, 1)?.token ?? ""
    expect(store.submit(id, token, { value: "v" }, 2)).toBe("Taken")
    expect(taken).toEqual([])
    store.wait(id, "alice", (values) => taken.push(values), 3)
    expect(taken).toEqual([{ value: "v" }])
    // Taken: forgotten.
    expect(store.pending(id, "alice", "call-1", 4)).toBeUndefined()
  })

  it("tells whoever waits that it was sent, and stops telling once they stop waiting", () => {
    const store = makeStore(MINUTE)
    const { id } = store.make("alice", "c", FORM, 0)
    const told: Array<string> = []
    const stop = store.wait(
      id,
      "alice",
      () => told.push("values"),
      0,
      () => told.push("sent"),
    )
    stop()
    const token = store.show(id, 0)?.token ?? ""
    expect(store.submit(id, token, { value: "v" }, 1)).toBe("Taken")
    expect(told).toEqual([])
  })

  it("with an owner, is shown and taken for them alone; another's or no one's finds nothing, and it stays open", async () => {
    const store = makeStore(MINUTE)
    const { id } = store.make("binding", "c", FORM, 0, "alice")
    expect(store.ownerOf(id, 1)).toBe("alice")
    expect(store.show(id, 1)).toBeUndefined()
    expect(store.show(id, 1, "bob")).toBeUndefined()
    const token = store.show(id, 1, "alice")?.token ?? ""
    expect(token).not.toBe("")
    expect(store.submit(id, token, { value: "v" }, 2)).toBe("Nothing")
    expect(store.submit(id, token, { value: "v" }, 2, "bob")).toBe("Nothing")
    expect(store.submit(id, token, { value: "v" }, 2, "alice")).toBe("Taken")
    expect(store.ownerOf(id, 3)).toBeUndefined()
    // A signed-in person's form is not served on loopback, whoever holds its id.
    const owned = forms.make("binding", "c", FORM, clock, "alice")
    expect((await fetch(await formUrlOf(owned.id))).status).toBe(404)
    expect(forms.ownerOf(owned.id, clock)).toBe("alice")
  })

  it("escapes what it shows", () => {
    const html = renderForm({ title: "<b>", fields: ['"><script>'], token: "t" })
    expect(html).not.toContain("<script>")
    expect(html).not.toContain("<b>")
  })
})

describe("from_person", () => {
  it("is in the published schema of the tools that take secrets", () => {
    for (const tool of [svc_create, svc_update]) {
      expect(Object.keys(tool.inputSchema.properties ?? {})).toContain("from_person")
    }
  })

  it("puts a placeholder where the person's value goes, never a value", () => {
    const resolved = resolve(svc_create, {
      resource_type: "variable",
      params: { name: "API_SIGNING_KEY", is_secret: true },
      from_person: ["value"],
    })
    expect(resolved._tag).toBe("Right")
    if (resolved._tag !== "Right") return
    expect(resolved.right.body).toEqual({ name: "API_SIGNING_KEY", is_secret: true, value: PLACEHOLDER })
    expect(resolved.right.fromPerson).toEqual(["value"])
    const token = resolve(svc_update, {
      resource_type: "git_provider_account",
      params: { id: "gh", account: { username: "ci" } },
      from_person: ["account.token"],
    })
    expect(token._tag === "Right" && token.right.body).toEqual({
      id: "gh",
      account: { username: "ci", token: PLACEHOLDER },
    })
  })

  it("names only secret params, none given in params too", () => {
    const problems = (params: Record<string, unknown>, names: ReadonlyArray<string>) =>
      FromPersonCheck.problems("write/CreateVariable", params, names).join("; ")
    expect(problems({ name: "A" }, ["description"])).toMatch(/"description" is not a secret param/)
    expect(problems({ name: "A", is_secret: false }, ["value"])).toMatch(/"value" is not a secret param/)
    expect(problems({ name: "A", value: "x" }, ["value"])).toMatch(/given in params too/)
    expect(problems({ name: "A" }, ["value", "value"])).toMatch(/named twice/)
    expect(problems({ name: "A" }, ["value"])).toBe("")
    expect(
      FromPersonCheck.problems("write/UpdateGitProviderAccount", { id: "gh", account: {} }, ["account.token"]),
    ).toEqual([])
    // What is no param's path is refused by the tool's schema.
    const path = resolve(svc_create, { resource_type: "variable", params: { name: "A" }, from_person: ["../x"] })
    expect(path._tag).toBe("Left")
  })
})
