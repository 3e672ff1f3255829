/**
 * The pages a secret is taken in on: a call's `from_person` params (Tools/Params/FromPerson.ts),
 * typed by the person into an ordinary HTML form of svc-mcp's, out of the model's sight (MCP's
 * URL-mode elicitation). A form is made when the person is asked to open it, bound as the pages
 * that hand a secret over are (SecretPages.ts): to the caller and session that asked, and to the
 * very call (`call`), for the same lifetime (SVC_MCP_SECRET_PAGE_LIFETIME). It is shown by GET
 * until it is sent; it is sent once, by POST, with the token the form carries (a CSRF token bound
 * to the page); then its values wait, in this process's memory alone, for the call that takes
 * them, which forgets them. With sign-in a form has an `owner` too (the issuer and subject of the
 * person who asked): it is shown and taken only for them, signed in in their browser
 * (SignIn/SignedInPages.ts). No value is ever in a URL; every answer is kept from caches and
 * referrers, runs no script and loads nothing (SecretFormPage.ts, loaded with the first form asked for).
 */
import * as ExpiringMap from "../Shared/ExpiringMap.js"

export type Values = Readonly<Record<string, string>>

interface Entry {
  readonly binding: string
  /** Whom alone it is shown and taken for, signed in; none: whoever holds its URL and token. */
  readonly owner: string | undefined
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
  /** A form of `fields` for `binding`'s call `call`, open for the store's lifetime from `now`; with `owner`, only for them. */
  readonly make: (
    binding: string,
    call: string,
    form: { readonly title: string; readonly fields: ReadonlyArray<string> },
    now: number,
    owner?: string,
  ) => { readonly id: string; readonly until: number }
  /** When `binding`'s form `id` for `call` closes; undefined when there is no such form. */
  readonly pending: (id: string, binding: string, call: string, now: number) => number | undefined
  /** The form `id` as GET shows it to `owner`, until it is sent; another's form is nothing. */
  readonly show: (id: string, now: number, owner?: string) => Shown | undefined
  /** The POST of form `id` by `owner`: taken once, with its token and a value for each of its fields, no other. */
  readonly submit: (id: string, token: string, values: Values, now: number, owner?: string) => Submitted
  /** Whom form `id` is for, while it is open and unsent; undefined for a form of no owner, or none. */
  readonly ownerOf: (id: string, now: number) => string | undefined
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
export const MOST_VALUE = 8_192

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
  (id, token, values, now, owner) => {
    const entry = ID.test(id) ? entries.get(id, now) : undefined
    if (entry === undefined || entry.values !== undefined || entry.owner !== owner) return "Nothing"
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
    make: (binding, call, { title, fields }, now, owner) => {
      const id = random(16)
      const until = now + lifetimeMs
      const entry: Entry = {
        binding,
        owner,
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
    show: (id, now, owner) => {
      const entry = ID.test(id) ? entries.get(id, now) : undefined
      return entry === undefined || entry.values !== undefined || entry.owner !== owner
        ? undefined
        : { title: entry.title, fields: entry.fields, token: entry.token }
    },
    ownerOf: (id, now) => {
      const entry = ID.test(id) ? entries.get(id, now) : undefined
      return entry?.values === undefined ? entry?.owner : undefined
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
