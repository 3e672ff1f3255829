/**
 * The pages a secret is handed to the person on: one-time, expiring, unguessable and bound to the
 * caller and session that asked; what a page shows, escaped.
 */
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import * as ToolsBundle from "../../../src/Bundle/Tools.js"
import { render } from "../../../src/Confirmation/SecretPageServer.js"
import { ID, makeStore, type Page, SecretPages } from "../../../src/Confirmation/SecretPages.js"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Layers from "../../support/Layers.js"

const MINUTE = 60_000
const PAGE: Page = { title: "The secret of the API key", fields: [{ label: "secret", value: "S-1234" }] }

describe("the secret pages", () => {
  it("a page is shown once, after it is filled; before, it waits; after, nothing", () => {
    const store = makeStore(10 * MINUTE)
    const { id, until } = store.make("alice", 0)
    expect(until).toBe(10 * MINUTE)
    expect(store.open(id, 1)).toEqual({ _tag: "Pending" })
    expect(store.fill(id, "alice", PAGE, 2)).toBe(true)
    expect(store.open(id, 3)).toEqual({ _tag: "Shown", page: PAGE })
    expect(store.open(id, 4)).toEqual({ _tag: "Nothing" })
    // Filled once only: a second fill of a shown page is refused.
    expect(store.fill(id, "alice", PAGE, 5)).toBe(false)
  })

  it("a page past its lifetime shows nothing, filled or not, its lifetime running from when it was made", () => {
    const store = makeStore(10 * MINUTE)
    const filled = store.make("alice", 0)
    store.fill(filled.id, "alice", PAGE, 9 * MINUTE)
    expect(store.open(filled.id, 10 * MINUTE)).toEqual({ _tag: "Nothing" })
    const waiting = store.make("alice", 0)
    expect(store.pending(waiting.id, "alice", 10 * MINUTE - 1)).toBe(10 * MINUTE)
    expect(store.fill(waiting.id, "alice", PAGE, 10 * MINUTE)).toBe(false)
    expect(store.open(waiting.id, 10 * MINUTE)).toEqual({ _tag: "Nothing" })
  })

  it("only the caller and session that asked may fill or drop a page, or learn it is pending", () => {
    const store = makeStore(MINUTE)
    const { id } = store.make('["key:a",""]', 0)
    expect(store.pending(id, '["key:b",""]', 1)).toBeUndefined()
    expect(store.fill(id, '["key:b",""]', PAGE, 1)).toBe(false)
    store.drop(id, '["key:b",""]')
    expect(store.pending(id, '["key:a",""]', 1)).toBe(MINUTE)
    store.drop(id, '["key:a",""]')
    expect(store.open(id, 2)).toEqual({ _tag: "Nothing" })
  })

  it("ids are 128 random bits, each new; an id of another form is nothing", () => {
    const store = makeStore(MINUTE)
    const ids = new Set(Array.from({ length: 200 }, () => store.make("a", 0).id))
    expect(ids.size).toBe(200)
    for (const id of ids) {
      expect(id).toMatch(ID)
      expect(Buffer.from(id, "base64url")).toHaveLength(16)
    }
    expect(store.open("../../etc/passwd", 0)).toEqual({ _tag: "Nothing" })
  })

  it("the store holds a bounded number of pages, forgetting the oldest", () => {
    const store = makeStore(MINUTE, 3)
    const first = store.make("a", 0)
    for (let i = 0; i < 3; i++) store.make("a", 0)
    expect(store.pending(first.id, "a", 1)).toBeUndefined()
  })

  it("a page's values are escaped, and nothing is shown of a page that is gone", () => {
    const shown = render({ _tag: "Shown", page: { title: "<b>t</b>", fields: [{ label: "x", value: "<script>" }] } })
    expect(shown.status).toBe(200)
    expect(shown.body).toContain("&#60;script&#62;")
    expect(shown.body).not.toContain("<script>")
    const gone = render({ _tag: "Nothing" })
    expect(gone.status).toBe(404)
  })
})

describe("SVC_MCP_SECRET_PAGE_LIFETIME", () => {
  const load = (env: Record<string, string>) =>
    Effect.runSyncExit(
      Settings.loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))),
    )

  it("is ten minutes unset, a duration from 30s to 1h when set, and refused outside it", () => {
    const unset = load({})
    expect(Exit.isSuccess(unset) && unset.value.secretPageMs).toBe(600_000)
    const set = load({ SVC_MCP_SECRET_PAGE_LIFETIME: "2m" })
    expect(Exit.isSuccess(set) && set.value.secretPageMs).toBe(120_000)
    for (const wrong of ["5s", "2h", "soon"]) {
      const refused = load({ SVC_MCP_SECRET_PAGE_LIFETIME: wrong })
      expect(Exit.isFailure(refused)).toBe(true)
      expect(String(Exit.isFailure(refused) ? refused.cause : "")).toMatch(/SVC_MCP_SECRET_PAGE_LIFETIME/)
    }
  })

  it("is the lifetime of the pages the tools' bundle hands secrets on: at its shortest, 30 s", async () => {
    const settings = await Effect.runPromise(
      Settings.loadSettings.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_MCP_SECRET_PAGE_LIFETIME", "30s"]]))),
      ),
    )
    const { store } = await Effect.runPromise(
      Effect.scoped(
        Effect.map(
          Layer.build(
            ToolsBundle.layerWith(Settings.layerValue(settings), Layers.params).pipe(
              Layer.provideMerge(Layers.client(Layers.apiKey("http://127.0.0.1:9"))),
            ),
          ),
          Context.get(SecretPages),
        ),
      ),
    )
    expect(store.lifetimeMs).toBe(30_000)
    const [kept, late] = [store.make("call", 0, "alice"), store.make("call", 0, "alice")]
    expect([store.fill(kept.id, "call", PAGE, 1), store.fill(late.id, "call", PAGE, 1)]).toEqual([true, true])
    // Its person, a moment before the end and just past it: the secret, then nothing.
    expect(store.open(kept.id, 29_999, "alice")).toEqual({ _tag: "Shown", page: PAGE })
    expect(store.open(late.id, 30_000, "alice")).toEqual({ _tag: "Nothing" })
  })
})
