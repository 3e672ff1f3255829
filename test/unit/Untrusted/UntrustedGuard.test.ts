/**
 * The guard's parts: its settings (SVC_GUARD, SVC_GUARD_WINDOW, refused in one
 * line when malformed), its window in memory on the Effect clock, bounded, and
 * the names it keys the window by: the person's and the conversation's, never
 * the service's.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as CallContext from "../../../src/Call/Context.js"
import * as Guarded from "../../../src/Mcp/Calls/Guarded.js"
import * as GuardSettings from "../../../src/Settings/Guard.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { resolveCall } from "../../../src/Tools/Invoke.js"
import { callersIn, STDIO } from "../../../src/Untrusted/Caller.js"
import * as Guard from "../../../src/Untrusted/Guard.js"

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
        'SVC_GUARD_HOLD has the pattern "svc_delete", which is neither tool:selector nor a class (destructive): write comma-separated tool:selector patterns with * as a wildcard anywhere, or the class destructive, a leading - to let a change through, and what it touches after @ if you like, e.g. SVC_GUARD_HOLD=svc_execute:deploy*,-svc_rename:tag,svc_execute:*@tag:production',
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
      expect(yield* store.recent("key:alice")).toEqual(
        Option.some({ source: "the logs of stack web", at: 0, until: 60_000 }),
      )
      expect(yield* store.recent("key:bob")).toEqual(Option.none())
      yield* TestClock.adjust("59 seconds")
      expect(Option.map(yield* store.recent("key:alice"), (w) => w.source)).toEqual(Option.some(WEB))
      // A later read renews the window and names what was read last.
      yield* store.mark("key:alice", "the commit messages of repo infra", 60_000)
      yield* TestClock.adjust("30 seconds")
      expect(yield* store.recent("key:alice")).toEqual(Option.some({ source: INFRA, at: 59_000, until: 119_000 }))
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
  const settings = (mode: GuardSettings.GuardMode): GuardSettings.GuardSettings => ({
    mode,
    windowMs: 600_000,
    hold: [],
  })
  it("only a 2026-07-28 client with shared credentials and no sign-in is known by its address", () => {
    const shared = Guard.whoseWindow(settings("ask"), { http: true, signIn: false, perRequest: false })
    expect(shared.shared).toBe(true)
    expect(shared.words).toMatch(
      /each 2025-era client's window is its session's, for its life, but a 2026-07-28 client with the shared credentials is known only by its address: clients behind one address share a window, for SVC_GUARD_WINDOW \(10m\)/,
    )
    expect(Guard.whoseWindow(settings("ask"), { http: true, signIn: true, perRequest: false })).toEqual({
      words:
        "changes after untrusted text that cannot be undone are held; the window is the signed-in person's, on every service: in a 2025-era session for the session's life, else for SVC_GUARD_WINDOW (10m)",
      shared: false,
    })
    expect(Guard.whoseWindow(settings("ask-all"), { http: true, signIn: false, perRequest: true })).toEqual({
      words:
        "every change after untrusted text is held (SVC_GUARD=ask-all); the window is that of the service keys a request brings, on every service: in a 2025-era session for the session's life, else for SVC_GUARD_WINDOW (10m)",
      shared: false,
    })
    expect(Guard.whoseWindow(settings("ask"), { http: false, signIn: false, perRequest: false }).words).toMatch(
      /the window is the stdio connection's, for its life$/,
    )
    expect(Guard.whoseWindow(settings("off"), { http: true, signIn: false, perRequest: false }).shared).toBe(false)
  })
})

describe("the guard's names for a caller: the person's and the conversation's, never the service's", () => {
  const as = (context: Partial<CallContext.CallContext>) => callersIn({ ...CallContext.empty, ...context })
  const secret = {} as never
  const identity = { issuer: "https://idp", subject: "s-1", name: "alice@example.com", scopes: [] }

  it("over stdio: the connection; a 2026-07-28 client with the shared credentials: its address alone", () => {
    expect(as({})).toEqual({ person: [], conversation: Option.some(STDIO) })
    expect(as({ address: Option.some("127.0.0.2") })).toEqual({
      person: ["address:127.0.0.2"],
      conversation: Option.none(),
    })
    // A session names the client apart from others at its address, and the address then names no one.
    expect(as({ address: Option.some("127.0.0.2"), session: Option.some("n1") })).toEqual({
      person: [],
      conversation: Option.some("session:n1"),
    })
  })

  it("the identity (by issuer and subject) and the key, with the session when there is one", () => {
    const caller = { key: "k1", secret }
    expect(as({ address: Option.some("127.0.0.2"), credentials: { _tag: "Caller", caller } })).toEqual({
      person: ["key:k1"],
      conversation: Option.none(),
    })
    expect(
      as({
        address: Option.some("127.0.0.2"),
        identity: Option.some(identity),
        credentials: { _tag: "Caller", caller },
        session: Option.some("n2"),
      }),
    ).toEqual({
      person: ['oauth:["https://idp","s-1"]', "key:k1"],
      conversation: Option.some("session:n2"),
    })
  })

  it("among several services, every key the request brings, whichever service the call is for", () => {
    const callers = new Map([
      ["prod", { key: "prod-key", secret }],
      ["staging", { key: "staging-key", secret }],
    ])
    const credentials: CallContext.Credentials = { _tag: "PerService", callers }
    const onProd = as({ address: Option.some("127.0.0.2"), credentials, service: Option.some("prod") })
    const onStaging = as({ address: Option.some("127.0.0.2"), credentials, service: Option.some("staging") })
    expect(onProd).toEqual({ person: ["key:prod-key", "key:staging-key"], conversation: Option.none() })
    expect(onStaging).toEqual(onProd)
  })
})

describe("the guard's window, noted under every name and looked up under any", () => {
  const guardOf = Effect.map(
    Guard.Guard.pipe(Effect.provide(Guard.layer({ mode: "ask", windowMs: 20_000, hold: [] }))),
    Option.getOrThrow,
  )
  const staging = new Map([["staging", { key: "staging-key", secret: {} as never }]])
  const both = new Map([...staging, ["prod", { key: "prod-key", secret: {} as never }]])
  const call = (context: Partial<CallContext.CallContext>) => ({ ...CallContext.empty, ...context })
  const deleteTag = resolveCall(Definitions.svc_delete, {
    resource_type: "tag",
    params: { id: "t1" },
  })
  const held = (guard: Guard.GuardShape, context: CallContext.CallContext) =>
    Effect.map(Guarded.afterUntrustedRead(Option.some(guard), deleteTag).pipe(CallContext.within(context)), (found) =>
      Option.map(found, (h) => h.window.source),
    )

  it.effect("a read on staging holds a change on prod, for the keys the request brings", () =>
    Effect.gen(function* () {
      const guard = yield* guardOf
      const reading = call({
        address: Option.some("127.0.0.2"),
        credentials: { _tag: "PerService", callers: both },
        service: Option.some("staging"),
      })
      yield* Guarded.noteRead(Option.some(guard), WEB).pipe(CallContext.within(reading))
      expect(yield* held(guard, { ...reading, service: Option.some("prod") })).toEqual(Option.some(WEB))
      // A request that brings only one of the keys that read is still that person's.
      const prodOnly = new Map([["prod", { key: "prod-key", secret: {} as never }]])
      const onProd = call({ address: Option.some("127.0.0.2"), credentials: { _tag: "PerService", callers: prodOnly } })
      expect(yield* held(guard, onProd)).toEqual(Option.some(WEB))
      // Someone else's key at the same address is not.
      const other = new Map([["prod", { key: "other-key", secret: {} as never }]])
      expect(
        yield* held(
          guard,
          call({ address: Option.some("127.0.0.2"), credentials: { _tag: "PerService", callers: other } }),
        ),
      ).toEqual(Option.none())
    }),
  )

  it.effect("in a session, for the session's life; without one, for SVC_GUARD_WINDOW", () =>
    Effect.gen(function* () {
      const guard = yield* guardOf
      const inSession = call({
        address: Option.some("127.0.0.2"),
        credentials: { _tag: "PerService", callers: staging },
        session: Option.some("n1"),
      })
      yield* Guarded.noteRead(Option.some(guard), WEB).pipe(CallContext.within(inSession))
      const sessionless = call({
        address: Option.some("127.0.0.2"),
        credentials: { _tag: "PerService", callers: staging },
      })
      yield* TestClock.adjust("21 seconds")
      // The person's other conversations: the window has ended. This one: it has not.
      expect(yield* held(guard, sessionless)).toEqual(Option.none())
      expect(yield* held(guard, inSession)).toEqual(Option.some(WEB))
      yield* TestClock.adjust("23 hours")
      expect(yield* held(guard, inSession)).toEqual(Option.some(WEB))
      // The latest reading is the one named, whichever name it was noted under.
      yield* Guarded.noteRead(Option.some(guard), INFRA).pipe(CallContext.within(sessionless))
      expect(yield* held(guard, inSession)).toEqual(Option.some(INFRA))
    }),
  )

  it.effect("the memory keeps at most its bound of callers, the oldest reading forgotten first", () =>
    Effect.gen(function* () {
      const store = yield* Guard.memoryStore
      for (let i = 0; i < 100_001; i++) yield* store.mark(`session:${i}`, WEB, 86_400_000)
      expect(yield* store.recent("session:0")).toEqual(Option.none())
      expect(Option.isSome(yield* store.recent("session:1"))).toBe(true)
      expect(Option.isSome(yield* store.recent("session:100000"))).toBe(true)
    }),
  )
})
