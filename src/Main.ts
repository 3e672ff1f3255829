#!/usr/bin/env node
/**
 * The executable: reads the command line, and runs its command with logs on stderr.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Cli from "./Cli/CommandLine.js"
import * as Commands from "./Cli/Commands.js"
import * as Logging from "./Operations/Logging.js"
import * as Environment from "./Settings/Environment.js"

// Failures are reported by Commands (an ExitCode's message is on stderr already); the exit code is set by its teardown.
const command = Cli.parse(process.argv.slice(2))

// The variables set that no setting reads, named as a server starts: loaded then, beside the start's own modules.
const unknownSettings =
  command._tag === "Serve"
    ? Effect.flatMap(
        Effect.promise(() => import("./Cli/UnknownWarnings.js")),
        (Unknown) => Unknown.atStart(command),
      )
    : Effect.void

NodeRuntime.runMain(
  Effect.zipRight(unknownSettings, Commands.run(command)).pipe(
    Commands.reportUnexpected,
    Logging.toStderrOnly,
    Effect.withConfigProvider(Environment.provider),
  ),
  { disableErrorReporting: true, disablePrettyLogger: true, teardown: Commands.teardown },
)
