/**
 * The audit log opened (Audit.ts says what it keeps): the chain's writer on its file, reopened on
 * SIGHUP, and each line to the shared store's stream when there is one. Imported when
 * SVC_AUDIT_LOG is set: a start without it loads none of the writer.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { STREAM_KEY, Writer } from "../Audit/Writer.js"
import type * as Settings from "../Settings/Audit.js"
import { ConfigError } from "../Settings/Read.js"
import * as Runner from "../Shared/Runner.js"
import { Store, type StoreShape } from "../Store/Store.js"
import { Audit, AuditError, type AuditLog, type OpenOptions, STREAM_CAP } from "./AuditLog.js"

/** How often a checkpoint is written, when lines came since the last. */
const CHECKPOINT_MS = 60_000

/** How long a stop waits for the stream's last lines. */
const STREAM_DRAIN_MS = 2_000

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

/** Where the log goes, as said to a person: `-` is stderr. */
const shownOf = (destination: string) => (destination === "-" ? "stderr" : destination)

/** The chain's writer, for the length of the scope; its close writes the last checkpoint. */
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
    const log = (yield* Runner.current).fork
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
