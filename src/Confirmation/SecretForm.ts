/**
 * The pages a secret is taken in on: a call's `from_person` params (Tools/Params/FromPerson.ts),
 * typed by the person into an ordinary HTML form of svc-mcp's, out of the model's sight (MCP's
 * URL-mode elicitation). A form is made when the person is asked to open it, bound as the pages
 * that hand a secret over are (SecretPages.ts): to the caller and session that asked, and to the
 * very call (`call`), for the same lifetime (SVC_MCP_SECRET_PAGE_LIFETIME). It is shown by GET
 * until it is sent; it is sent once, by POST, with the token the form carries (a CSRF token bound
 * to the page); then its values wait, in this process's memory alone, for the call that takes
 * them, which forgets them. No value is ever in a URL; every answer is kept from caches and
 * referrers, runs no script and loads nothing.
 */
import type * as Http from "node:http"
import * as ExpiringMap from "../Shared/ExpiringMap.js"

export type Values = Readonly<Record<string, string>>

interface Entry {
  readonly binding: string
  readonly call: string
  readonly until: number
  readonly title: string
  readonly fields: ReadonlyArray<string>
  readonly token: string
  values: Values | undefined
  readonly waiting: Set<(values: Values) => void>
  readonly sent: Set<() => void>
}

/** What a form shows: its title, its fields, and the token its POST must carry. */
export interface Shown {
  readonly title: string
  readonly fields: ReadonlyArray<string>
  readonly token: string
}

type Submitted = "Taken" | "Forbidden" | "Nothing" | "Unfit"

export interface FormStore {
  readonly lifetimeMs: number
  /** A form of `fields` for `binding`'s call `call`, open for the store's lifetime from `now`. */
  readonly make: (
    binding: string,
    call: string,
    form: { readonly title: string; readonly fields: ReadonlyArray<string> },
    now: number,
  ) => { readonly id: string; readonly until: number }
  /** When `binding`'s form `id` for `call` closes; undefined when there is no such form. */
  readonly pending: (id: string, binding: string, call: string, now: number) => number | undefined
  /** The form `id` as GET shows it, until it is sent. */
  readonly show: (id: string, now: number) => Shown | undefined
  /** The POST of form `id`: taken once, with its token and a value for each of its fields, no other. */
  readonly submit: (id: string, token: string, values: Values, now: number) => Submitted
  /**
   * `then` called with the values once the form is sent (at once if it was), which are then
   * forgotten; `onSent` called when it is sent. Answers how to stop waiting.
   */
  readonly wait: (
    id: string,
    binding: string,
    then: (values: Values) => void,
    now: number,
    onSent?: () => void,
  ) => () => void
  /** Drops `binding`'s form `id` (the person declined, or the call is over). */
  readonly drop: (id: string, binding: string) => void
}

const MOST = 256

/** Ids as made: 128 random bits, 22 base64url characters. */
const ID = /^[A-Za-z0-9_-]{22}$/

const random = (bytes: number) => process.getBuiltinModule("node:crypto").randomBytes(bytes).toString("base64url")

/** Whether two tokens are the same, in a time that does not tell how much of them is. */
const same = (a: string, b: string) => {
  const crypto = process.getBuiltinModule("node:crypto")
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

/** The most a field's value may be, in characters: a token or a key, not a file. */
const MOST_VALUE = 8_192

/** Whether `values` give each of `entry`'s fields, and nothing else, each within its bound. */
const fits = (entry: Entry, values: Values) => {
  const keys = Object.keys(values)
  return (
    keys.length === entry.fields.length &&
    entry.fields.every((field) => typeof values[field] === "string" && values[field] !== "") &&
    keys.every((key) => (values[key] as string).length <= MOST_VALUE)
  )
}

/** The POST of a form: taken once, with its token; handed to the call that waits, if one does. */
const submitTo =
  (entries: ExpiringMap.ExpiringMap<string, Entry>): FormStore["submit"] =>
  (id, token, values, now) => {
    const entry = ID.test(id) ? entries.get(id, now) : undefined
    if (entry === undefined || entry.values !== undefined) return "Nothing"
    if (!same(token, entry.token)) return "Forbidden"
    if (!fits(entry, values)) return "Unfit"
    entry.values = values
    for (const sent of entry.sent) sent()
    // Taken by the call that waits: its values leave the store with it.
    const [first] = entry.waiting
    if (first !== undefined) {
      entries.delete(id)
      first(values)
    }
    return "Taken"
  }

export const makeStore = (lifetimeMs: number, most = MOST): FormStore => {
  const entries = ExpiringMap.make<string, Entry>({ ttlMs: lifetimeMs, most })
  const mine = (id: string, binding: string, now: number) => {
    const entry = entries.get(id, now)
    return entry !== undefined && entry.binding === binding ? entry : undefined
  }
  return {
    lifetimeMs,
    make: (binding, call, { title, fields }, now) => {
      const id = random(16)
      const until = now + lifetimeMs
      const entry: Entry = {
        binding,
        call,
        until,
        title,
        fields,
        token: random(24),
        values: undefined,
        waiting: new Set(),
        sent: new Set(),
      }
      entries.set(id, entry, now)
      return { id, until }
    },
    pending: (id, binding, call, now) => {
      const entry = mine(id, binding, now)
      return entry !== undefined && entry.call === call ? entry.until : undefined
    },
    show: (id, now) => {
      const entry = ID.test(id) ? entries.get(id, now) : undefined
      return entry === undefined || entry.values !== undefined
        ? undefined
        : { title: entry.title, fields: entry.fields, token: entry.token }
    },
    submit: submitTo(entries),
    wait: (id, binding, then, now, onSent) => {
      const entry = mine(id, binding, now)
      if (entry === undefined) return () => undefined
      if (entry.values !== undefined) {
        entries.delete(id)
        then(entry.values)
        return () => undefined
      }
      entry.waiting.add(then)
      if (onSent !== undefined) entry.sent.add(onSent)
      return () => {
        entry.waiting.delete(then)
        if (onSent !== undefined) entry.sent.delete(onSent)
      }
    },
    drop: (id, binding) => {
      if (mine(id, binding, Number.NEGATIVE_INFINITY) !== undefined) entries.delete(id)
    },
  }
}

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

/** What a POST to form `id` of `body` is answered. */
const posted = (forms: FormStore, id: string, body: string, now: number): Answer => {
  const read = valuesOf(body)
  if (read === undefined) return said(400, "Not sent", "Each field is sent once.")
  switch (forms.submit(id, read.token, read.values, now)) {
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

/** Whether a POST comes from the form's own page: a browser that names its origin names this one. */
const sameOrigin = (req: Http.IncomingMessage) => {
  const origin = req.headers.origin
  return origin === undefined || origin === `http://${req.headers.host ?? ""}`
}

/** Answers a request for form `id`: GET shows it, POST sends it, whatever else is refused. */
export const answer =
  (forms: FormStore, id: string, now: () => number) => (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    if (req.method === "GET") {
      const shown = forms.show(id, now())
      return send(res, shown === undefined ? NOTHING : { status: 200, body: renderForm(shown) })
    }
    if (req.method !== "POST")
      return send(res, { ...said(405, "Not allowed", "Open this page, then send its form."), allow: "GET, POST" })
    const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase()
    if (type !== "application/x-www-form-urlencoded" || !sameOrigin(req)) {
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
      if (size <= MOST_BODY) send(res, posted(forms, id, Buffer.concat(chunks).toString("utf8"), now()))
    })
  }
