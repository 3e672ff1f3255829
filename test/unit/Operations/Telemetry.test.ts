/**
 * The pieces of telemetry and per-request credentials that need no process:
 * reading a traceparent, reading a caller from headers, and the hooks being
 * the identity when telemetry is off.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as FastCheck from "fast-check"
import * as Auth from "../../../src/Auth.js"
import * as Asked from "../../../src/Call/Asked.js"
import * as CallContext from "../../../src/Call/Context.js"
import * as Telemetry from "../../../src/Operations/Telemetry.js"
import * as TelemetryHooks from "../../../src/Operations/TelemetryHooks.js"
import * as CallerCredentials from "../../../src/Service/CallerCredentials.js"
import * as SvcClient from "../../../src/SvcClient.js"
import { property } from "../../support/Property.js"

const hex = (length: number) =>
  FastCheck.array(FastCheck.constantFrom(..."0123456789abcdef"), { minLength: length, maxLength: length }).map((cs) =>
    cs.join(""),
  )

/** A traceparent's four fields as the standard allows them: a version other than ff, ids not all zero. */
const wellFormed = FastCheck.tuple(
  hex(2).filter((version) => version !== "ff"),
  hex(32).filter((id) => !/^0+$/.test(id)),
  hex(16).filter((id) => !/^0+$/.test(id)),
  hex(2),
)

const replaced = (parts: ReadonlyArray<string>, at: number, value: string) =>
  parts.map((part, i) => (i === at ? value : part))

describe("parseTraceparent", () => {
  property(
    "reads the trace and span ids and the sampled flag of any well-formed traceparent",
    [hex(32), hex(16), FastCheck.integer({ min: 0, max: 255 })],
    ([traceId, spanId, flags]) => {
      const parsed = TelemetryHooks.parseTraceparent(`00-${traceId}-${spanId}-${flags.toString(16).padStart(2, "0")}`)
      if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return Option.isNone(parsed)
      return (
        Option.isSome(parsed) &&
        parsed.value.traceId === traceId &&
        parsed.value.spanId === spanId &&
        parsed.value.sampled === ((flags & 1) === 1)
      )
    },
  )

  property(
    "refuses anything else: a well-formed traceparent is read, and any one change to its form refused",
    [wellFormed, FastCheck.nat(), FastCheck.nat(), FastCheck.constantFrom(..."gGxz-_ .:/\u00e9")],
    ([fields, which, at, other]) => {
      const field = which % 4
      const text = fields[field] as string
      const place = at % text.length
      const changes = [
        // one character not hex
        replaced(fields, field, `${text.slice(0, place)}${other}${text.slice(place + 1)}`),
        // a field a character short, or one too long
        replaced(fields, field, text.slice(1)),
        replaced(fields, field, `${text}0`),
      ]
      const joined = (parts: ReadonlyArray<string>, separator = "-") => parts.join(separator)
      return (
        Option.isSome(TelemetryHooks.parseTraceparent(joined(fields))) &&
        changes.every((parts) => Option.isNone(TelemetryHooks.parseTraceparent(joined(parts)))) &&
        Option.isNone(TelemetryHooks.parseTraceparent(joined(fields, other === "-" ? "_" : other))) &&
        Option.isNone(TelemetryHooks.parseTraceparent(joined(replaced(fields, 0, "ff")))) &&
        Option.isNone(
          TelemetryHooks.parseTraceparent(
            joined(replaced(fields, 1 + (which % 2), "0".repeat(which % 2 === 0 ? 32 : 16))),
          ),
        )
      )
    },
  )

  it("refuses the all-zero ids, version ff, and what is not a string", () => {
    const span = "b7ad6b7169203331"
    expect(TelemetryHooks.parseTraceparent(`00-${"0".repeat(32)}-${span}-01`)).toEqual(Option.none())
    expect(TelemetryHooks.parseTraceparent(`ff-${"1".repeat(32)}-${span}-01`)).toEqual(Option.none())
    expect(TelemetryHooks.parseTraceparent({ traceparent: "00" })).toEqual(Option.none())
  })

  it.effect("without telemetry, every hook hands back the very effect it was given", () =>
    Effect.gen(function* () {
      const hooks = yield* Telemetry.hooks
      const client = yield* SvcClient.Hooks
      const program = Effect.succeed({ status: 200 })
      expect(client.serviceRequest("POST", "/read/ListStacks")(program)).toBe(program)
      expect(client.login(program)).toBe(program)
      expect(hooks.toolCall("svc_list", "stack", "read/ListStacks")(program, () => ({ outcome: "ok" }))).toBe(program)
    }),
  )

  it.effect("the service client's hooks do nothing unless a layer provides others", () =>
    Effect.gen(function* () {
      const client = yield* SvcClient.Hooks
      const program = Effect.succeed({ status: 200 })
      expect(client.serviceRequest("POST", "/read/ListStacks")(program)).toBe(program)
      expect(client.login(program)).toBe(program)
    }),
  )

  it.effect("with telemetry on, the hooks wrap what they are given and hand back its result", () =>
    Effect.gen(function* () {
      const hooks = TelemetryHooks.makeHooks()
      const program = Effect.succeed({ status: 200 })
      const wrapped = hooks.serviceRequest("POST", "/read/ListStacks")(program)
      expect(wrapped).not.toBe(program)
      expect(yield* wrapped).toEqual({ status: 200 })
      expect(yield* hooks.login(Effect.succeed("token"))).toBe("token")
    }),
  )

  it.effect("a tool call's span says why it was asked, as its context carries it, and no resource's name", () =>
    Effect.gen(function* () {
      const hooks = TelemetryHooks.makeHooks()
      const attributesOf = Effect.map(Effect.currentSpan, (span) => Object.fromEntries(span.attributes))
      const asked = Asked.of([
        Asked.Reason.Pattern({
          setting: "SVC_CONFIRM",
          pattern: "*@tag:production",
          touched: ['"web" carries the tag "production"'],
        }),
        Asked.Reason.Held({ read: "the logs of stack web", why: "it cannot be undone" }),
      ])
      const span = yield* hooks
        .toolCall(
          "svc_execute",
          "deploy_stack",
          "execute/DeployStack",
        )(attributesOf, () => ({ outcome: "ok" }))
        .pipe(CallContext.within({ ...CallContext.empty, asked: Option.fromNullable(asked) }))
      expect(span["svc.confirmation"]).toBe("SVC_CONFIRM (*@tag:production), SVC_GUARD (it cannot be undone)")
      const unasked = yield* hooks.toolCall(
        "svc_list",
        "stack",
        "read/ListStacks",
      )(attributesOf, () => ({
        outcome: "ok",
      }))
      expect(unasked["svc.confirmation"]).toBeUndefined()
    }),
  )
})

describe("CallerCredentials", () => {
  it("reads the caller from both headers, or says which is missing", () => {
    const caller = CallerCredentials.fromHeaders({ "x-svc-api-key": "k-1", "x-svc-api-secret": "s-1" })
    expect(Either.isRight(caller) && caller.right.key === "k-1" && Redacted.value(caller.right.secret) === "s-1").toBe(
      true,
    )
    const refusal = (headers: Record<string, string>) =>
      Either.match(CallerCredentials.fromHeaders(headers), { onLeft: (why) => why, onRight: () => "named" })
    expect(refusal({})).toBe(CallerCredentials.MISSING)
    expect(refusal({ "x-svc-api-key": "k-1" })).toMatch(/X-Svc-Api-Secret is missing/)
    expect(refusal({ "x-svc-api-secret": "s", "x-svc-api-key": " " })).toMatch(/X-Svc-Api-Key is missing/)
  })

  it.effect("its Auth sends the current caller's key and secret, and fails unsent without a caller", () =>
    Effect.gen(function* () {
      const caller = { key: "k-1", secret: Redacted.make("s-1") }
      const credential = yield* CallerCredentials.as(caller)(Auth.perRequest.credential)
      expect(credential.headers).toEqual({ "x-api-key": "k-1", "x-api-secret": "s-1" })
      expect(yield* CallerCredentials.as(caller)(Auth.perRequest.secrets)).toEqual(["s-1"])
      const none = yield* Effect.flip(Auth.perRequest.credential)
      expect(none.message).toMatch(/no caller credentials/)
      expect(yield* Auth.perRequest.secrets).toEqual([])
    }),
  )
})
