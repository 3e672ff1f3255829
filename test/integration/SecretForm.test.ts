/**
 * A secret's form in a real browser (Chromium, Debian's): the person opens the page, types the
 * secret into its password field and sends it; the value reaches the call that waits, exactly as
 * typed, and the page, opened again, shows nothing. The form runs under its own strict CSP, with no
 * script of its own.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FormStore, Values } from "../../src/Confirmation/SecretForm.js"
import { make as makeServer } from "../../src/Confirmation/SecretPageServer.js"
import { makeStore as makePages } from "../../src/Confirmation/SecretPages.js"
import { ensureBinary } from "../support/Debian.js"

const SECRET = "sk-typed-in-chromium-&-not-elsewhere=1"

let browser: Browser
let scope: Scope.CloseableScope
let forms: FormStore
let formUrlOf: (id: string) => Promise<string>

beforeAll(async () => {
  const executablePath = await ensureBinary("chromium", "chromium")
  browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  })
  scope = Effect.runSync(Scope.make())
  const pages = await Effect.runPromise(Scope.extend(makeServer(makePages(60_000), Date.now, 600_000), scope))
  forms = await (pages.forms as () => Promise<FormStore>)()
  formUrlOf = pages.formUrlOf as (id: string) => Promise<string>
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("a secret's form in Chromium", () => {
  it("takes what the person types, once, and shows nothing after", async () => {
    const { id } = forms.make("person", "call", { title: "Give the value", fields: ["value"] }, Date.now())
    const taken = new Promise<Values>((resolve) => forms.wait(id, "person", resolve, Date.now()))
    const url = await formUrlOf(id)
    const page = await browser.newPage()
    const errors: Array<string> = []
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text())
    })
    try {
      const opened = await page.goto(url)
      expect(opened?.status()).toBe(200)
      const field = page.locator('input[name="value"]')
      expect(await field.getAttribute("type")).toBe("password")
      await field.fill(SECRET)
      await Promise.all([page.waitForLoadState("load"), page.locator('button[type="submit"]').click()])
      await page.waitForSelector("h1:text('Sent')", { timeout: 10_000 })
      expect(await taken).toEqual({ value: SECRET })
      // The value was posted in the body: the address the browser shows holds none of it.
      expect(page.url()).toBe(url)
      expect(await page.content()).not.toContain(SECRET)
      // Nothing the page did was refused (its CSP lets the form post to itself).
      expect(errors).toEqual([])
      const again = await page.goto(url)
      expect(again?.status()).toBe(404)
    } finally {
      await page.close()
    }
  }, 60_000)
})
