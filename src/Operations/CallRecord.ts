/**
 * The record operators keep of each tool call: its audit lines (SVC_AUDIT_LOG)
 * and its span and metrics (Telemetry). The adapter wraps every resolved call
 * with `call`, and reports calls refused before running with `refused`; with
 * neither feature configured both cost nothing. A change is audited ahead:
 * its intent is on the device before its program runs (an intent that cannot
 * be written fails the call, unsent), and its outcome is written after.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Auth, type AuthShape } from "../Auth.js"
import * as Asked from "../Call/Asked.js"
import * as CallContext from "../Call/Context.js"
import { usernameOf } from "../Mint/Service.js"
import { isObject } from "../Shared/JsonShape.js"
import { scrub, scrubValue } from "../Shared/Secrets.js"
import {
  kindOf,
  statusOf,
  type ToolCallError,
  type ToolDeniedError,
  type ToolInputError,
  type ToolParamsError,
} from "../Tools/Catalog/ToolError.js"
import type { Call, Invocation, ToolSuccess } from "../Tools/Invoke.js"
import type { ParamsCheckShape } from "../Tools/Params/ParamsCheck.js"
import { Audit, type AuditEntry, type AuditError, type AuditLog } from "./Audit.js"
import { digestOf, recorded } from "./AuditParams.js"
import { targetOf } from "./AuditTarget.js"
import { auditCaller, whoOf } from "./AuditWho.js"
import * as Telemetry from "./Telemetry.js"

type CallError = ToolInputError | ToolParamsError | ToolCallError | ToolDeniedError

export interface CallRecorder {
  /**
   * Around one resolved call's program: traced and counted; audited when it is a change that is
   * sent (its intent, then its outcome), or one refused before sending (one line that says so:
   * arguments that do not decode, params `check` refuses). A `schema: true` call sends nothing
   * and is no change: it has no line.
   */
  readonly call: (
    call: Call,
    check: ParamsCheckShape,
  ) => <R>(self: Effect.Effect<ToolSuccess, CallError, R>) => Effect.Effect<ToolSuccess, CallError | AuditError, R>
  /**
   * A call refused before it ran: by the policy (`refused`), by the user
   * asked to confirm it (`declined`), or held until the user answers the
   * question it was asked (`asked`). `args` are as the client sent them.
   */
  readonly refused: (
    error: ToolDeniedError,
    args: unknown,
    outcome?: "refused" | "declined" | "asked",
  ) => Effect.Effect<void, AuditError>
}

/** The ids of the Updates an execution answered: one, or one per started item of a batch. */
const updatesOf = (data: unknown): string | ReadonlyArray<string> | undefined => {
  const idOf = (value: unknown) => {
    const oid = (value as { _id?: { $oid?: unknown } } | null)?._id?.$oid
    return typeof oid === "string" ? oid : undefined
  }
  const single = idOf(data)
  if (single !== undefined) return single
  if (!Array.isArray(data)) return undefined
  const ids = data.flatMap((item) => {
    const id = idOf((item as { data?: unknown } | null)?.data)
    return id === undefined ? [] : [id]
  })
  return ids.length === 0 ? undefined : ids
}

const describe = (
  exit: Exit.Exit<ToolSuccess, CallError>,
): { readonly outcome: "ok" | "error" | "cancelled"; readonly kind?: string } => {
  if (Exit.isSuccess(exit)) return { outcome: "ok" }
  if (Cause.isInterruptedOnly(exit.cause)) return { outcome: "cancelled" }
  const error = Cause.failureOption(exit.cause)
  if (Option.isNone(error)) return { outcome: "error", kind: "internal" }
  return { outcome: "error", kind: kindOf(error.value) }
}

/**
 * What the record depends on: the credentials in force (whose secrets it scrubs); the audit log
 * and telemetry when provided. Why a call was asked it reads from the call's context (Call/Asked.ts).
 */
export type Requirements = Auth

const Crypto = () => process.getBuiltinModule("node:crypto")

/** What the records are made with, gathered once; its methods are the steps of a record. */
class Recorder {
  readonly traced: boolean
  readonly telemetry: Telemetry.Hooks
  // Made by the first digest: a start loads no node:crypto (test/e2e/StartModules.e2e.test.ts).
  private madeKey: Uint8Array | undefined

  constructor(
    readonly audit: Option.Option<AuditLog>,
    hooks: Option.Option<Telemetry.Hooks>,
    readonly secrets: AuthShape["secrets"],
  ) {
    this.traced = Option.isSome(hooks)
    this.telemetry = Option.getOrElse(hooks, () => Telemetry.off)
  }

  /**
   * What every line says: when, who, which tool, what the guard says was read, and, for a call
   * that is asked, why (the call's one value of it): on the line that says it is asked, the one
   * that says it was declined, and the intent and outcome of one accepted.
   */
  base(tool: string, selector: string | undefined) {
    return Effect.flatMap(CallContext.get, (context) =>
      // What the guard says was read names what the earlier call's params named: scrubbed as they are.
      Effect.map(
        Effect.all([
          Option.isSome(context.guarded) ? this.scrubbed(context.guarded.value) : Effect.succeed(undefined),
          Option.isSome(context.asked) ? this.scrubbed(Asked.recorded(context.asked.value)) : Effect.succeed(undefined),
        ]),
        ([read, confirmation]) => ({
          time: new Date().toISOString(),
          ...(Option.isSome(context.service) ? { service: context.service.value } : {}),
          caller: auditCaller(context),
          who: whoOf(context),
          // A signed-in person's key minted for them: the service user the service names in its own history.
          ...(context.credentials._tag === "Minted" ? { acting: usernameOf(context.credentials.person) } : {}),
          tool,
          ...(selector === undefined ? {} : { selector }),
          ...(read === undefined ? {} : { guarded: read }),
          ...(confirmation === undefined ? {} : { confirmation }),
          ...(context.secret === undefined ? {} : { secret: { ...context.secret, person: whoOf(context) } }),
        }),
      ),
    )
  }

  /** The params as recorded: each value that may be a secret as its digest (AuditParams.ts), known secrets scrubbed. */
  paramsOf(body: Readonly<Record<string, unknown>>, endpoint?: string) {
    return Effect.map(this.secrets, (hidden) => scrubValue(recorded(endpoint, body, this.digest), hidden))
  }

  /**
   * A secret value's digest, keyed with SVC_AUDIT_KEY (else with a key this process made, which
   * it never writes): two lines can be compared, and no value can be guessed from its digest.
   */
  readonly digest = (value: string): string =>
    `[secret hmac-sha256:${Crypto().createHmac("sha256", this.digestKey()).update(value).digest("base64url").slice(0, 22)}]`

  private digestKey(): Uint8Array {
    this.madeKey ??= Option.match(
      Option.flatMap(this.audit, (log) => log.digestKey),
      {
        onNone: () => Crypto().randomBytes(32),
        onSome: (key) => Redacted.value(key),
      },
    )
    return this.madeKey
  }

  /** The target and a reason may hold what the client sent: a known secret in them is scrubbed as in the params. */
  scrubbed(text: string) {
    return Effect.map(this.secrets, (hidden) => scrub(text, hidden))
  }

  /** The line of a call's outcome. */
  line(
    { tool, selector }: Call,
    resolved: Invocation | undefined,
    target: string | undefined,
    started: number,
    exit: Exit.Exit<ToolSuccess, CallError>,
    unsent = false,
  ): Effect.Effect<AuditEntry> {
    const recorder = this
    return Effect.gen(function* () {
      const described = describe(exit)
      const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
      // Refused before sending: one line says so, and why.
      const outcome = unsent && described.outcome === "error" ? "refused" : described.outcome
      const { kind } = described
      const reason = unsent && Option.isSome(error) ? yield* recorder.scrubbed(error.value.message) : undefined
      const status = Option.isSome(error) ? statusOf(error.value) : undefined
      const update = Exit.isSuccess(exit) && tool.group === "execute" ? updatesOf(exit.value.data) : undefined
      const endpoint = resolved?.endpoint
      const entry: AuditEntry = {
        ...(yield* recorder.base(tool.name, selector)),
        ...(endpoint === undefined ? {} : { endpoint }),
        ...(target === undefined ? {} : { target: yield* recorder.scrubbed(target) }),
        ...(resolved === undefined ? {} : { params: yield* recorder.paramsOf(resolved.body, resolved.endpoint) }),
        outcome,
        ...(unsent ? { sent: false as const } : {}),
        ...(kind === undefined ? {} : { kind }),
        ...(reason === undefined ? {} : { reason }),
        ...(status === undefined ? {} : { status }),
        ...(update === undefined ? {} : { update }),
        durationMs: Math.round(performance.now() - started),
      }
      return entry
    })
  }

  /** The intent is written whole, or the call is not made: a cancel waits for it, then stops the program. */
  intended<R>(
    log: AuditLog,
    program: Effect.Effect<ToolSuccess, CallError, R>,
    call: Call,
    resolved: Invocation,
    target: string | undefined,
  ): Effect.Effect<ToolSuccess, CallError | AuditError, R> {
    const recorder = this
    const { tool, selector } = call
    const started = performance.now()
    return Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const params = yield* recorder.paramsOf(resolved.body, resolved.endpoint)
        // The confirmation the change went through, as its context carries it, after what it is.
        const { confirmation, ...base } = yield* recorder.base(tool.name, selector)
        const intent = yield* log.intent({
          ...base,
          endpoint: resolved.endpoint,
          ...(target === undefined ? {} : { target: yield* recorder.scrubbed(target) }),
          params,
          paramsDigest: digestOf(log, resolved.body, params),
          ...(confirmation === undefined ? {} : { confirmation }),
        })
        const exit = yield* Effect.exit(restore(program))
        // The change was made or not: its answer is the caller's, whether its outcome is written or not.
        yield* Effect.flatMap(recorder.line(call, resolved, target, started, exit), (entry) =>
          log.outcome(intent, entry),
        ).pipe(
          Effect.catchAll((error) =>
            Effect.logError(`${error.message}: the outcome of ${tool.name} (intent ${intent}) is not recorded`),
          ),
        )
        return yield* exit
      }),
    )
  }

  call(call: Call, check: ParamsCheckShape): ReturnType<CallRecorder["call"]> {
    const { tool, selector, invocation } = call
    const resolved = invocation._tag === "Right" ? invocation.right : undefined
    // A schema is looked up, not sent: no change to record.
    const audited = Option.isSome(this.audit) && tool.group !== "read" && resolved?.schema !== true
    // A call that neither the audit log nor telemetry records runs as it is.
    if (!audited && !this.traced) return identity
    const target = resolved === undefined ? undefined : targetOf(resolved.body)
    return <R>(self: Effect.Effect<ToolSuccess, CallError, R>) =>
      Effect.suspend(() => {
        const program = this.traced
          ? this.telemetry.toolCall(tool.name, selector, resolved?.endpoint)(self, describe)
          : self
        if (!audited) return program
        const log = (this.audit as Option.Some<AuditLog>).value
        if (resolved === undefined) return this.unsent(log, program, call, undefined, target)
        // Params the endpoint's definition refuses are refused by the program before it sends: no intent.
        return Effect.flatMap(check.check(resolved.endpoint, resolved.body), (checked) =>
          checked._tag === "Invalid"
            ? this.unsent(log, program, call, resolved, target)
            : this.intended(log, program, call, resolved, target),
        )
      })
  }

  /** A call its program refuses before sending (arguments that do not decode, params refused): one line, no intent. */
  unsent<R>(
    log: AuditLog,
    program: Effect.Effect<ToolSuccess, CallError, R>,
    call: Call,
    resolved: Invocation | undefined,
    target: string | undefined,
  ): Effect.Effect<ToolSuccess, CallError | AuditError, R> {
    const started = performance.now()
    return Effect.uninterruptibleMask((restore) =>
      restore(program).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.zipRight(Effect.flatMap(this.line(call, resolved, target, started, exit, true), log.write), exit),
        ),
      ),
    )
  }

  refused(
    error: ToolDeniedError,
    args: unknown,
    outcome: "refused" | "declined" | "asked",
  ): Effect.Effect<void, AuditError> {
    // Counted and traced as calls too, with their own outcome.
    const observed = <E>(self: Effect.Effect<void, E>) =>
      this.traced
        ? this.telemetry.toolCall(error.tool, error.selector, undefined)(self, () => ({ outcome, kind: "denied" }))
        : self
    const { audit } = this
    if (Option.isNone(audit)) return observed(Effect.void)
    const recorder = this
    return observed(
      Effect.gen(function* () {
        const body = isObject(args) ? args.params : undefined
        const params = isObject(body) ? body : undefined
        const target = params === undefined ? undefined : targetOf(params)
        yield* audit.value.write({
          ...(yield* recorder.base(error.tool, error.selector)),
          ...(error.endpoint === undefined ? {} : { endpoint: error.endpoint }),
          ...(target === undefined ? {} : { target: yield* recorder.scrubbed(target) }),
          // Redacted as the endpoint's: a variable's value the user declined to set is a secret too.
          ...(params === undefined ? {} : { params: yield* recorder.paramsOf(params, error.endpoint) }),
          outcome,
          sent: false,
          kind: "denied",
          // Among several services a reason names the service's own setting (SVC_STAGING_CONFIRM) as made.
          reason: yield* recorder.scrubbed(error.reason),
          durationMs: 0,
        })
      }),
    )
  }
}

/** The recorder as the audit log, telemetry and the credentials (whose secrets are scrubbed) in force say. */
export const make: Effect.Effect<CallRecorder, never, Requirements> = Effect.gen(function* () {
  const recorder = new Recorder(yield* Audit, yield* Telemetry.Telemetry, (yield* Auth).secrets)
  return {
    call: (call, check) => recorder.call(call, check),
    refused: (error, args, outcome = "refused") => recorder.refused(error, args, outcome),
  }
})
