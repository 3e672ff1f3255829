/**
 * The audit log (SVC_AUDIT_LOG): one JSON line per call of a tool that writes or
 * executes, and per refused or declined call of any tool. Each line is written
 * synchronously before the call's result is returned, so a call that was
 * answered is in the file even if the process dies right after. A log that
 * cannot be opened stops the start; one that can no longer be written fails the
 * call that could not be recorded, and refuses the next ones, rather than lose
 * lines silently. SIGHUP reopens the file, for logrotate.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Settings from "../Settings/Audit.js"
import { ConfigError } from "../Settings/Read.js"

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export
// (node:fs's `promises` alone loads readline), which a start pays for.
const Fs = process.getBuiltinModule("node:fs")

export interface AuditEntry {
  /** ISO 8601, when the call ended. */
  readonly time: string
  /** Which service (SVC_SERVICES), when several are configured. */
  readonly service?: string
  /** The caller's API key in per-request mode, else `server`. */
  readonly caller: string
  readonly tool: string
  readonly selector?: string
  /** `group/Endpoint`, when the arguments named one. */
  readonly endpoint?: string
  /** The resource the params name (its id or name), when they name one. */
  readonly target?: string
  /** The params as sent, credential fields and known secrets redacted. */
  readonly params?: unknown
  readonly outcome: "ok" | "error" | "refused" | "declined" | "cancelled" | "asked"
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

export class AuditError extends Data.TaggedError("AuditError")<{
  readonly destination: string
  readonly cause: unknown
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    return `the audit log ${this.destination} cannot be written (${code ?? String(this.cause)})`
  }
}

export interface AuditLog {
  /** The file's path, or `-` for stderr. */
  readonly destination: string
  /** Appends one line; when this succeeds, the line is in the file. */
  readonly write: (entry: AuditEntry) => Effect.Effect<void, AuditError>
  /** Why the last write failed, unless a write or a reopen has succeeded since: calls to audit are then refused. */
  readonly broken: () => AuditError | undefined
}

/** The audit log when one is kept; None, the default, when it is off. */
export class Audit extends Context.Reference<Audit>()("svc-mcp/Audit", {
  defaultValue: (): Option.Option<AuditLog> => Option.none(),
}) {}

const writeAll = (fd: number, text: string) => {
  const buffer = Buffer.from(text, "utf8")
  let offset = 0
  while (offset < buffer.length) offset += Fs.writeSync(fd, buffer, offset)
}

const openFile = (path: string) => Fs.openSync(path, "a", 0o640)

/** Opens `destination` (a path, or `-` for stderr) for the length of the scope. */
export const open = (destination: string): Effect.Effect<AuditLog, AuditError, Scope.Scope> =>
  Effect.gen(function* () {
    if (destination === "-") {
      let broken: AuditError | undefined
      return {
        destination: "stderr",
        write: (entry) =>
          Effect.try({
            try: () => {
              writeAll(2, `${JSON.stringify(entry)}\n`)
              broken = undefined
            },
            catch: (cause) => {
              broken = new AuditError({ destination: "stderr", cause })
              return broken
            },
          }),
        broken: () => broken,
      } satisfies AuditLog
    }
    let fd: number = yield* Effect.acquireRelease(
      Effect.try({ try: () => openFile(destination), catch: (cause) => new AuditError({ destination, cause }) }),
      (): Effect.Effect<void> => Effect.sync(() => Fs.closeSync(fd)),
    )
    let broken: AuditError | undefined
    const runtime = yield* Effect.runtime<never>()
    const reopen = () => {
      try {
        const next = openFile(destination)
        const previous = fd
        fd = next
        broken = undefined
        Fs.closeSync(previous)
        Runtime.runFork(runtime)(Effect.logInfo(`audit log ${destination} reopened`))
      } catch (cause) {
        Runtime.runFork(runtime)(
          Effect.logError(`${new AuditError({ destination, cause }).message}: it could not be reopened`),
        )
      }
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("SIGHUP", reopen)),
      () => Effect.sync(() => process.off("SIGHUP", reopen)),
    )
    return {
      destination,
      write: (entry) =>
        Effect.try({
          try: () => {
            writeAll(fd, `${JSON.stringify(entry)}\n`)
            broken = undefined
          },
          catch: (cause) => {
            broken = new AuditError({ destination, cause })
            return broken
          },
        }),
      broken: () => broken,
    } satisfies AuditLog
  })

/**
 * The audit log at `destination` (a path, or `-` for stderr), opened now: a log
 * that cannot be opened stops the start, with the fix.
 */
export const layer = (destination: string): Layer.Layer<Audit, ConfigError> =>
  Layer.scoped(
    Audit,
    Effect.gen(function* () {
      const log = yield* open(destination).pipe(
        Effect.mapError(
          (error) =>
            new ConfigError({
              variable: "SVC_AUDIT_LOG",
              problem: `names a file that cannot be opened for appending (${(error.cause as NodeJS.ErrnoException).code ?? String(error.cause)})`,
              hint: `check the path ${JSON.stringify(destination)}, that its directory exists and that this user may write there; or use - for stderr`,
            }),
        ),
      )
      yield* Effect.logInfo(`audit log: ${log.destination}`)
      return Option.some(log)
    }),
  )

/** No audit log: nothing is audited. */
export const layerOff: Layer.Layer<Audit> = Layer.succeed(Audit, Option.none())

/** The audit log as SVC_AUDIT_LOG says (Settings/Audit.ts): `layer` when it is set, else `layerOff`. */
export const layerConfig: Layer.Layer<Audit, ConfigError> = Layer.unwrapEffect(
  Effect.map(Settings.load, Option.match({ onNone: () => layerOff, onSome: layer })),
)
