/**
 * The pages a secret is handed to the person on, out of the model's sight (MCP's URL-mode
 * elicitation). A page is made pending when the person is asked to open it, filled once the call
 * that makes the secret has answered, and shown once: opened a second time, after its lifetime
 * (SVC_MCP_SECRET_PAGE_LIFETIME), or never made, it shows nothing. Its id is 128 random bits, the
 * URL's only secret; it is bound to the caller and session that asked (`binding`), and only they
 * may fill or drop it. The values live in this process's memory alone, never in the store.
 *
 * The pages are served on loopback (SecretPageServer.ts): they serve one person and their own
 * client, who already holds the server's key; a team signs its people in instead. With sign-in a
 * page has an `owner` too (the issuer and subject of the person who asked): it is served on the
 * HTTP server, and opens only for that person, signed in in their browser (SignIn/PageSignIn.ts).
 */
import * as Context from "effect/Context"
import * as ExpiringMap from "../Shared/ExpiringMap.js"
import type { FormStore } from "./SecretForm.js"

/** What a page shows: a title, then each value under its label. */
export interface Page {
  readonly title: string
  readonly fields: ReadonlyArray<{ readonly label: string; readonly value: string }>
}

/** What opening a page finds: the page (now gone), a page still waiting for its secret, or nothing. */
export type Opened =
  | { readonly _tag: "Shown"; readonly page: Page }
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Nothing" }

interface Entry {
  readonly binding: string
  /** Whom alone it opens for, signed in (SignIn/PageSignIn.ts); none: whoever holds its URL. */
  readonly owner?: string
  readonly until: number
  readonly page: Page | undefined
}

interface Made {
  readonly id: string
  /** When the page closes, in ms since the epoch. */
  readonly until: number
}

export interface PageStore {
  /** A pending page for `binding`, open for the store's lifetime from `now`; with `owner`, only for them. */
  readonly make: (binding: string, now: number, owner?: string) => Made
  /** When `binding`'s page `id` closes, while it is pending; undefined when there is no such page. */
  readonly pending: (id: string, binding: string, now: number) => number | undefined
  /** Fills `binding`'s pending page `id`; false when there is no such page. */
  readonly fill: (id: string, binding: string, page: Page, now: number) => boolean
  /** Drops `binding`'s page `id` (the person declined). */
  readonly drop: (id: string, binding: string) => void
  /** Opens `id` for `owner`: a filled page is shown this once, then forgotten; another's page is nothing, and kept. */
  readonly open: (id: string, now: number, owner?: string) => Opened
  /** Whom page `id` opens for, while it is open; undefined for a page of no owner, or none. */
  readonly ownerOf: (id: string, now: number) => string | undefined
  readonly lifetimeMs: number
  /** Calls `then` when page `id` is shown (once); forgotten with the oldest past the store's bound. */
  readonly whenShown?: (id: string, then: () => void) => void
}

/** Pages held at once: past it the oldest is forgotten. */
const MOST = 256

/** An id of 128 random bits, base64url. */
// Loaded when the first page is made: a start loads no node:crypto (test/e2e/StartModules.e2e.test.ts).
const newId = () => process.getBuiltinModule("node:crypto").randomBytes(16).toString("base64url")

/** Ids as made: 22 base64url characters. */
export const ID = /^[A-Za-z0-9_-]{22}$/

export const makeStore = (lifetimeMs: number, most = MOST): PageStore => {
  const entries = ExpiringMap.make<string, Entry>({ ttlMs: lifetimeMs, most })
  const mine = (id: string, binding: string, now: number) => {
    const entry = entries.get(id, now)
    return entry !== undefined && entry.binding === binding ? entry : undefined
  }
  const shown = new Map<string, () => void>()
  return {
    lifetimeMs,
    whenShown: (id, then) => {
      shown.set(id, then)
      for (const oldest of shown.keys()) if (shown.size > most) shown.delete(oldest)
    },
    make: (binding, now, owner) => {
      const id = newId()
      const until = now + lifetimeMs
      entries.set(id, { binding, until, page: undefined, ...(owner === undefined ? {} : { owner }) }, now)
      return { id, until }
    },
    pending: (id, binding, now) => {
      const entry = mine(id, binding, now)
      return entry !== undefined && entry.page === undefined ? entry.until : undefined
    },
    fill: (id, binding, page, now) => {
      const entry = mine(id, binding, now)
      if (entry === undefined || entry.page !== undefined) return false
      // Its lifetime runs from when it was made, not from now.
      entries.set(id, { ...entry, page }, now, Math.max(1, entry.until - now))
      return true
    },
    drop: (id, binding) => {
      if (mine(id, binding, Number.NEGATIVE_INFINITY) !== undefined) entries.delete(id)
    },
    open: (id, now, owner) => {
      if (!ID.test(id)) return { _tag: "Nothing" }
      const entry = entries.get(id, now)
      if (entry === undefined || entry.owner !== owner) return { _tag: "Nothing" }
      if (entry.page === undefined) return { _tag: "Pending" }
      entries.delete(id)
      shown.get(id)?.()
      shown.delete(id)
      return { _tag: "Shown", page: entry.page }
    },
    ownerOf: (id, now) => (ID.test(id) ? entries.get(id, now)?.owner : undefined),
  }
}

export interface SecretPagesShape {
  readonly store: PageStore
  /** The page's address for `id`, its server started on first use. */
  readonly urlOf: (id: string) => Promise<string>
  /**
   * With sign-in and its pages' client: the address of signed-in page `id`, and of form `id`, on
   * the HTTP server (SignIn/SignedInPages.ts).
   */
  readonly signedIn?: { readonly urlOf: (id: string) => string; readonly formUrlOf?: (id: string) => string }
  /** The forms a secret is taken in on (SecretForm.ts), served beside the pages: made with the first asked for. */
  readonly forms?: () => Promise<FormStore>
  /** The address of form `id`, the server started on first use. */
  readonly formUrlOf?: (id: string) => Promise<string>
}

/** The secret pages, where provided (Bundle/Tools.ts); without them, secrets stay withheld as before. */
export class SecretPages extends Context.Tag("svc-mcp/SecretPages")<SecretPages, SecretPagesShape>() {}
