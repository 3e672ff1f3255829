/**
 * One `tools/call`, as one Effect. The call is resolved once (the tool, its
 * decoded arguments, the endpoint), and that value flows one way: the policy,
 * the user's confirmation, the tool's program (which calls the service), the
 * call's record (audit, telemetry), and back through rendering. The SDK runs
 * this Effect once per call (Server.ts); nothing here returns to it before the end.
 */

import type { CallToolResult, InputRequiredResult, ServerContext } from "@modelcontextprotocol/server"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"
import * as Question from "../Confirmation/Question.js"
import * as ConfirmationState from "../Confirmation/State.js"
import * as CallRecord from "../Operations/CallRecord.js"
import { Naming } from "../Settings/Naming.js"
import { type Pattern, ServerSettings, type ServerSettingsShape } from "../Settings/Policy.js"
import type { SvcClient } from "../SvcClient.js"
import { type Call, type Invocation, type Readers, resolveCall, runWith, wouldSend } from "../Tools/Invoke.js"
import { Names } from "../Tools/Names.js"
import * as Pages from "../Tools/Pages.js"
import * as ParamsCheck from "../Tools/ParamsCheck.js"
import { Policy, type PolicyShape } from "../Tools/Policy.js"
import { failure, type Rendered, success, unrecorded } from "../Tools/Render.js"
import { ToolDeniedError, ToolNotConfirmedError } from "../Tools/ToolError.js"
import * as Guard from "../Untrusted/Guard.js"
import * as Confirm from "./Confirm.js"
import * as Guarded from "./Guarded.js"
import { INVALID_PARAMS, type Incoming, withinCallContext } from "./Incoming.js"

/** A call the SDK answers with a JSON-RPC error instead of a result. */
export class ProtocolFailure extends Data.TaggedError("ProtocolFailure")<{
  readonly code: number
  readonly message: string
}> {}

export type Answer = CallToolResult | InputRequiredResult

/** The requirements of a call's Effect. */
export type Requirements = SvcClient

/** The Effect of one call. */
export type Handler = (incoming: Incoming) => Effect.Effect<Answer, ProtocolFailure, Requirements>

const toResult = (rendered: Rendered): CallToolResult => {
  const structured = rendered.structured ?? rendered.structuredData
  return {
    content: [{ type: "text", text: rendered.text }],
    ...(rendered.isError ? { isError: true } : {}),
    ...(structured === undefined ? {} : { structuredContent: structured as Record<string, unknown> }),
    ...(rendered.meta === undefined ? {} : { _meta: rendered.meta as Record<string, unknown> }),
  }
}

/**
 * Where the confirmation leaves a call: it goes on (`Send`); it goes on as an accept
 * honoured, and `sent` records that it went out (`SendOnce`); or it stops here with
 * `answer` (`Answer`: refused, declined, or the question itself). An accept that is not
 * honoured is asked again (`AskAgain`), which only `accept` says.
 */
type Step = Data.TaggedEnum<{
  Send: Record<never, never>
  SendOnce: { readonly sent: Effect.Effect<void> }
  Answer: { readonly answer: Answer }
  AskAgain: Record<never, never>
}>
const Step = Data.taggedEnum<Step>()
type Decision = Exclude<Step, { readonly _tag: "AskAgain" }>
/** The two steps without data, made once: a call that confirms nothing allocates none. */
const sendNow: Effect.Effect<Decision> = Effect.succeed(Step.Send())
const askAgain: Step = Step.AskAgain()
const answered = (answer: Answer): Decision => Step.Answer({ answer })

/**
 * What preparing the handler needs: the tools' rules and the client, and what
 * the call's record needs; the audit log, telemetry and the confirmation
 * states' key are read as provided.
 */
type Needs =
  | Policy
  | ServerSettings
  | SvcClient
  | CallRecord.Requirements
  | ParamsCheck.ParamsCheck
  | ConfirmationState.ConfirmationState
  | Guard.Guard
  | Names

/** What does not change between calls, read once by `make`; each step of a call reads it. */
interface Prepared {
  readonly policy: PolicyShape
  readonly settings: ServerSettingsShape
  readonly record: CallRecord.CallRecorder
  /** Among several services, reasons name the service's own setting (SVC_STAGING_CONFIRM). */
  readonly variable: (single: string) => string
  readonly states: ConfirmationState.ConfirmationStateShape
  /** SVC_GUARD: optional, in force when its layer is provided and on. */
  readonly guard: Option.Option<Guard.GuardShape>
  /**
   * What the tool's program reads: the default page (learned once from this server's own client;
   * not a layer of its own, so it cannot come from another client), the names of ids (as the
   * client's bundle reads them per caller) and the service's own check (among several services).
   * Given to the program as they are, not provided: a service provided is a step of every call.
   */
  readonly readers: Readers
}

/** A call refused before anything is sent: recorded, then answered. */
const refuse = ({ record }: Prepared, denied: ToolDeniedError, args: unknown) =>
  record.refused(denied, args).pipe(
    Effect.as(failure(denied)),
    Effect.catchTag("AuditError", (error) => Effect.succeed(unrecorded(error))),
    Effect.map(toResult),
  )

const deny = (call: Call, invocation: Invocation, reason: string) =>
  new ToolDeniedError({ tool: call.tool.name, selector: invocation.selector, endpoint: invocation.endpoint, reason })

/** A confirmed call refused for `reason`: recorded, then answered. */
const refuseFor = (prepared: Prepared, call: Call, invocation: Invocation, reason: string) =>
  Effect.map(refuse(prepared, deny(call, invocation, reason), call.args), answered)

/** The shared store (SVC_MCP_STORE) could not record the question or its answer: nothing is sent (fail closed). */
const storeDidNotAnswer = (error: ConfirmationState.ConfirmationUnrecorded) =>
  `the confirmation could not be recorded: the shared store (SVC_MCP_STORE) did not answer (${error.detail}); nothing was sent, try again once it answers`

const SENT_ALREADY =
  "this confirmation was honoured already and its call sent (by this server or another replica), with no outcome recorded: it is not sent again; read the resource to see what it did"

/**
 * SVC_CONFIRM and the guard: where the call goes from here (`Step`). An accept is honoured only
 * with the state sealed for this very call, by this caller, unexpired and
 * unused; any other accept is asked again, and nothing is sent. A decline or
 * a cancel sends nothing, so it is honoured as it comes.
 */
const confirmation = (
  prepared: Prepared,
  call: Call,
  { ctx, server }: Incoming,
  held: Guarded.Held | undefined,
): Effect.Effect<Decision, ProtocolFailure, SvcClient> => {
  if (Either.isLeft(call.invocation)) return sendNow
  const invocation = call.invocation.right
  const pattern = prepared.policy.confirmation(call.tool, invocation.selector)
  // `schema: true` sends nothing: there is nothing to confirm.
  if (invocation.schema || (pattern === undefined && held === undefined)) return sendNow
  return Effect.gen(function* () {
    const context = yield* CallContext.get
    const guarded = held?.window.source
    const answer = Confirm.answerOf(ctx)
    // What asks: SVC_CONFIRM's pattern, else the guard.
    const setting = pattern === undefined ? "SVC_GUARD" : prepared.variable(pattern.variable)
    if (answer === "decline" || answer === "cancel") {
      const reason = `the user ${answer === "decline" ? "declined" : "cancelled"} the confirmation (${setting})`
      yield* Effect.ignore(prepared.record.refused(deny(call, invocation, reason), call.args, "declined"))
      return answered(toResult(failure(new ToolNotConfirmedError({ ...invocation, answer, setting }))))
    }
    // Among several services the router has taken `service` out of the args: the binding names it,
    // so that a question about a call on one service never passes for the same call on another.
    const binding: ConfirmationState.Binding = {
      tool: call.tool.name,
      selector: invocation.selector,
      args: call.args,
      principal: CallContext.bindingPrincipalOf(context),
      ...(Option.isSome(context.service) ? { service: context.service.value } : {}),
    }
    if (answer === "accept") {
      const accepted = yield* accept(prepared, call, invocation, binding, ctx)
      if (accepted._tag !== "AskAgain") return accepted
    }
    if (!Confirm.canAsk(ctx, server.getClientCapabilities())) {
      return yield* refuseFor(
        prepared,
        call,
        invocation,
        pattern === undefined && held !== undefined
          ? Guarded.refusal(held)
          : `${setting} (${pattern?.text}) requires the user's confirmation, and this client can answer neither input_required nor elicitation requests`,
      )
    }
    return yield* ask(prepared, call, invocation, binding, pattern, guarded, setting)
  })
}

/**
 * An accept: honoured once when its state was sealed for this very call and is
 * unused; refused when the call was sent already; else asked again.
 */
const accept = (
  prepared: Prepared,
  call: Call,
  invocation: Invocation,
  binding: ConfirmationState.Binding,
  ctx: ServerContext,
): Effect.Effect<Step> => {
  const askedAgain = (reason: string) =>
    Effect.as(
      Effect.logInfo(
        `${call.tool.name} ${invocation.selector}: an accept without a valid confirmation state (${reason}); asked again, nothing sent`,
      ),
      askAgain,
    )
  const given = Confirm.stateOf(ctx)
  if (given === undefined) return askedAgain("NoState")
  return prepared.states.verify(given, binding).pipe(
    Effect.map((honoured): Step => Step.SendOnce({ sent: honoured.sent })),
    Effect.catchTags({
      ConfirmationUnrecorded: (error) => refuseFor(prepared, call, invocation, storeDidNotAnswer(error)),
      StateRefused: ({ reason }) =>
        reason === "Sent" ? refuseFor(prepared, call, invocation, SENT_ALREADY) : askedAgain(reason),
    }),
  )
}

/** The question, with a state sealed for this call, recorded as asked; nothing is sent. */
const ask = (
  prepared: Prepared,
  call: Call,
  invocation: Invocation,
  binding: ConfirmationState.Binding,
  pattern: Pattern | undefined,
  guarded: string | undefined,
  setting: string,
) =>
  Effect.gen(function* () {
    // The question (which may read the target) and its record in the shared store, side by side: neither waits
    // for the other's round trip. A question that fails leaves a record unanswered, which expires with its state.
    const [revealSecrets, names] = [prepared.settings.revealSecrets, prepared.readers.names]
    const [question, state] = yield* Effect.all(
      [
        Question.message({ invocation, pattern, guarded, revealSecrets, names }).pipe(
          Effect.catchAllDefect(
            () => new ProtocolFailure({ code: -32603, message: "The confirmation could not be prepared" }),
          ),
        ),
        Effect.either(prepared.states.seal(binding)),
      ],
      { concurrency: 2 },
    )
    if (Either.isLeft(state)) return yield* refuseFor(prepared, call, invocation, storeDidNotAnswer(state.left))
    const asker = pattern === undefined ? setting : `${setting} ${pattern.text}`
    yield* Effect.ignore(
      prepared.record.refused(
        deny(call, invocation, `awaiting the user's confirmation (${asker})`),
        call.args,
        "asked",
      ),
    )
    return answered(Confirm.ask(question, state.right))
  })

/** The tool's program, recorded and rendered; an unexpected failure is logged and said in one line. */
const perform = (prepared: Prepared, call: Call) =>
  runWith(call, prepared.settings, prepared.readers).pipe(
    prepared.record.call(call, prepared.readers.check),
    Effect.match({
      onSuccess: (outcome) => success(call.tool, outcome, prepared.settings),
      onFailure: (error) => (error._tag === "AuditError" ? unrecorded(error) : failure(error)),
    }),
    Effect.tap((rendered) => Guarded.noteRead(prepared.guard, rendered.untrusted)),
    Effect.map(toResult),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.as(
            Effect.logError(`${call.tool.name} failed unexpectedly`, cause),
            toResult({
              isError: true,
              text: `${call.tool.name}: an unexpected error occurred in the server; see its log`,
            }),
          ),
    ),
  )

/** Whether SVC_CONFIRM asks before this call: its pattern names it (the guard's own questions aside). */
const confirms = ({ policy }: Prepared, call: Call) =>
  Either.isRight(call.invocation) && policy.confirmation(call.tool, call.invocation.right.selector) !== undefined

/**
 * One call: resolved once, then the policy, the confirmation (of a call that would be sent: checked,
 * then asked), the tool's program, in the call's context; unheld and unconfirmed, straight to its program.
 */
const handle = (prepared: Prepared, incoming: Incoming) =>
  Effect.suspend(() => {
    const authorized = prepared.policy.authorize(incoming.name, incoming.args)
    if (Either.isLeft(authorized)) {
      const refusal = authorized.left
      return refusal._tag === "UnknownToolError"
        ? Effect.fail(new ProtocolFailure({ code: INVALID_PARAMS, message: refusal.message }))
        : refuse(prepared, refusal, incoming.args)
    }
    const call = resolveCall(authorized.right, incoming.args)
    return Effect.flatMap(Guarded.inWindow(prepared.guard, call), (inWindow) => {
      if (Option.isNone(inWindow) && !confirms(prepared, call)) return perform(prepared, call)
      // Every change in the window is recorded as guarded; only a held one is asked (or refused).
      const guarded = Option.map(inWindow, (held) => held.window.source)
      const held = Option.getOrUndefined(Option.filter(inWindow, (h) => h.decision.held))
      return Effect.gen(function* () {
        if (!(yield* wouldSend(call, prepared.readers.check))) return yield* perform(prepared, call)
        const decision = yield* confirmation(prepared, call, incoming, held)
        switch (decision._tag) {
          case "Send":
            return yield* perform(prepared, call)
          // An accept honoured: once the call is out, whatever came of it, a retry of the answer is not sent again.
          case "SendOnce":
            return yield* Effect.ensuring(perform(prepared, call), decision.sent)
          case "Answer":
            return decision.answer
        }
      }).pipe(CallContext.locallyWith((context) => ({ ...context, guarded })))
    })
  }).pipe(withinCallContext(incoming))

/** Prepares the handler of every call, with what does not change between calls. */
export const make: Effect.Effect<Handler, never, Needs> = Effect.gen(function* () {
  const prepared: Prepared = {
    policy: yield* Policy,
    settings: yield* ServerSettings,
    record: yield* CallRecord.make,
    variable: (yield* Naming).variable,
    states: yield* ConfirmationState.ConfirmationState,
    guard: yield* Guard.Guard,
    readers: { pages: yield* Pages.make, names: yield* Names, check: yield* ParamsCheck.ParamsCheck },
  }
  return (incoming) => handle(prepared, incoming)
})
