#!/usr/bin/env node
/**
 * The executable: reads the command line, and runs its command with logs on stderr.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Cli from "./Cli/CommandLine.js"
import * as Commands from "./Cli/Commands.js"
import * as Unknown from "./Cli/Unknown.js"
import * as Logging from "./Operations/Logging.js"
import * as Environment from "./Settings/Environment.js"

// Failures are reported by Commands (an ExitCode's message is on stderr already); the exit code is set by its teardown.
const command = Cli.parse(process.argv.slice(2))

NodeRuntime.runMain(
  Effect.zipRight(Unknown.atStart(command), Commands.run(command)).pipe(
    Commands.reportUnexpected,
    Logging.toStderrOnly,
    Effect.withConfigProvider(Environment.provider),
  ),
  { disableErrorReporting: true, disablePrettyLogger: true, teardown: Commands.teardown },
)
