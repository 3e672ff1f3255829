/**
 * The confirmation's states (Confirmation/Flow.ts), apart from MCP: a call nothing asks about is
 * sent; one SVC_CONFIRM names or the guard holds is asked, with a state sealed for it, and sent
 * once the accept comes back with that state; a decline or a cancel sends nothing; a client that
 * cannot be asked is refused, in the guard's words where the guard holds the call.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Asked from "../../../src/Call/Asked.js"
import * as Flow from "../../../src/Confirmation/Flow.js"
import * as State from "../../../src/Confirmation/State.js"
import * as WhyAsked from "../../../src/Confirmation/WhyAsked.js"
import type { Pattern } from "../../../src/Settings/ToolSettings.js"
import type * as PatternReader from "../../../src/Shared/PatternReader.js"
import * as Store from "../../../src/Store/Store.js"
import type { SvcClient } from "../../../src/SvcClient.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { type Invocation, resolveCall } from "../../../src/Tools/Invoke.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

const invocationOf = (args: Record<string, unknown>): Invocation => {
  const { invocation } = resolveCall(Definitions.svc_delete, args)
  if (Either.isLeft(invocation)) throw new Error("the call does not decode")
  return invocation.right
}

const ARGS = { resource_type: "stack", params: { id: "web" } }
const PATTERN: Pattern = { variable: "SVC_CONFIRM", text: "svc_delete:*", tool: /^svc_delete$/, selector: /^.*$/ }
const HOLD: WhyAsked.GuardHold = {
  window: { source: "the logs of stack web", at: 0, until: 1 },
  decision: { held: true, why: "it cannot be undone" },
}
const SETTINGS: WhyAsked.Settings = { variable: (single) => single }
/** Asked by SVC_CONFIRM's pattern, or by the guard alone. */
const BY_PATTERN = Asked.of([WhyAsked.reasonOf(SETTINGS, PATTERN)])
const BY_GUARD = Asked.of([WhyAsked.heldReason(HOLD)])

const request = (more: Partial<Flow.Request>): Flow.Request => ({
  tool: "svc_delete",
  args: ARGS,
  invocation: invocationOf(ARGS),
  asked: BY_PATTERN,
  reply: "unasked",
  echoedState: undefined,
  canAsk: true,
  ...more,
})

/** The flow's settings over fresh states, and the sandbox's client to read the question's target with. */
const onSandbox = <A, E>(
  run: (settings: Flow.Settings) => Effect.Effect<A, E, SvcClient | PatternReader.PatternReader>,
) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped()
    const states = yield* State.make(Redacted.make(new Uint8Array(32).fill(7))).pipe(Effect.provide(Store.layerOff))
    const settings: Flow.Settings = {
      states,
      revealSecrets: false,
      names: Option.none(),
      variable: (single) => single,
    }
    return yield* Effect.provide(run(settings), Layers.client(Sandboxes.apiKeyConfig(sandbox)))
  })

describe("the confirmation's verdict", () => {
  it.scopedLive("nothing asks: sent; a schema call: sent, whatever asks", () =>
    onSandbox((settings) =>
      Effect.gen(function* () {
        expect((yield* Flow.decide(settings, request({ asked: undefined })))._tag).toBe("Send")
        const schema = { resource_type: "stack", schema: true }
        const asked = request({ invocation: invocationOf(schema), args: schema, asked: BY_GUARD })
        expect((yield* Flow.decide(settings, asked))._tag).toBe("Send")
      }),
    ),
  )

  it.scopedLive(
    "asked, then accepted with the state sealed for it: sent once; the same accept again is asked anew",
    () =>
      onSandbox((settings) =>
        Effect.gen(function* () {
          const first = yield* Flow.decide(settings, request({}))
          if (first._tag !== "Ask") throw new Error(`asked, not ${first._tag}`)
          expect(first.question).toMatch(/^svc_delete resource_type "stack" will call write\/DeleteStack on id="web"\./)
          expect(first.recorded).toBe("awaiting the user's confirmation (SVC_CONFIRM svc_delete:*)")
          const accepted = yield* Flow.decide(settings, request({ reply: "accept", echoedState: first.state }))
          expect(accepted._tag).toBe("SendOnce")
          // Used: a second accept with it is not honoured, and the question is asked again.
          expect((yield* Flow.decide(settings, request({ reply: "accept", echoedState: first.state })))._tag).toBe(
            "Ask",
          )
          // Another call's state, or none, is asked again too.
          const other = { resource_type: "stack", params: { id: "db" } }
          const forOther = request({
            reply: "accept",
            echoedState: first.state,
            args: other,
            invocation: invocationOf(other),
          })
          expect((yield* Flow.decide(settings, forOther))._tag).toBe("Ask")
          expect((yield* Flow.decide(settings, request({ reply: "accept" })))._tag).toBe("Ask")
        }),
      ),
  )

  it.scopedLive("a decline or a cancel sends nothing, and says who asked", () =>
    onSandbox((settings) =>
      Effect.gen(function* () {
        expect(yield* Flow.decide(settings, request({ reply: "decline" }))).toEqual(
          Flow.Verdict.Decline({
            answer: "decline",
            setting: "SVC_CONFIRM",
            recorded: "the user declined the confirmation (SVC_CONFIRM)",
          }),
        )
        expect(yield* Flow.decide(settings, request({ reply: "cancel", asked: BY_GUARD }))).toEqual(
          Flow.Verdict.Decline({
            answer: "cancel",
            setting: "SVC_GUARD",
            recorded: "the user cancelled the confirmation (SVC_GUARD)",
          }),
        )
      }),
    ),
  )

  it.scopedLive("a client that cannot be asked is refused: in the guard's words when it alone holds the call", () =>
    onSandbox((settings) =>
      Effect.gen(function* () {
        expect(yield* Flow.decide(settings, request({ canAsk: false }))).toEqual(
          Flow.Verdict.Refuse({
            reason:
              "SVC_CONFIRM (svc_delete:*) requires the user's confirmation, and this client can answer neither input_required nor elicitation requests",
          }),
        )
        const held = yield* Flow.decide(settings, request({ canAsk: false, asked: BY_GUARD }))
        expect(held).toEqual(
          Flow.Verdict.Refuse({ reason: Flow.holdRefusal({ read: HOLD.window.source, why: HOLD.decision.why }) }),
        )
        expect(Flow.holdRefusal({ read: HOLD.window.source, why: HOLD.decision.why })).toMatch(
          /^this change it cannot be undone, so it is held because it follows reading the logs of stack web, /,
        )
      }),
    ),
  )
})
