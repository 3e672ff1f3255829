/**
 * One `tools/call`, as one Effect. The call is resolved once (the tool, its
 * decoded arguments, the endpoint), and that value flows one way: the policy,
 * the user's confirmation, the tool's program (which calls the service), the
 * call's record (audit, telemetry), and back through rendering. The SDK runs
 * this Effect once per call (Server.ts); nothing here returns to it before the end.
 */

import type {
  CallToolResult,
  InputRequiredResult,
  LoggingLevel,
  Server,
  ServerContext,
} from "@modelcontextprotocol/server"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"
import * as Question from "../Confirmation/Question.js"
import * as ConfirmationState from "../Confirmation/State.js"
import * as CallRecord from "../Operations/CallRecord.js"
import * as TraceContext from "../Operations/TraceContext.js"
import { Naming } from "../Settings/Services.js"
import type { SvcClient } from "../SvcClient.js"
import { type Call, resolveCall, run } from "../Tools/Invoke.js"
import * as Pages from "../Tools/Pages.js"
import { Policy } from "../Tools/Policy.js"
import type { ProgressShape } from "../Tools/Progress.js"
import { failure, type Rendered, success, unrecorded } from "../Tools/Render.js"
import { ServerSettings } from "../Tools/Settings.js"
import { ToolDeniedError, ToolNotConfirmedError } from "../Tools/ToolError.js"
import { callerOf } from "../Untrusted/Caller.js"
import * as Guard from "../Untrusted/Guard.js"
import * as Confirm from "./Confirm.js"
import * as McpLogging from "./Logging.js"

/** JSON-RPC "invalid params". */
export const INVALID_PARAMS = -32602

/** A call the SDK answers with a JSON-RPC error instead of a result. */
export class ProtocolFailure extends Data.TaggedError("ProtocolFailure")<{
  readonly code: number
  readonly message: string
}> {}

export type Answer = CallToolResult | InputRequiredResult

/** One `tools/call` as it came, with what the SDK knows of its connection. */
export interface Incoming {
  readonly name: string
  readonly args: unknown
  readonly meta: { readonly progressToken?: string | number | undefined; readonly [key: string]: unknown } | undefined
  readonly ctx: ServerContext
  /** The SDK server the call came to: its protocol revision and the client's capabilities. */
  readonly server: Server
  /** The connection's `logging/setLevel` (the earlier revisions). */
  readonly sessionLevel: () => LoggingLevel
  /**
   * What the call's request brought (its caller, its trace; `CallContext.empty`
   * over stdio), and among several services the service it is for.
   */
  readonly request: CallContext.CallContext
}

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

const isModern = (version: string | undefined) => version !== undefined && version >= "2026-07-28"

/** Progress as `notifications/progress` to the client that asked with this token. */
const progressTo = (ctx: ServerContext, progressToken: string | number): ProgressShape => ({
  report: (progress, message) =>
    Effect.promise(() =>
      ctx.mcpReq
        .notify({ method: "notifications/progress", params: { progressToken, progress, message } })
        .catch(() => undefined),
    ),
})

/**
 * The call's context, set once here: what its request brought, and the
 * client's own log level, trace and progress token from the call itself.
 */
const contextOf = ({ ctx, server, sessionLevel, meta, request }: Incoming): CallContext.CallContext => {
  const level = isModern(server.getNegotiatedProtocolVersion()) ? McpLogging.requested(ctx) : sessionLevel()
  const progressToken = meta?.progressToken
  return {
    ...request,
    trace: TraceContext.fromMeta(meta) ?? {},
    log: level === undefined ? Option.none() : Option.some(McpLogging.forCall(level, ctx)),
    progress: progressToken === undefined ? Option.none() : Option.some(progressTo(ctx, progressToken)),
  }
}

/** The call as the client's own: run in its context, at debug level when its client asked for debug. */
const located =
  (incoming: Incoming) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const context = contextOf(incoming)
    const debug = Option.isSome(context.log) && context.log.value.wantsDebug
    return self.pipe(
      debug ? Effect.locally(FiberRef.currentMinimumLogLevel, LogLevel.Debug) : (s) => s,
      CallContext.within(context),
    )
  }

/** An accept honoured: the call goes on, and `sent` records that it went out. */
class Honoured {
  constructor(readonly sent: Effect.Effect<void>) {}
}

/**
 * What preparing the handler needs: the tools' rules and the client, and what
 * the call's record needs; the audit log, telemetry and the confirmation
 * states' key are read as provided.
 */
type Needs = Policy | ServerSettings | SvcClient | CallRecord.Requirements

/** Prepares the handler of every call, with what does not change between calls. */
export const make: Effect.Effect<Handler, never, Needs> = Effect.gen(function* () {
  const policy = yield* Policy
  const settings = yield* ServerSettings
  const record = yield* CallRecord.make
  // Among several services, reasons name the service's own setting (SVC_STAGING_CONFIRM).
  const { variable } = yield* Naming
  // Learned once from this server's own client; not a layer of its own, so it cannot come from another client.
  const pages = yield* Pages.make
  const states = yield* ConfirmationState.ConfirmationState
  // SVC_GUARD: optional, in force when its layer is provided and on.
  const guard = yield* Guard.inForce

  /** A call refused before anything is sent: recorded, then answered. */
  const refuse = (denied: ToolDeniedError, args: unknown) =>
    record.refused(denied, args).pipe(
      Effect.as(failure(denied)),
      Effect.catchTag("AuditError", (error) => Effect.succeed(unrecorded(error))),
      Effect.map(toResult),
    )

  /**
   * SVC_CONFIRM: the answer that stops the call here (refused, declined, or the
   * question itself), or undefined when it goes on. An accept is honoured only
   * with the state sealed for this very call, by this caller, unexpired and
   * unused; any other accept is asked again, and nothing is sent. A decline or
   * a cancel sends nothing, so it is honoured as it comes.
   */
  const confirmation = (call: Call, { ctx, server }: Incoming) =>
    Effect.gen(function* () {
      if (Either.isLeft(call.invocation)) return undefined
      const invocation = call.invocation.right
      const pattern = policy.confirmation(call.tool, invocation.selector)
      const guarded = Option.getOrUndefined((yield* CallContext.get).guarded)
      if (pattern === undefined && guarded === undefined) return undefined
      const answer = Confirm.answerOf(ctx)
      // What asks: SVC_CONFIRM's pattern, else the guard.
      const setting = pattern === undefined ? "SVC_GUARD" : variable("SVC_CONFIRM")
      const asker = pattern === undefined ? setting : `${setting} ${pattern.text}`
      const deny = (reason: string) =>
        new ToolDeniedError({ tool: call.tool.name, selector: invocation.selector, reason })
      if (answer === "decline" || answer === "cancel") {
        const reason = `the user ${answer === "decline" ? "declined" : "cancelled"} the confirmation (${setting})`
        yield* Effect.ignore(record.refused(deny(reason), call.args, "declined"))
        return toResult(failure(new ToolNotConfirmedError({ ...invocation, answer, setting })))
      }
      const context = yield* CallContext.get
      // Among several services the router has taken `service` out of the args: the binding names it,
      // so that a question about a call on one service never passes for the same call on another.
      const binding: ConfirmationState.Binding = {
        tool: call.tool.name,
        selector: invocation.selector,
        args: call.args,
        principal: CallContext.bindingPrincipalOf(context),
        ...(Option.isSome(context.service) ? { service: context.service.value } : {}),
      }
      // The shared store (SVC_MCP_STORE) could not record the question or its answer: nothing is sent (fail closed).
      const unrecorded = (error: ConfirmationState.ConfirmationUnrecorded) =>
        refuse(
          deny(
            `the confirmation could not be recorded: the shared store (SVC_MCP_STORE) did not answer (${error.detail}); nothing was sent, try again once it answers`,
          ),
          call.args,
        )
      if (answer === "accept") {
        const given = Confirm.stateOf(ctx)
        const verified =
          given === undefined
            ? "NoState"
            : yield* states.verify(given, binding).pipe(
                Effect.catchTag("StateRefused", (refused) => Effect.succeed(refused.reason)),
                Effect.catchTag("ConfirmationUnrecorded", (error) => Effect.succeed(error)),
              )
        if (verified instanceof ConfirmationState.ConfirmationUnrecorded) return yield* unrecorded(verified)
        if (typeof verified === "object") return new Honoured(verified.sent)
        if (verified === "Sent") {
          return yield* refuse(
            deny(
              "this confirmation was honoured already and its call sent (by this server or another replica), with no outcome recorded: it is not sent again; read the resource to see what it did",
            ),
            call.args,
          )
        }
        yield* Effect.logInfo(
          `${call.tool.name} ${invocation.selector}: an accept without a valid confirmation state (${verified}); asked again, nothing sent`,
        )
      }
      if (!Confirm.canAsk(ctx, server.getClientCapabilities())) {
        return yield* refuse(
          deny(
            pattern === undefined
              ? `this call follows reading ${guarded}, which may carry instructions, so SVC_GUARD requires the user's confirmation, and this client can answer neither input_required nor elicitation requests. To go on, the user makes this change themselves, or the operator sets SVC_GUARD=off`
              : `${setting} (${pattern.text}) requires the user's confirmation, and this client can answer neither input_required nor elicitation requests`,
          ),
          call.args,
        )
      }
      const question = yield* Question.message({
        invocation,
        pattern,
        guarded,
        revealSecrets: settings.revealSecrets,
      }).pipe(
        Effect.catchAllDefect(
          () => new ProtocolFailure({ code: -32603, message: "The confirmation could not be prepared" }),
        ),
      )
      const state = yield* Effect.either(states.seal(binding))
      if (Either.isLeft(state)) return yield* unrecorded(state.left)
      yield* Effect.ignore(record.refused(deny(`awaiting the user's confirmation (${asker})`), call.args, "asked"))
      return Confirm.ask(question, state.right)
    })

  /** The tool's program, recorded and rendered; an unexpected failure is logged and said in one line. */
  const perform = (call: Call) =>
    run(call, settings.waitTimeoutMs).pipe(
      record.call(call),
      Effect.match({
        onSuccess: (outcome) => success(call.tool, outcome, settings),
        onFailure: (error) => (error._tag === "AuditError" ? unrecorded(error) : failure(error)),
      }),
      Effect.tap((rendered) => noteRead(rendered.untrusted)),
      Effect.map(toResult),
      Effect.provideService(Pages.DefaultPage, pages),
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

  /** SVC_GUARD: the caller received untrusted text, so its changes in the window are confirmed. */
  const noteRead = (read: string | undefined) =>
    Option.isNone(guard) || read === undefined
      ? Effect.void
      : Effect.flatMap(callerOf, (caller) => guard.value.store.mark(caller, read, guard.value.windowMs))

  /** SVC_GUARD: what the caller read within its window, when this call changes something. */
  const guardOf = (call: Call) =>
    Option.isNone(guard) || call.tool.group === "read"
      ? Effect.succeed(Option.none<string>())
      : Effect.flatMap(callerOf, guard.value.store.recent)

  return (incoming) =>
    Effect.gen(function* () {
      const authorized = policy.authorize(incoming.name, incoming.args)
      if (Either.isLeft(authorized)) {
        const refusal = authorized.left
        if (refusal._tag === "UnknownToolError") {
          return yield* new ProtocolFailure({ code: INVALID_PARAMS, message: refusal.message })
        }
        return yield* refuse(refusal, incoming.args)
      }
      const call = resolveCall(authorized.right, incoming.args)
      const guarded = yield* guardOf(call)
      return yield* Effect.gen(function* () {
        const stopped = yield* confirmation(call, incoming)
        if (stopped === undefined) return yield* perform(call)
        // An accept honoured: once the call is out, whatever came of it, a retry of the answer is not sent again.
        if (stopped instanceof Honoured) return yield* Effect.ensuring(perform(call), stopped.sent)
        return stopped
      }).pipe(CallContext.locallyWith((context) => ({ ...context, guarded })))
    }).pipe(located(incoming))
})
