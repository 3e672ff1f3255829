/**
 * How a command ends: well, or with an ExitCode whose message is on stderr already; a malformed
 * setting with its one line and exit code 2; anything else logged with its cause, exit code 1.
 */
import type { Teardown } from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Config from "../Config.js"

/** How a command ends when it does not end well: its message is on stderr already. */
export class ExitCode extends Data.TaggedError("ExitCode")<{ readonly code: number }> {}

export const exitWith = (code: number) => Effect.fail(new ExitCode({ code }))

/** For NodeRuntime.runMain: the code of an ExitCode, 1 for any other failure, 0 for success or a signal. */
export const teardown: Teardown = (exit, onExit) => {
  if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return onExit(0)
  const failure = Cause.failureOption(exit.cause)
  onExit(failure._tag === "Some" && failure.value instanceof ExitCode ? failure.value.code : 1)
}

/** Logs a failure other than an ExitCode (whose message was written already): a defect, with its cause. */
export const reportUnexpected = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapErrorCause(self, (cause) =>
    Cause.isInterruptedOnly(cause) || Option.exists(Cause.failureOption(cause), (error) => error instanceof ExitCode)
      ? Effect.void
      : Effect.logError(cause),
  )

export const configFailed = (error: Config.ConfigError) =>
  Console.error(`svc-mcp: ${error.message} (see svc-mcp --help)`).pipe(Effect.zipRight(exitWith(2)))
