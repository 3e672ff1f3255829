/**
 * The audit log (SVC_AUDIT_LOG): a change's intent is on the device before
 * anything is sent, its outcome after; a refused, declined or held call is a
 * record alone. Every line is chained to the one before (Audit/Chain.ts) and
 * flushed with the lines that came with it (Audit/Writer.ts); a checkpoint,
 * signed with SVC_AUDIT_KEY when it is given, is written every minute that saw
 * lines and at a clean stop. `svc-mcp audit verify` reads it back.
 *
 * An intent that cannot be written stops its change unsent; an outcome or a
 * record that cannot be written fails its call's answer no more: the change
 * was made, and the intent with no outcome says so. A log that cannot be
 * opened stops the start; SIGHUP reopens it, for logrotate, and the chain goes
 * on in the new file. With the replicas' shared store (SVC_MCP_STORE), each
 * line also goes to a Redis stream, so that a replica's lost disk loses none.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { STREAM_KEY, Writer } from "../Audit/Writer.js"
import * as Settings from "../Settings/Audit.js"
import { ConfigError } from "../Settings/Read.js"
import * as Parts from "../Shared/Parts.js"
import * as StoreModule from "../Store/Store.js"
import { Store, type StoreShape } from "../Store/Store.js"

export interface AuditEntry {
  /** ISO 8601, when the call ended. */
  readonly time: string
  /** Which service (SVC_SERVICES), when several are configured. */
  readonly service?: string
  /** The caller's API key in per-request mode, else `server`. */
  readonly caller: string
  /** Who: the signed-in identity (`oauth:<name>`), the caller key's fingerprint (`key:sha256:...`), or `server`. */
  readonly who?: string
  readonly tool: string
  readonly selector?: string
  /** `group/Endpoint`, when the arguments named one. */
  readonly endpoint?: string
  /** The resource the params name (its id or name), when they name one. */
  readonly target?: string
  /** The params as sent, credential fields and known secrets redacted. */
  readonly params?: unknown
  readonly outcome: "ok" | "error" | "refused" | "declined" | "cancelled" | "asked"
  /** `false` on the one line of a call refused, declined or held before anything was sent; absent on a change's outcome. */
  readonly sent?: false
  /** For an error or a refusal: the error's kind (as in the result's structured error). */
  readonly kind?: string
  readonly status?: number
  readonly reason?: string
  /** SVC_GUARD: what untrusted text the caller read just before this change, which is why it was confirmed. */
  readonly guarded?: string
  /** The Update ids an execution started. */
  readonly update?: string | ReadonlyArray<string>
  readonly durationMs: number
}

/** A change about to be sent: who, what and why, before any of it goes out. */
export interface IntentEntry {
  readonly time: string
  readonly service?: string
  readonly caller: string
  readonly who: string
  readonly tool: string
  readonly selector?: string
  readonly endpoint?: string
  readonly target?: string
  readonly params?: unknown
  /** A digest of the params as sent, before redaction: keyed (HMAC) with SVC_AUDIT_KEY, else of the redacted params. */
  readonly paramsDigest?: string
  /** The confirmation the call went through: the setting and the pattern that asked. */
  readonly confirmation?: string
  readonly guarded?: string
}

export class AuditError extends Data.TaggedError("AuditError")<{
  readonly destination: string
  readonly cause: unknown
  /** An intent that could not be written: its change was not sent. */
  readonly unsent?: boolean
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    const why = `the audit log ${this.destination} cannot be written (${code ?? String(this.cause)})`
    return this.unsent === true ? `the change was not made: ${why}` : why
  }
}

export interface AuditLog {
  /** The file's path, or `stderr`. */
  readonly destination: string
  /** The chain's writer id, in every line. */
  readonly writer: string
  /** A record alone (a refusal, a question asked, a declined call): when this succeeds, it is in the file. */
  readonly write: (entry: AuditEntry) => Effect.Effect<void, AuditError>
  /** A change's intent, on the device when this succeeds (nothing may be sent before); its seq, which the outcome names. */
  readonly intent: (entry: IntentEntry) => Effect.Effect<number, AuditError>
  /** The outcome of the change whose intent has `intent`'s seq: in the file when this succeeds, on the device with the next flush. */
  readonly outcome: (intent: number, entry: AuditEntry) => Effect.Effect<void, AuditError>
  /** Why the last write failed, unless a write or a reopen has succeeded since. */
  readonly broken: () => AuditError | undefined
  /** Keys the params' digest (SVC_AUDIT_KEY), when a key is given. */
  readonly digestKey: Option.Option<Redacted.Redacted<Uint8Array>>
}

/** The audit log when one is kept; None, the default, when it is off. */
export class Audit extends Context.Reference<Audit>()("svc-mcp/Audit", {
  defaultValue: (): Option.Option<AuditLog> => Option.none(),
}) {}

/** How often a checkpoint is written, when lines came since the last. */
const CHECKPOINT_MS = 60_000

/** About how many lines the shared store's stream keeps (XADD MAXLEN ~). */
export const STREAM_CAP = 100_000

/** How long a stop waits for the stream's last lines. */
const STREAM_DRAIN_MS = 2_000

export interface OpenOptions {
  readonly key?: Option.Option<Redacted.Redacted<Uint8Array>>
  readonly maxBytes?: Option.Option<number>
  readonly store?: Option.Option<StoreShape>
  readonly checkpointMs?: number
}

/** A writer id unique to this process's chain: the host, and a random part. */
const newWriterId = () =>
  `${process.getBuiltinModule("node:os").hostname()}-${process.getBuiltinModule("node:crypto").randomBytes(4).toString("hex")}`

/**
 * Each line, in the chain's order, to the store's stream: one batch after the other,
 * off the call's path. A store that does not answer loses the stream's copy, said once.
 */
const streamTo = (store: StoreShape, log: (effect: Effect.Effect<void>) => void) => {
  let tail: Promise<void> = Promise.resolve()
  let failing = false
  const push = (lines: ReadonlyArray<string>) => {
    tail = tail.then(() =>
      Effect.runPromise(
        Effect.forEach(lines, (line) => store.appendStream(STREAM_KEY, line, STREAM_CAP), { discard: true }).pipe(
          Effect.match({
            onSuccess: () => {
              if (failing) log(Effect.logInfo("the audit stream in the shared store is written again"))
              failing = false
            },
            onFailure: (error) => {
              if (!failing) {
                log(Effect.logWarning(`the audit stream in the shared store misses lines: ${error.message}`))
              }
              failing = true
            },
          }),
        ),
      ),
    )
  }
  // Every line handed over, sent or failed: the last checkpoint goes out before the store closes.
  return { push, drained: () => tail }
}

/** Why the last write failed, until a write or a reopen succeeds. */
interface Health {
  broken: AuditError | undefined
}

/** The chain's writer, for the length of the scope; its close writes the last checkpoint. */
/** Where the log goes, as said to a person: `-` is stderr. */
const shownOf = (destination: string) => (destination === "-" ? "stderr" : destination)

const acquireWriter = (
  destination: string,
  options: OpenOptions,
  onWritten: Option.Option<(lines: ReadonlyArray<string>) => void>,
  health: Health,
  log: (effect: Effect.Effect<void>) => void,
) =>
  Effect.acquireRelease(
    Effect.try({
      try: () =>
        Writer.open({
          path: destination === "-" ? undefined : destination,
          writer: newWriterId(),
          key: Option.getOrUndefined(Option.map(options.key ?? Option.none(), Redacted.value)),
          checkpointMs: options.checkpointMs ?? CHECKPOINT_MS,
          ...Option.match(options.maxBytes ?? Option.none(), {
            onNone: () => ({}),
            onSome: (maxBytes) => ({ maxBytes }),
          }),
          ...(Option.isSome(onWritten) ? { onWritten: onWritten.value } : {}),
          onReopen: (error) => {
            if (error === undefined) {
              health.broken = undefined
              log(Effect.logInfo(`audit log ${destination} reopened`))
            } else {
              log(Effect.logError(`${new AuditError({ destination, cause: error }).message}: it could not be reopened`))
            }
          },
        }),
      catch: (cause) => new AuditError({ destination: shownOf(destination), cause }),
    }),
    (opened) => Effect.promise(() => opened.close()),
  )

/** SIGHUP reopens the file (after logrotate moved it), for the length of the scope. */
const reopenOnHangUp = (writer: Writer) => {
  const reopen = () => writer.reopen()
  return Effect.acquireRelease(
    Effect.sync(() => process.on("SIGHUP", reopen)),
    () => Effect.sync(() => process.off("SIGHUP", reopen)),
  )
}

/** Opens `destination` (a path, or `-` for stderr) for the length of the scope; closed with a last checkpoint. */
export const open = (
  destination: string,
  options: OpenOptions = {},
): Effect.Effect<AuditLog, AuditError, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const log = (effect: Effect.Effect<void>) => {
      Runtime.runFork(runtime)(effect)
    }
    const shown = shownOf(destination)
    const health: Health = { broken: undefined }
    const stream = Option.map(options.store ?? Option.none(), (shape) => streamTo(shape, log))
    if (Option.isSome(stream)) {
      // Released after the writer (whose close writes the last checkpoint), before the store.
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => stream.value.drained()).pipe(Effect.timeoutOption(STREAM_DRAIN_MS), Effect.asVoid),
      )
    }
    const onWritten = Option.map(stream, (opened) => opened.push)
    const writer = yield* acquireWriter(destination, options, onWritten, health, log)
    if (destination !== "-") yield* reopenOnHangUp(writer)
    // Only an intent waits for the device: a record or an outcome is in the file (the page cache)
    // before its call answers, as the log always had it, and the next flush takes it to the device.
    const append = (fields: Readonly<Record<string, unknown>>, unsent: boolean) =>
      Effect.tryPromise({
        try: () => writer.append(fields, unsent),
        catch: (cause) => {
          health.broken = new AuditError({ destination: shown, cause })
          return unsent ? new AuditError({ destination: shown, cause, unsent }) : health.broken
        },
      }).pipe(
        Effect.tap(() => {
          health.broken = undefined
        }),
      )
    return {
      destination: shown,
      writer: writer.writer,
      write: (entry) => Effect.asVoid(append({ ...entry }, false)),
      intent: (entry) => append({ phase: "intent", ...entry }, true),
      outcome: (intent, entry) => Effect.asVoid(append({ phase: "outcome", intent, ...entry }, false)),
      broken: () => health.broken,
      digestKey: options.key ?? Option.none(),
    } satisfies AuditLog
  })

/**
 * The audit log as its settings say, opened now: a log that cannot be opened
 * stops the start, with the fix. With the shared store, its lines go to its stream too.
 */
export const layer = (settings: Settings.AuditSettings): Layer.Layer<Audit, ConfigError, Store> =>
  Layer.scoped(
    Audit,
    Effect.gen(function* () {
      const store = yield* Store
      const { destination } = settings
      const log = yield* open(destination, { key: settings.key, maxBytes: settings.maxBytes, store }).pipe(
        Effect.mapError(
          (error) =>
            new ConfigError({
              variable: "SVC_AUDIT_LOG",
              problem: `names a file that cannot be opened for appending (${(error.cause as NodeJS.ErrnoException).code ?? String(error.cause)})`,
              hint: `check the path ${JSON.stringify(destination)}, that its directory exists and that this user may write there; or use - for stderr`,
            }),
        ),
      )
      const signed = Option.isSome(settings.key) ? "checkpoints signed with SVC_AUDIT_KEY" : "checkpoints unsigned"
      const streamed = Option.isSome(store) ? `; each line also to the stream ${STREAM_KEY} of the shared store` : ""
      yield* Effect.logInfo(`audit log: ${log.destination} (writer ${log.writer}, ${signed}${streamed})`)
      return Option.some(log)
    }),
  )

/** No audit log: nothing is audited. */
export const layerOff: Layer.Layer<Audit> = Layer.succeed(Audit, Option.none())

/** The audit log as SVC_AUDIT_LOG and SVC_AUDIT_KEY say (Settings/Audit.ts): `layer` when it is set, else `layerOff`. */
export const layerConfig: Layer.Layer<Audit, ConfigError> = Layer.unwrapEffect(
  Effect.map(Settings.load, Option.match({ onNone: () => layerOff, onSome: layer })),
).pipe(Layer.provide(Parts.orElse(Store, StoreModule.layerOff)))
