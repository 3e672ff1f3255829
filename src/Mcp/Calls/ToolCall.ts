/**
 * One `tools/call`, as one Effect. The call is resolved once (the tool, its
 * decoded arguments, the endpoint), and that value flows one way: the policy,
 * the user's confirmation, the tool's program (which calls the service), the
 * call's record (audit, telemetry), and back through rendering. The SDK runs
 * this Effect once per call (Server.ts); nothing here returns to it before the end.
 */

import { type CallToolResult, type InputRequiredResult, isInputRequiredResult } from "@modelcontextprotocol/server"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Asked from "../../Call/Asked.js"
import * as CallContext from "../../Call/Context.js"
import * as Flow from "../../Confirmation/Flow.js"
import { SecretPages } from "../../Confirmation/SecretPages.js"
import * as ConfirmationState from "../../Confirmation/State.js"
import * as WhyAsked from "../../Confirmation/WhyAsked.js"
import * as CallRecord from "../../Operations/CallRecord.js"
import { Naming } from "../../Settings/Naming.js"
import { ServerSettings } from "../../Settings/ToolSettings.js"
import * as Once from "../../Shared/Once.js"
import type { PatternReader } from "../../Shared/PatternReader.js"
import type { SvcClient } from "../../SvcClient.js"
import { ToolNotConfirmedError } from "../../Tools/Catalog/ToolError.js"
import { type Call, type Invocation, resolveCall, runWith, type ToolSuccess, wouldSend } from "../../Tools/Invoke.js"
import * as Pages from "../../Tools/Lists/Pages.js"
import { Names } from "../../Tools/Names/Names.js"
import * as ParamsCheck from "../../Tools/Params/ParamsCheck.js"
import * as AtCall from "../../Tools/Policy/AtCall.js"
import { Policy } from "../../Tools/Policy/Policy.js"
import * as Targets from "../../Tools/Policy/Targets.js"
import { failure, success, unrecorded } from "../../Tools/Render.js"
import * as Guard from "../../Untrusted/Guard.js"
import * as Confirm from "./Confirm.js"
import * as Guarded from "./Guarded.js"
import * as Handover from "./Handover.js"
import { INVALID_PARAMS, type Incoming, withinCallContext } from "./Incoming.js"
import { finish, notSent, type Prepared, recordRefusal, toResult } from "./Prepared.js"

/** A call the SDK answers with a JSON-RPC error instead of a result. */
export class ProtocolFailure extends Data.TaggedError("ProtocolFailure")<{
  readonly code: number
  readonly message: string
}> {}

export type Answer = CallToolResult | InputRequiredResult

/**
 * The requirements of a call's Effect: the client, and the tools' pattern reader, both in the
 * context the server's call fibers run in (no step of a call provides them).
 */
export type Requirements = SvcClient | PatternReader

/** The Effect of one call. */
export type Handler = (incoming: Incoming) => Effect.Effect<Answer, ProtocolFailure, Requirements>

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
  | SecretPages

/** The confirmation's request for this call, from what the client sent with it. */
const requestOf = (
  call: Call,
  invocation: Invocation,
  asked: Asked.Asked | undefined,
  { ctx, server }: Incoming,
): Flow.Request => ({
  tool: call.tool.name,
  args: call.args,
  invocation,
  asked,
  reply: Confirm.answerOf(ctx),
  echoedState: Confirm.stateOf(ctx),
  canAsk: Confirm.canAsk(ctx, server.getClientCapabilities()),
})

/** The confirmation's verdict carried out: the call sent, or answered in MCP's terms, as recorded. */
const carryOut = (prepared: Prepared, call: Call, invocation: Invocation, verdict: Flow.Verdict, send: Send) => {
  switch (verdict._tag) {
    case "Send":
      return send(prepared, call)
    // An accept honoured: once the call is out, whatever came of it, a retry of the answer is not sent again.
    case "SendOnce":
      return Effect.ensuring(send(prepared, call), verdict.markSent)
    case "Refuse":
      return recordRefusal(prepared, notSent(call, invocation, verdict.reason), call.args)
    case "Decline": {
      const { answer, setting } = verdict
      return Effect.as(
        Effect.ignore(prepared.record.refused(notSent(call, invocation, verdict.recorded), call.args, "declined")),
        toResult(failure(new ToolNotConfirmedError({ ...invocation, answer, setting }))),
      )
    }
    case "Ask":
      return Effect.as(
        Effect.ignore(prepared.record.refused(notSent(call, invocation, verdict.recorded), call.args, "asked")),
        Confirm.ask(verdict.question, verdict.state),
      )
  }
}

/**
 * SVC_CONFIRM and the guard on a call that would be sent: why it is asked resolved once (Confirmation/WhyAsked.ts)
 * and carried in its context, where its question, its record and telemetry read it; then asked,
 * honoured or refused (Confirmation/Flow.ts).
 */
const confirmed = (
  prepared: Prepared,
  call: Call,
  incoming: Incoming,
  hold: WhyAsked.GuardHold | undefined,
  touches: Touches,
  send: Send,
) => {
  if (Either.isLeft(call.invocation)) return send(prepared, call)
  const invocation = call.invocation.right
  const patterns = prepared.policy.confirming(call.tool, invocation.selector)
  return Effect.flatMap(WhyAsked.resolve(prepared.confirmation, invocation, patterns, hold, touches), (asked) =>
    Flow.decide(prepared.confirmation, requestOf(call, invocation, asked, incoming)).pipe(
      Effect.catchTag("QuestionUnprepared", () =>
        Effect.fail(new ProtocolFailure({ code: -32603, message: "The confirmation could not be prepared" })),
      ),
      Effect.flatMap(
        (verdict): Effect.Effect<Answer, ProtocolFailure, Requirements> =>
          carryOut(prepared, call, invocation, verdict, send),
      ),
      CallContext.locallyWith((context) => ({ ...context, asked: Option.fromNullable(asked) })),
    ),
  )
}

/** What a call touches (Tools/Policy/Targets.ts): read once for the call, when a pattern with `@` first needs it. */
type Touches = Effect.Effect<Targets.Resolved, never, SvcClient | PatternReader>

const touchesOf = (invocation: Invocation): Touches =>
  Once.remembered(Effect.suspend(() => Targets.resolve(invocation)))

/**
 * SVC_DENY and SVC_ALLOW patterns with `@` (Tools/Policy/AtCall.ts): decided once what the call
 * touches is read; a call refused is recorded as the policy's refusals are.
 */
const admitted = (
  prepared: Prepared,
  call: Call,
  touches: Touches,
  then: Effect.Effect<Answer, ProtocolFailure, Requirements>,
) => {
  if (Either.isLeft(call.invocation) || call.invocation.right.schema) return then
  const invocation = call.invocation.right
  const atCall = prepared.policy.atCall(call.tool, invocation.selector)
  if (atCall.deny.length === 0 && atCall.allowOnly === undefined) return then
  return Effect.flatMap(AtCall.refusal(atCall, touches, prepared.confirmation.variable), (reason) =>
    reason === undefined ? then : recordRefusal(prepared, notSent(call, invocation, reason), call.args),
  )
}

const NONE: Targets.Resolved = { targets: [], unread: [] }

/** What sends a call that has passed its checks: its program, or (TakeIn.ts) a form's question first. */
type Send = (prepared: Prepared, call: Call) => Effect.Effect<Answer, ProtocolFailure, Requirements>

/** The tool's program (`sent`: with what its record lacks, TakeIn.ts), recorded and rendered; a failure said in a line. */
const perform = (prepared: Prepared, call: Call, take?: (outcome: ToolSuccess) => ToolSuccess, sent: Call = call) => {
  const program = runWith(sent, prepared.settings, prepared.readers)
  // A secret handed to the person leaves the outcome before it is recorded or rendered.
  return (take === undefined ? program : Effect.map(program, take)).pipe(
    prepared.record.call(call, prepared.readers.check),
    Effect.matchEffect({
      onSuccess: (outcome) => finish(prepared, success(call.tool, outcome, prepared.settings)),
      onFailure: (error) => finish(prepared, error._tag === "AuditError" ? unrecorded(error) : failure(error)),
    }),
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
}

/**
 * Whether SVC_CONFIRM may ask before this call: a pattern names it (the guard's own questions
 * aside); one with `@` asks only if the call touches what it names, which `confirmed` reads.
 */
const confirms = ({ policy }: Prepared, call: Call) =>
  Either.isRight(call.invocation) && policy.confirming(call.tool, call.invocation.right.selector).length > 0

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
        : recordRefusal(prepared, refusal, incoming.args)
    }
    const call = resolveCall(authorized.right, incoming.args, prepared.settings)
    // What the service would refuse this person is refused here, before a question is asked of it.
    const beyond = Either.isRight(call.invocation)
      ? incoming.beyond?.(call.tool.name, call.invocation.right.selector)
      : undefined
    if (beyond !== undefined && Either.isRight(call.invocation)) {
      return recordRefusal(prepared, notSent(call, call.invocation.right, beyond), incoming.args)
    }
    const invocation = Either.getOrUndefined(call.invocation)
    const makesSecret =
      invocation !== undefined &&
      !invocation.schema &&
      !prepared.settings.revealSecrets &&
      Handover.secretOf(invocation)
    if (makesSecret) return handOver(prepared, call, invocation, incoming)
    return invocation !== undefined && !invocation.schema && (invocation.fromPerson ?? []).length > 0
      ? takeIn(prepared, call, invocation, incoming)
      : unheld(prepared, call, incoming)
  }).pipe(withinCallContext(incoming))

const performed: Send = (prepared, call) => perform(prepared, call)

/** The guard and SVC_CONFIRM on a resolved call, then its program (or what `send` makes of it). */
const unheld = (prepared: Prepared, call: Call, incoming: Incoming, send: Send = performed) => {
  const touches = Either.isRight(call.invocation) ? touchesOf(call.invocation.right) : Effect.succeed(NONE)
  // A call no guard watches and no pattern confirms goes straight to its program, with no step to decide so.
  const watched = Guarded.watches(prepared.guard, call)
  if (!watched && !confirms(prepared, call)) return admitted(prepared, call, touches, send(prepared, call))
  const checked = Effect.flatMap(Guarded.afterUntrustedRead(prepared.guard, call, touches), (readBefore) => {
    if (Option.isNone(readBefore) && !confirms(prepared, call)) return send(prepared, call)
    // Every change after an untrusted read is recorded as guarded; only one the guard holds is asked (or refused).
    const guarded = Option.map(readBefore, (read) => read.window.source)
    const hold = Option.getOrUndefined(Option.filter(readBefore, (read) => read.decision.held))
    return Effect.flatMap(wouldSend(call, prepared.readers.check), (sends) =>
      sends ? confirmed(prepared, call, incoming, hold, touches, send) : perform(prepared, call),
    ).pipe(CallContext.locallyWith((context) => ({ ...context, guarded })))
  })
  return admitted(prepared, call, touches, checked)
}

/**
 * A call that makes a secret, where the client opens pages (and with sign-in they sign in): the person is
 * asked to open its page; accepted, it is sent and its secret goes to the page (Handover.ts).
 */
const handOver = (prepared: Prepared, call: Call, invocation: Invocation, incoming: Incoming) =>
  Effect.flatMap(CallContext.get, (context): Effect.Effect<Answer, ProtocolFailure, Requirements> => {
    const { pages } = prepared
    if (!Handover.applies(incoming, invocation, context, pages)) return withheld(prepared, call, incoming)
    const binding = Handover.bindingOf(context)
    const step = Handover.stepOf(pages, incoming, binding, Date.now())
    switch (step._tag) {
      case "Ask":
        return Effect.zipRight(
          Effect.ignore(
            prepared.record.refused(notSent(call, invocation, "asked to open a secret's page"), call.args, "asked"),
          ),
          // A page that cannot be served (no loopback port) leaves the secret withheld, as before.
          Effect.tryPromise(() =>
            Handover.ask(pages, invocation, binding, Date.now(), Handover.ownerOf(context), incoming),
          ).pipe(Effect.catchAll(() => withheld(prepared, call, incoming))),
        )
      case "Stale":
        return Effect.succeed(Handover.stale)
      case "Declined":
        pages.store.drop(step.id, binding)
        return Effect.as(
          Effect.ignore(
            prepared.record.refused(
              notSent(call, invocation, "the person declined the secret's page"),
              call.args,
              "declined",
            ),
          ),
          Handover.declined(invocation),
        )
      case "Send": {
        return Effect.map(
          perform(prepared, call, Handover.take(pages, invocation, step.id, binding, Date.now)).pipe(
            Handover.handing(pages, incoming, invocation, step.id),
          ),
          (result) => Handover.told(result as CallToolResult, step.until, context),
        )
      }
    }
  })

/** A call whose secret params the person gives on a form (TakeIn.ts, loaded with the first such call). */
const takeIn = (prepared: Prepared, call: Call, invocation: Invocation, incoming: Incoming) =>
  Effect.flatMap(
    Effect.promise(() => import("./TakeIn.js")),
    (TakeIn) =>
      TakeIn.run<ProtocolFailure, Requirements>(prepared.pages, incoming, invocation, {
        checked: (send) => unheld(prepared, call, incoming, () => send),
        perform: (take, values) => perform(prepared, call, take, TakeIn.sent(call, invocation, values)),
        unsent: (reason, outcome, answer) =>
          Effect.as(
            Effect.ignore(prepared.record.refused(notSent(call, invocation, reason), call.args, outcome)),
            answer,
          ),
      }),
  )

/** A call that makes a secret the answer withholds: as before, its answer says how the person can make it themselves. */
const withheld = (prepared: Prepared, call: Call, incoming: Incoming) =>
  Effect.map(unheld(prepared, call, incoming), (answer) => {
    const note = Either.isRight(call.invocation) ? Handover.themselves(call.invocation.right) : undefined
    if (note === undefined || isInputRequiredResult(answer)) return answer
    return Handover.appended(answer as CallToolResult, note)
  })

/** Prepares the handler of every call, with what does not change between calls. */
export const make: Effect.Effect<Handler, never, Needs> = Effect.gen(function* () {
  const settings = yield* ServerSettings
  const names = yield* Names
  const prepared: Prepared = {
    policy: yield* Policy,
    settings,
    record: yield* CallRecord.make,
    guard: yield* Guard.Guard,
    readers: { pages: yield* Pages.make, names, check: yield* ParamsCheck.ParamsCheck },
    pages: yield* SecretPages,
    confirmation: {
      states: yield* ConfirmationState.ConfirmationState,
      revealSecrets: settings.revealSecrets,
      names,
      variable: (yield* Naming).variable,
    },
  }
  return (incoming) => handle(prepared, incoming)
})
