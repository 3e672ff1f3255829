/**
 * A secret's form as the secret pages' server answers it (SecretForm.ts keeps the forms): GET
 * shows it, POST sends it with its token, any other method is refused; a POST's body is read up
 * to a bound. Loaded with the first request for a form: a start loads none of it. With sign-in
 * (SignIn/SignedInPages.ts) it answers for the person signed in in this browser alone, and a POST
 * names the public URL's origin.
 */
import type * as Http from "node:http"
import { type FormStore, MOST_VALUE, type Shown, type Values } from "./SecretForm.js"

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.4rem;font-family:monospace}button{margin-top:1rem;padding:.5rem 1rem}</style></head><body>${body}</body></html>`

/** The form's HTML: one password field per param, and the token, posted to the page itself. */
export const renderForm = (shown: Shown): string =>
  html(
    shown.title,
    `<h1>${escapeHtml(shown.title)}</h1><p>Type each value here: svc-mcp sends it to the service, and the assistant does not see it.</p><form method="post" autocomplete="off"><input type="hidden" name="csrf" value="${escapeHtml(shown.token)}">${shown.fields
      .map(
        (field, index) =>
          `<label for="f${index}">${escapeHtml(field)}</label><input id="f${index}" name="${escapeHtml(field)}" type="password" required maxlength="${MOST_VALUE}" autocomplete="off" spellcheck="false">`,
      )
      .join("")}<button type="submit">Send</button></form>`,
  )

type Answer = { readonly status: number; readonly body: string; readonly allow?: string }

const NOTHING: Answer = {
  status: 404,
  body: html("Nothing here", "<h1>Nothing here</h1><p>This page was sent already, has closed, or never was.</p>"),
}

const said = (status: number, title: string, text: string): Answer => ({
  status,
  body: html(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`),
})

/** The most a POST's body may be, in bytes: the fields, each at most `MOST_VALUE`, and the token. */
export const MOST_BODY = 32_768

/** The values of a form's POST body, without its token; undefined when a key is repeated. */
const valuesOf = (body: string): { readonly token: string; readonly values: Values } | undefined => {
  const values: Record<string, string> = {}
  let token = ""
  for (const [key, value] of new URLSearchParams(body)) {
    if (key === "csrf") token = value
    else if (Object.hasOwn(values, key)) return undefined
    else values[key] = value
  }
  return { token, values }
}

/** With sign-in: whom the browser is signed in as, and the origin its form is posted from. */
export interface SignedIn {
  readonly owner: string
  readonly origin: string
}

/** What a POST to form `id` of `body` is answered. */
const posted = (forms: FormStore, id: string, body: string, now: number, owner?: string): Answer => {
  const read = valuesOf(body)
  if (read === undefined) return said(400, "Not sent", "Each field is sent once.")
  switch (forms.submit(id, read.token, read.values, now, owner)) {
    case "Taken":
      return said(200, "Sent", "svc-mcp has the values and sends the call with them. You can close this page.")
    case "Forbidden":
      return said(403, "Not sent", "This form was not sent from its own page. Open the page again and send it there.")
    case "Unfit":
      return said(
        400,
        "Not sent",
        "Give a value for each field, and nothing else. Go back to the form and send it again.",
      )
    case "Nothing":
      return NOTHING
  }
}

const send = (res: Http.ServerResponse, { status, body, allow }: Answer, close = false) =>
  res
    .writeHead(status, {
      ...HEADERS,
      ...(allow === undefined ? {} : { allow }),
      ...(close ? { connection: "close" } : {}),
    })
    .end(body)

/**
 * Whether a POST comes from the form's own page, as far as the browser says (the token is what
 * proves it): one that names its fetch's site names this one's, and one that names its origin names
 * this one (with sign-in: the public URL's), or `null`, which a page under `no-referrer` sends for its own form.
 */
const sameOrigin = (req: Http.IncomingMessage, signedIn?: SignedIn) => {
  const site = req.headers["sec-fetch-site"]
  if (site !== undefined && site !== "same-origin") return false
  const origin = req.headers.origin
  const own = signedIn?.origin ?? `http://${req.headers.host ?? ""}`
  return origin === undefined || origin === own || (origin === "null" && site !== undefined)
}

/** Answers a request for form `id` (with sign-in, `signedIn`'s): GET shows it, POST sends it, whatever else is refused. */
export const answer =
  (forms: FormStore, id: string, now: () => number, signedIn?: SignedIn) =>
  (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    if (req.method === "GET") {
      const shown = forms.show(id, now(), signedIn?.owner)
      return send(res, shown === undefined ? NOTHING : { status: 200, body: renderForm(shown) })
    }
    if (req.method !== "POST")
      return send(res, { ...said(405, "Not allowed", "Open this page, then send its form."), allow: "GET, POST" })
    const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase()
    if (type !== "application/x-www-form-urlencoded" || !sameOrigin(req, signedIn)) {
      req.resume()
      return send(res, said(403, "Not sent", "This form was not sent from its own page."), true)
    }
    if (Number(req.headers["content-length"] ?? 0) > MOST_BODY) {
      req.resume()
      return send(res, said(413, "Too large", "The values are larger than a form of svc-mcp's takes."), true)
    }
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= MOST_BODY) return void chunks.push(chunk)
      // Past the bound: answered at once, and the connection closed, however much more would come.
      req.off("data", onData)
      res.once("finish", () => req.destroy())
      send(res, said(413, "Too large", "The values are larger than a form of svc-mcp's takes."), true)
    }
    req.on("data", onData)
    req.on("end", () => {
      if (size <= MOST_BODY) {
        send(res, posted(forms, id, Buffer.concat(chunks).toString("utf8"), now(), signedIn?.owner))
      }
    })
  }
