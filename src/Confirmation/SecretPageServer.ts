/**
 * The secret pages' server: on loopback, on a port the system gives, started when the first page
 * is made and closed with the scope that made it. A page is answered as SecretPages.ts opens it:
 * its values once, a pending page that reloads itself until its secret is there, else nothing.
 * Every answer is kept from caches and referrers, runs no script and loads nothing.
 */
import type * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as SecretForm from "./SecretForm.js"
import type { Opened, PageStore, SecretPagesShape } from "./SecretPages.js"

export const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export const html = (title: string, body: string, head = "") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">${head}<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{display:block;padding:.5rem;background:#f4f4f4;word-break:break-all;user-select:all}</style></head><body>${body}</body></html>`

/** The page's status and HTML for what opening it found. */
export const render = (opened: Opened): { readonly status: number; readonly body: string } => {
  switch (opened._tag) {
    case "Shown":
      return {
        status: 200,
        body: html(
          opened.page.title,
          `<h1>${escapeHtml(opened.page.title)}</h1><p>Copy it now: this page shows it once, and nothing keeps it.</p>${opened.page.fields
            .map((f) => `<h2>${escapeHtml(f.label)}</h2><code>${escapeHtml(f.value)}</code>`)
            .join("")}`,
        ),
      }
    case "Pending":
      return {
        status: 200,
        body: html(
          "Being made",
          "<h1>Being made</h1><p>The secret is on its way; this page reloads itself.</p>",
          '<meta http-equiv="refresh" content="2">',
        ),
      }
    case "Nothing":
      return {
        status: 404,
        body: html(
          "Nothing here",
          "<h1>Nothing here</h1><p>This page was opened already, has closed, or never was.</p>",
        ),
      }
  }
}

const PATH = /^\/secret\/([^/?#]*)$/
const FORM = /^\/form\/([^/?#]*)$/

const answer =
  (store: PageStore, now: () => number, forms?: () => Promise<SecretForm.FormStore>) =>
  (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    const form = forms === undefined ? null : FORM.exec((req.url ?? "/").split("?")[0] ?? "/")
    // The form's page loaded with the first request for one: a start loads none of it.
    if (forms !== undefined && form !== null) {
      return void Promise.all([forms(), import("./SecretFormPage.js")]).then(([made, page]) =>
        page.answer(made, form[1] ?? "", now)(req, res),
      )
    }
    const match = PATH.exec((req.url ?? "/").split("?")[0] ?? "/")
    const { status, body } =
      req.method === "GET" && match !== null ? render(store.open(match[1] ?? "", now())) : render({ _tag: "Nothing" })
    res.writeHead(status, HEADERS).end(body)
  }

/** The pages of `store`, served on loopback from the first page made, for the life of the scope. */
export const make = (
  store: PageStore,
  now: () => number,
  formsLifetimeMs?: number,
): Effect.Effect<SecretPagesShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    let started: Promise<string> | undefined
    // The forms' store, made (and its module loaded) with the first form asked for: a start loads none of it.
    let made: Promise<SecretForm.FormStore> | undefined
    const forms =
      formsLifetimeMs === undefined
        ? undefined
        : () => (made ??= import("./SecretForm.js").then((form) => form.makeStore(formsLifetimeMs)))
    // Loaded with the first page: node:http brings node:crypto, which a start does not load.
    const server = process.getBuiltinModule("node:http").createServer(answer(store, now, forms))
    yield* Effect.addFinalizer(() =>
      started === undefined
        ? Effect.void
        : Effect.promise(() => new Promise<void>((done) => server.close(() => done()))),
    )
    const origin = () => {
      started ??= new Promise<string>((resolve, reject) => {
        server.once("error", reject)
        server.listen(0, "127.0.0.1", () => {
          server.unref()
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
        })
      })
      return started
    }
    return {
      store,
      urlOf: (id) => origin().then((base) => `${base}/secret/${id}`),
      ...(forms === undefined
        ? {}
        : { forms, formUrlOf: (id: string) => origin().then((base) => `${base}/form/${id}`) }),
    }
  })
