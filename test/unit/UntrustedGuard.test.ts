/**
 * The guard's parts: its settings (SVC_GUARD, SVC_GUARD_WINDOW, refused in one
 * line when malformed), its window in memory on the Effect clock, and the
 * caller it keys the window by.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as CallContext from "../../src/Call/Context.js"
import * as GuardSettings from "../../src/Settings/Guard.js"
import { callerOf, STDIO } from "../../src/Untrusted/Caller.js"
import * as Guard from "../../src/Untrusted/Guard.js"

const WEB = "the logs of stack web"
const INFRA = "the commit messages of repo infra"

const load = (env: Record<string, string>) =>
  GuardSettings.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("the guard's settings", () => {
  it.effect("ask by default, for ten minutes; off, on, and windows in s, m, h", () =>
    Effect.gen(function* () {
      expect(yield* load({})).toEqual({ mode: "ask", windowMs: 600_000, hold: [] })
      expect(yield* load({ SVC_GUARD: "off" })).toMatchObject({ mode: "off" })
      expect(yield* load({ SVC_GUARD: "ask-all" })).toMatchObject({ mode: "ask-all" })
      expect(yield* load({ SVC_GUARD: "ASK", SVC_GUARD_WINDOW: "90" })).toEqual({
        mode: "ask",
        windowMs: 90_000,
        hold: [],
      })
      expect(yield* load({ SVC_GUARD: "on", SVC_GUARD_WINDOW: "2m" })).toEqual({
        mode: "ask",
        windowMs: 120_000,
        hold: [],
      })
      expect(yield* load({ SVC_GUARD_WINDOW: "1h" })).toMatchObject({ windowMs: 3_600_000 })
      const hold = (yield* load({ SVC_GUARD_HOLD: "svc_execute:deploy*, -svc_rename:tag" })).hold
      expect(hold.map((p) => [p.text, p.held])).toEqual([
        ["svc_execute:deploy*", true],
        ["-svc_rename:tag", false],
      ])
    }),
  )

  it.effect("a malformed value is refused in one line that names the variable and the fix", () =>
    Effect.gen(function* () {
      const guard = yield* Effect.flip(load({ SVC_GUARD: "maybe" }))
      expect(guard.message).toBe(
        'SVC_GUARD is "maybe": use ask (the default: hold what cannot be undone), ask-all (hold every change) or off',
      )
      const hold = yield* Effect.flip(load({ SVC_GUARD_HOLD: "svc_delete" }))
      expect(hold.message).toBe(
        'SVC_GUARD_HOLD has the pattern "svc_delete", which is not tool:selector or -tool:selector: write comma-separated tool:selector patterns with * as a wildcard, a leading - to let a change through, e.g. SVC_GUARD_HOLD=svc_execute:deploy*,-svc_rename:tag',
      )
      for (const bad of ["0", "ten", "-5m", "25h", "5d"]) {
        const window = yield* Effect.flip(load({ SVC_GUARD_WINDOW: bad }))
        expect(window.variable).toBe("SVC_GUARD_WINDOW")
        expect(window.message).toMatch(/give seconds, or a number with s, m or h, e\.g\. SVC_GUARD_WINDOW=10m$/)
      }
      expect(Either.isLeft(GuardSettings.parseWindow("86401"))).toBe(true)
    }),
  )
})

describe("the guard's window in memory", () => {
  it.effect("holds what a caller read for the window, per caller, on the Effect clock", () =>
    Effect.gen(function* () {
      const store = yield* Guard.memoryStore
      yield* store.mark("key:alice", "the logs of stack web", 60_000)
      // The window ends a minute after the read, on the Effect clock (0 at the start of a test).
      expect(yield* store.recent("key:alice")).toEqual(Option.some({ source: "the logs of stack web", until: 60_000 }))
      expect(yield* store.recent("key:bob")).toEqual(Option.none())
      yield* TestClock.adjust("59 seconds")
      expect(Option.map(yield* store.recent("key:alice"), (w) => w.source)).toEqual(Option.some(WEB))
      // A later read renews the window and names what was read last.
      yield* store.mark("key:alice", "the commit messages of repo infra", 60_000)
      yield* TestClock.adjust("30 seconds")
      expect(yield* store.recent("key:alice")).toEqual(Option.some({ source: INFRA, until: 119_000 }))
      yield* TestClock.adjust("31 seconds")
      expect(yield* store.recent("key:alice")).toEqual(Option.none())
    }),
  )

  it.effect("is off by default and with SVC_GUARD=off; on with its layer", () =>
    Effect.gen(function* () {
      expect(yield* Guard.Guard.pipe(Effect.provide(Guard.layerOff))).toEqual(Option.none())
      const off = yield* Guard.Guard.pipe(Effect.provide(Guard.layer({ mode: "off", windowMs: 1_000, hold: [] })))
      expect(off).toEqual(Option.none())
      const on = yield* Guard.Guard.pipe(Effect.provide(Guard.layer({ mode: "ask", windowMs: 1_000, hold: [] })))
      expect(Option.map(on, (guard) => guard.windowMs)).toEqual(Option.some(1_000))
    }),
  )
})

describe("whose window, as the start line and svc-mcp check say it", () => {
  const settings = (mode: GuardSettings.GuardMode): GuardSettings.GuardSettings => ({ mode, windowMs: 1_000, hold: [] })
  it("only a 2026-07-28 client with shared credentials and no sign-in is known by its address", () => {
    const shared = Guard.whoseWindow(settings("ask"), { http: true, signIn: false, perRequest: false })
    expect(shared.shared).toBe(true)
    expect(shared.words).toMatch(
      /each 2025-era client is its own session, but a 2026-07-28 client with the shared credentials is known only by its address/,
    )
    expect(Guard.whoseWindow(settings("ask"), { http: true, signIn: true, perRequest: false })).toEqual({
      words: "changes after untrusted text that cannot be undone are held; each caller is the person signed in",
      shared: false,
    })
    expect(Guard.whoseWindow(settings("ask-all"), { http: true, signIn: false, perRequest: true })).toEqual({
      words: "every change after untrusted text is held (SVC_GUARD=ask-all); each caller is its own service key",
      shared: false,
    })
    expect(Guard.whoseWindow(settings("off"), { http: true, signIn: false, perRequest: false }).shared).toBe(false)
  })
})

describe("the guard's caller", () => {
  it.effect(
    "is the signed-in identity, else the caller's key, else its session, else its address, else the stdio connection",
    () =>
      Effect.gen(function* () {
        const as = (context: Partial<CallContext.CallContext>) =>
          callerOf.pipe(CallContext.within({ ...CallContext.empty, ...context }))
        expect(yield* callerOf).toBe(STDIO)
        expect(yield* as({ address: Option.some("127.0.0.2") })).toBe("address:127.0.0.2")
        expect(yield* as({ address: Option.some("127.0.0.2"), session: Option.some("n1") })).toBe("session:n1")
        const caller = { key: "k1", secret: {} as never }
        expect(yield* as({ address: Option.some("127.0.0.2"), credentials: { _tag: "Caller", caller } })).toBe("key:k1")
        const identity = { issuer: "https://idp", subject: "s", name: "alice@example.com", scopes: [] }
        expect(yield* as({ identity: Option.some(identity), credentials: { _tag: "Caller", caller } })).toBe(
          "oauth:alice@example.com",
        )
      }),
  )
})
