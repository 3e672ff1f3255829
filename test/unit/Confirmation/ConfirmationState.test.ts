/**
 * A sealed confirmation state is honoured only for the call it was issued for,
 * by the principal it was issued to, once, within five minutes, under the key
 * it was sealed with. Anything else is refused (and the call asked about again).
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as FastCheck from "fast-check"
import { canonicalJson } from "../../../src/Confirmation/Canonical.js"
import * as State from "../../../src/Confirmation/State.js"
import * as Team from "../../../src/Settings/Team.js"
import * as Store from "../../../src/Store/Store.js"
import { liveProperty, property } from "../../support/Property.js"

const json: FastCheck.Arbitrary<unknown> = FastCheck.jsonValue({ maxDepth: 3 })
const args = FastCheck.dictionary(FastCheck.string({ maxLength: 8 }), json, { maxKeys: 5 })
const binding = FastCheck.record({
  tool: FastCheck.constantFrom("svc_delete", "svc_execute", "svc_update"),
  selector: FastCheck.string({ minLength: 1, maxLength: 20 }),
  args,
  principal: FastCheck.oneof(
    FastCheck.constant(State.SERVER_PRINCIPAL),
    FastCheck.string().map((k) => `key:${k}`),
  ),
  // Which of several services the call is for; none for the single one.
  service: FastCheck.option(FastCheck.constantFrom("prod", "staging", "qa-1"), { nil: undefined }),
})

const key = (fill: number) => Redacted.make(new Uint8Array(32).fill(fill))

const reason = (result: Either.Either<unknown, State.StateRefused | State.ConfirmationUnrecorded>) =>
  Either.match(result, { onLeft: (e) => (e._tag === "StateRefused" ? e.reason : e._tag), onRight: () => "Honoured" })

/** The same object with its keys in reverse order, at every depth. */
const reversed = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversed)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reversed(v)]),
        )
      : value

/** `value` with each object's keys in sorted order. */
const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
        )
      : value

describe("canonical JSON", () => {
  property("key order never matters", { v: json }, ({ v }) => {
    expect(canonicalJson(reversed(v))).toBe(canonicalJson(v))
    expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)))
  })

  property("any other difference does", { a: json, b: json }, ({ a, b }) => {
    // Told apart by the test's own reading: each object's keys sorted, then compared as JSON.
    const same = JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b))
    expect(canonicalJson(a) === canonicalJson(b)).toBe(same)
  })

  it("tells types and array order apart", () => {
    expect(canonicalJson({ id: 1 })).not.toBe(canonicalJson({ id: "1" }))
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]))
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: null })).toBe('{"a":null,"b":{"c":2,"d":1}}')
  })
})

// The properties run each case on the live runtime: it.effect would build a test
// environment (TestClock and the rest) per case, most of a case's time; none reads the clock.
describe("a sealed confirmation state", () => {
  liveProperty("is honoured once for its own call, with the arguments in any key order", { b: binding }, ({ b }) =>
    Effect.gen(function* () {
      const states = yield* State.make(key(1))
      const state = yield* states.seal(b)
      expect(reason(yield* Effect.either(states.verify(state, { ...b, args: reversed(b.args) })))).toBe("Honoured")
      expect(reason(yield* Effect.either(states.verify(state, b)))).toBe("Reused")
    }).pipe(Effect.provide(Store.layerOff)),
  )

  liveProperty(
    "fails for any change of tool, selector, arguments, principal or service",
    {
      b: binding,
      other: binding,
      field: FastCheck.constantFrom("tool", "selector", "args", "principal", "service"),
    },
    ({ b, other, field }) =>
      Effect.gen(function* () {
        const changed = { ...b, [field]: other[field as keyof typeof other] }
        if (canonicalJson(changed) === canonicalJson(b)) return
        const states = yield* State.make(key(2))
        const state = yield* states.seal(b)
        expect(reason(yield* Effect.either(states.verify(state, changed)))).toBe("OtherCall")
        // Refusing another call does not use the state up.
        expect(reason(yield* Effect.either(states.verify(state, b)))).toBe("Honoured")
      }).pipe(Effect.provide(Store.layerOff)),
  )

  liveProperty(
    "fails when any character is changed, dropped or added",
    { b: binding, at: FastCheck.nat(), with: FastCheck.constantFrom(..."AZaz09-_.=+/ ") },
    ({ b, at, with: char }) =>
      Effect.gen(function* () {
        const states = yield* State.make(key(3))
        const state = yield* states.seal(b)
        const i = at % state.length
        const tampered = [
          state.slice(0, i) + char + state.slice(i + 1),
          state.slice(0, i) + state.slice(i + 1),
          state.slice(0, i) + char + state.slice(i),
        ].filter((t) => t !== state)
        for (const t of tampered) {
          // Even a tail changed only in its unused bits, which decodes to the same bytes.
          expect(["Malformed", "Forged"]).toContain(reason(yield* Effect.either(states.verify(t, b))))
        }
      }).pipe(Effect.provide(Store.layerOff)),
  )

  it.effect(
    "a seal rewritten in the unused bits of its last character is refused, though it decodes to the same bytes",
    () =>
      Effect.gen(function* () {
        const b = { tool: "svc_delete", selector: "stack", args: { params: { stack: "web" } }, principal: "server" }
        const states = yield* State.make(key(9))
        const state = yield* states.seal(b)
        const [body, tag = ""] = state.split(".")
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        // 32 bytes are 43 characters, the last of which carries 4 bits: its lowest 2 are unused.
        const last = alphabet.indexOf(tag.slice(-1))
        const rewritten = `${tag.slice(0, -1)}${alphabet[last ^ 1]}`
        expect(Buffer.from(rewritten, "base64url")).toEqual(Buffer.from(tag, "base64url"))
        expect(reason(yield* Effect.either(states.verify(`${body}.${rewritten}`, b)))).toBe("Forged")
        expect(reason(yield* Effect.either(states.verify(state, b)))).toBe("Honoured")
      }).pipe(Effect.provide(Store.layerOff)),
  )

  liveProperty("sealed under one key fails under another", { b: binding }, ({ b }) =>
    Effect.gen(function* () {
      const state = yield* Effect.flatMap(State.make(key(4)), (s) => s.seal(b))
      const other = yield* State.make(key(5))
      expect(reason(yield* Effect.either(other.verify(state, b)))).toBe("Forged")
      // The same key in another process (replicas sharing SVC_MCP_STATE_KEY) honours it.
      const replica = yield* State.make(key(4))
      expect(reason(yield* Effect.either(replica.verify(state, b)))).toBe("Honoured")
    }).pipe(Effect.provide(Store.layerOff)),
  )

  it.effect("a call on one service is not the same call on another, nor the single service's", () =>
    Effect.gen(function* () {
      const single = { tool: "svc_delete", selector: "tag", args: { id: "production" }, principal: "server" }
      const states = yield* State.make(key(8))
      const staging = yield* states.seal({ ...single, service: "staging" })
      for (const other of [{ ...single, service: "prod" }, single]) {
        expect(reason(yield* Effect.either(states.verify(staging, other)))).toBe("OtherCall")
      }
      expect(reason(yield* Effect.either(states.verify(staging, { ...single, service: "staging" })))).toBe("Honoured")
      // An undefined service is an absent one: the single service's digest has no service in it.
      const plain = yield* states.seal(single)
      expect(reason(yield* Effect.either(states.verify(plain, { ...single, service: undefined })))).toBe("Honoured")
    }).pipe(Effect.provide(Store.layerOff)),
  )

  it.effect("expires after five minutes, on the Clock", () =>
    Effect.gen(function* () {
      const b = { tool: "svc_delete", selector: "tag", args: { id: "production" }, principal: State.SERVER_PRINCIPAL }
      const states = yield* State.make(key(6))
      const early = yield* states.seal(b)
      const late = yield* states.seal(b)
      yield* TestClock.adjust("299999 millis")
      expect(reason(yield* Effect.either(states.verify(early, b)))).toBe("Honoured")
      yield* TestClock.adjust("1 millis")
      expect(reason(yield* Effect.either(states.verify(late, b)))).toBe("Expired")
    }).pipe(Effect.provide(Store.layerOff)),
  )

  it.effect("refuses a forged or foreign shape, and another principal's state", () =>
    Effect.gen(function* () {
      const b = { tool: "svc_delete", selector: "tag", args: { id: "production" }, principal: "key:alice" }
      const states = yield* State.make(key(7))
      for (const forged of ["", "accept", "a.b.c", "{}.x", "eyJ2IjoxfQ.AAAA"]) {
        expect(["Malformed", "Forged"]).toContain(reason(yield* Effect.either(states.verify(forged, b))))
      }
      const alice = yield* states.seal(b)
      expect(alice).not.toContain("production")
      expect(reason(yield* Effect.either(states.verify(alice, { ...b, principal: "key:bob" })))).toBe("OtherCall")
      expect(reason(yield* Effect.either(states.verify(alice, { ...b, principal: State.SERVER_PRINCIPAL })))).toBe(
        "OtherCall",
      )
      expect(State.principalOf(Option.some("server"))).not.toBe(State.principalOf(Option.none()))
    }).pipe(Effect.provide(Store.layerOff)),
  )

  it.effect("takes its key from SVC_MCP_STATE_KEY; without one, each process has its own", () =>
    Effect.gen(function* () {
      const b = { tool: "svc_execute", selector: "run_sync", args: { sync: "s" }, principal: State.SERVER_PRINCIPAL }
      const withEnv = (env: Record<string, string>) =>
        State.layer.pipe(
          Layer.provide(Team.layer),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))),
        )
      const shared = { SVC_MCP_STATE_KEY: "k".repeat(32) }
      const sealed = yield* Effect.flatMap(State.ConfirmationState, (s) => s.seal(b)).pipe(
        Effect.provide(withEnv(shared)),
      )
      const verify = (env: Record<string, string>) =>
        Effect.flatMap(State.ConfirmationState, (s) => Effect.either(s.verify(sealed, b))).pipe(
          Effect.provide(withEnv(env)),
        )
      expect(reason(yield* verify(shared))).toBe("Honoured")
      expect(reason(yield* verify({}))).toBe("Forged")
      expect(reason(yield* verify({ SVC_MCP_STATE_KEY: "j".repeat(32) }))).toBe("Forged")
    }).pipe(Effect.provide(Store.layerOff)),
  )
})
