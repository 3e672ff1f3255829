#!/usr/bin/env node
/**
 * The executable: composes the layers and runs the stdio server.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Auth from "./Auth.js"
import * as Cli from "./Cli.js"
import * as Config from "./Config.js"
import * as Logging from "./Logging.js"
import * as McpServer from "./McpServer.js"
import * as SvcClient from "./SvcClient.js"

const ServiceLayer = SvcClient.layer.pipe(
  Layer.provideMerge(Auth.layer),
  Layer.provideMerge(Config.layer),
  Layer.provide(FetchHttpClient.layer),
)

const serve = Effect.gen(function* () {
  const config = yield* Config.SvcConfig
  const auth = yield* Auth.Auth
  yield* Effect.logInfo(`svc-mcp ${Cli.VERSION}: serving ${config.url} with ${auth.method} auth over stdio`)
  yield* McpServer.serveStdio
}).pipe(Effect.provide(ServiceLayer))

const exitWith = (code: number) => Effect.sync(() => process.exit(code))

const main = Effect.gen(function* () {
  const command = Cli.parse(process.argv.slice(2))
  switch (command._tag) {
    case "Help":
      return yield* Console.error(Cli.HELP)
    case "Version":
      return yield* Console.error(Cli.VERSION)
    case "Invalid":
      yield* Console.error(`svc-mcp: unknown argument ${JSON.stringify(command.argument)}; see svc-mcp --help`)
      return yield* exitWith(2)
    case "Serve":
      return yield* serve.pipe(
        Effect.catchTag("ConfigError", (error) =>
          Console.error(`svc-mcp: ${error.message} (see svc-mcp --help)`).pipe(Effect.zipRight(exitWith(2))),
        ),
      )
  }
})

NodeRuntime.runMain(main.pipe(Effect.provide(Logging.layer())), {
  disableErrorReporting: false,
  disablePrettyLogger: true,
})
