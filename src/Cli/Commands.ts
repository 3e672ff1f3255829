import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Auth from "../Auth.js"
import * as RegistryBundle from "../Bundle/Registry.js"
import * as ToolsBundle from "../Bundle/Tools.js"
import * as Config from "../Config.js"
import * as ConfirmationState from "../Confirmation/State.js"
import * as McpServer from "../Mcp/Server/Server.js"
import * as Audit from "../Operations/Audit.js"
import * as Registry from "../Registry/Registry.js"
import type { Estate } from "../Sandbox/Estates/Estate.js"
import type { Scenario } from "../Sandbox/Estates/Scenarios.js"
import type * as Sandbox from "../Sandbox/Server.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as GuardSettings from "../Settings/Guard.js"
import * as HttpSettings from "../Settings/Http.js"
import * as RegistrySettings from "../Settings/Registry.js"
import * as SignInSettings from "../Settings/SignIn.js"
import * as TeamSettings from "../Settings/Team.js"
import * as PolicySettings from "../Settings/ToolSettings.js"
import * as Parts from "../Shared/Parts.js"
import * as Store from "../Store/Store.js"
import * as ParamsCheck from "../Tools/Params/ParamsCheck.js"
import * as Policy from "../Tools/Policy/Policy.js"
import * as Guard from "../Untrusted/Guard.js"
import * as FleetView from "../View/Fleet.js"
import { checkingClient, servingClient } from "./CommandClients.js"
import * as Cli from "./CommandLine.js"
import { configFailed, type ExitCode, exitWith } from "./Exit.js"

// What serving over stdio never uses (HTTP, the sandbox, check, setup) is imported when its
// command runs: start-up neither loads nor runs it.
const loadHttp = Effect.promise(() =>
  Promise.all([import("../Operations/Readiness.js"), import("../Mcp/Http/Http.js")]),
)
const loadSandbox = Effect.promise(() => import("../Sandbox/Server.js"))
const loadCheck = Effect.promise(() => import("./CheckCommand.js"))
const loadSetup = Effect.promise(() => import("./Setup.js"))
const loadSignIn = Effect.promise(() => import("../SignIn/Resource.js"))
const loadAuditVerify = Effect.promise(() => import("../Audit/VerifyCommand.js"))
const loadPeople = Effect.promise(() => import("./People.js"))

export { ExitCode, reportUnexpected, teardown } from "./Exit.js"

/**
 * The tools' bundle, and the optional parts around them that the environment
 * turns on. Among several services each has its params check already (Bundle/Registry.ts):
 * `params` is then None, and no file is read twice.
 */
const toolsWith = (params: Effect.Effect<Option.Option<ParamsCheck.ParamsCheckShape>, Config.ConfigError>) =>
  Parts.provideScoped(
    Effect.gen(function* () {
      const tools = yield* ToolsBundle.contextWith(PolicySettings.loadSettings, params)
      // Beside the bundle, not beneath it, so that the tools' settings are read (and refused) first;
      // what these provide stands over the bundle's defaults.
      const audit = yield* Audit.contextConfig
      // The key confirmation states are sealed with, and the proxies whose X-Forwarded-For is believed.
      const team = yield* TeamSettings.load
      const confirmations = yield* Effect.provideService(
        Effect.provideService(ConfirmationState.ofTeam, TeamSettings.TeamSettings, team),
        Store.Store,
        yield* Store.Store,
      )
      // The fleet view (an MCP App): its page is read from dist/ by the first client that asks for it.
      const fleet = yield* FleetView.make
      // SVC_GUARD: changes that follow untrusted text and cannot be undone are asked first.
      const guard = yield* Guard.makeConfig
      return Context.merge(tools, audit).pipe(
        Context.add(Guard.Guard, guard),
        Context.add(ConfirmationState.ConfirmationState, confirmations),
        Context.add(TeamSettings.TeamSettings, team),
        Context.add(FleetView.FleetView, Option.some(fleet)),
      )
    }),
  )

/** Stdio, or Streamable HTTP when a port is given. */
const serve = (httpPort: number | undefined, severalServices = false) =>
  Effect.gen(function* () {
    const config = yield* Config.SvcConfig
    const auth = yield* Auth.Auth
    const policy = yield* Policy.Policy
    const params = yield* ParamsCheck.ParamsCheck
    const http = yield* HttpSettings.HttpSettings
    const mode = yield* CallerCredentials.Mode
    const several = yield* Registry.Services
    const serving =
      several.length > 0
        ? `svc-mcp ${Cli.VERSION}: serving ${RegistryBundle.describe(several)}`
        : `svc-mcp ${Cli.VERSION}: serving ${config.url} with ${mode === "per-request" ? "each caller's own API key (per-request)" : `${auth.method} auth`}`
    // Among several services, each one's policy and params check are in its part of `serving`.
    const summary = several.length > 0 ? "" : `; ${policy.summary}; ${params.inForce}`
    if (Option.isNone(http)) {
      if (mode === "per-request") {
        return yield* new Config.ConfigError({
          variable: "SVC_MCP_CREDENTIALS",
          problem: "is per-request, which needs HTTP",
          hint: "serve over HTTP (--http-port or SVC_MCP_HTTP_PORT), where each request carries its caller's key; over stdio use the server's own credentials",
        })
      }
      yield* Effect.logInfo(`${serving} over stdio${summary}`)
      return yield* McpServer.serveStdio
    }
    const [Readiness, McpHttp] = yield* loadHttp
    const names = several.map((service) => service.name)
    const signIn = yield* SignInSettings.load(names)
    if (SignInSettings.mints(signIn)) yield* Effect.forkScoped(Effect.flatMap(loadPeople, (People) => People.warn))
    const readiness = several.length > 0 ? Readiness.layerServices(several) : Readiness.layer
    const onReload = Audit.revokedOnReload
    const signInLayer = Option.isSome(signIn) ? (yield* loadSignIn).layer(signIn.value, names, onReload) : Layer.empty
    // Readiness judges sign-in's issuer and, with minted keys, the store (Operations/ReadinessSignIn.ts).
    const ready = yield* Layer.buildWithScope(readiness.pipe(Layer.provideMerge(signInLayer)), yield* Effect.scope)
    const { url } = yield* McpHttp.listen(http.value).pipe(Effect.provide(ready))
    const guarded = Option.isSome(signIn)
      ? `sign-in with ${signIn.value.issuers.join(", ")} for ${signIn.value.resource}`
      : Option.isSome(http.value.token)
        ? "Bearer token required"
        : "no token (loopback only)"
    const guard = Guard.whoseWindow(yield* GuardSettings.load, {
      http: true,
      signIn: Option.isSome(signIn),
      perRequest: mode === "per-request",
    })
    yield* Effect.logInfo(`${serving} over HTTP at ${url} (${guarded})${summary}; guard: ${guard.words}`)
    return yield* Effect.never
  }).pipe(
    Effect.scoped,
    // The HTTP settings are read after the tools' settings, so that their refusals come in that order.
    Effect.provideServiceEffect(HttpSettings.HttpSettings, HttpSettings.load(Option.fromNullable(httpPort))),
    toolsWith(severalServices ? Effect.succeedNone : Effect.map(ParamsCheck.load, Option.some)),
    Effect.catchTag("ListenError", (error) =>
      Console.error(`svc-mcp: ${error.message}`).pipe(Effect.zipRight(exitWith(1))),
    ),
  )

const sandboxConfig = (sandbox: Sandbox.Sandbox): Config.SvcConfigShape => ({
  url: sandbox.url,
  timeoutMs: Config.DEFAULT_TIMEOUT_MS,
  credentials: {
    _tag: "ApiKey",
    key: Redacted.make(sandbox.apiKey.key),
    secret: Redacted.make(sandbox.apiKey.secret),
  },
})

/** What the sandboxes hold, and the day they are having, as the command line chose. */
interface Seeding {
  readonly estate?: Estate | undefined
  readonly scenario?: Scenario | undefined
}

const seedingOf = ({ estate, scenario }: Seeding) => ({
  ...(estate === undefined ? {} : { estate }),
  ...(scenario === undefined ? {} : { scenario }),
})

/** One sandbox per name, each with its own estate and its own key, served as several services. */
const serveSandboxes = (names: ReadonlyArray<string>, httpPort: number | undefined, seeding: Seeding) =>
  Effect.gen(function* () {
    const Sandbox = yield* loadSandbox
    const sandboxes = new Map<string, Sandbox.Sandbox>()
    for (const name of names) {
      const sandbox = yield* Sandbox.make({
        apiKey: { key: `${name}-key`, secret: `${name}-secret` },
        ...seedingOf(seeding),
      })
      sandboxes.set(name, sandbox)
      yield* Effect.logInfo(
        `SANDBOX: service ${name} is an in-memory sandbox at ${sandbox.url}; nothing real is touched`,
      )
    }
    const config = (name: string) => Config.layerValue(sandboxConfig(sandboxes.get(name) as Sandbox.Sandbox))
    yield* serve(httpPort, true).pipe(Effect.provide(RegistryBundle.serving(names, config)))
  }).pipe(Effect.scoped, Effect.catchTag("ConfigError", configFailed))

const serveSandbox = (httpPort: number | undefined, seeding: Seeding) =>
  Effect.gen(function* () {
    const Sandbox = yield* loadSandbox
    const sandbox = yield* Sandbox.make(seedingOf(seeding))
    yield* Effect.logInfo(
      `SANDBOX: an in-memory sandbox service at ${sandbox.url} stands in for the real one; nothing real is touched`,
    )
    yield* serve(httpPort).pipe(servingClient(() => Effect.succeed(sandboxConfig(sandbox))))
  }).pipe(Effect.scoped, Effect.catchTag("ConfigError", configFailed))

/**
 * `--sandbox` without `--services`: one sandbox per name SVC_SERVICES gives, as
 * if `--services` had named them, so that the configuration tried is the one
 * that will serve (its per-service policies apply); without it, one sandbox.
 * `--services` wins over SVC_SERVICES, as the command line does over the environment.
 */
const sandboxesOfSettings = (httpPort: number | undefined, seeding: Seeding) =>
  RegistrySettings.load.pipe(
    Effect.catchTag("ConfigError", configFailed),
    Effect.flatMap((names) =>
      Option.isSome(names)
        ? Effect.zipRight(
            Effect.logInfo(`SANDBOX: one sandbox per service SVC_SERVICES names (${names.value.join(", ")})`),
            serveSandboxes(names.value, httpPort, seeding),
          )
        : serveSandbox(httpPort, seeding),
    ),
  )

const runSandbox = (port: number, seeding: Seeding) =>
  Effect.gen(function* () {
    const Sandbox = yield* loadSandbox
    const sandbox = yield* Effect.tryPromise(() => Sandbox.start({ port, ...seedingOf(seeding) })).pipe(
      Effect.tapError((error) =>
        Console.error(`svc-mcp: the sandbox could not listen on port ${port}: ${error.cause}`),
      ),
      Effect.orElse(() => exitWith(1)),
    )
    yield* Effect.addFinalizer(() => Effect.promise(() => sandbox.close()))
    yield* Console.error(
      [
        `svc-mcp sandbox (service API ${sandbox.version}, scenario ${seeding.scenario ?? "calm"}) listening on ${sandbox.url}`,
        "Point a client at it, e.g.:",
        `  SVC_URL=${sandbox.url} SVC_API_KEY=${sandbox.apiKey.key} SVC_API_SECRET=${sandbox.apiKey.secret} svc-mcp`,
        `  or log in as ${sandbox.username} / ${sandbox.password}`,
        `A read-only user (not an admin): SVC_API_KEY=${sandbox.viewer.apiKey.key} SVC_API_SECRET=${sandbox.viewer.apiKey.secret}, or log in as ${sandbox.viewer.username} / ${sandbox.viewer.password}`,
        "Its state lives in memory and ends with it. Ctrl-C to stop.",
      ].join("\n"),
    )
    return yield* Effect.never
  }).pipe(Effect.scoped)

/** The shared store beneath everything served or checked (SVC_MCP_STORE; unset, each process keeps its own memory). */
const providingStore = <A, R>(self: Effect.Effect<A, ExitCode, R>) =>
  Effect.flatMap(Store.makeConfig, (store) => Effect.provideService(self, Store.Store, store)).pipe(
    Effect.scoped,
    Effect.catchTag("ConfigError", configFailed),
  )

/** The server: on sandboxes, or on the service (or several, each with its own variables). */
const serveCommand = (command: Extract<Cli.Command, { readonly _tag: "Serve" }>) =>
  command.sandbox
    ? command.services === undefined
      ? sandboxesOfSettings(command.httpPort, command)
      : serveSandboxes(command.services, command.httpPort, command)
    : RegistrySettings.load.pipe(
        Effect.flatMap((names) =>
          Option.isSome(names)
            ? serve(command.httpPort, true).pipe(Effect.provide(RegistryBundle.serving(names.value)))
            : serve(command.httpPort).pipe(servingClient()),
        ),
        Effect.catchTag("ConfigError", configFailed),
      )

/** Runs one command line's command to its end; a failure is an ExitCode, its message on stderr. */
export const run = (command: Cli.Command): Effect.Effect<void, ExitCode> =>
  Effect.gen(function* () {
    switch (command._tag) {
      case "Help":
        // The help is loaded when asked for: a start reads none of it.
        return yield* Effect.flatMap(
          Effect.promise(() => import("./Help.js")),
          (Help) => Console.error(Help.help(command.topic)),
        )
      case "Version":
        return yield* Console.error(Cli.VERSION)
      case "Invalid":
        yield* Console.error(`svc-mcp: ${command.message}; see svc-mcp --help`)
        return yield* exitWith(2)
      case "Check":
        return yield* RegistrySettings.load.pipe(
          Effect.flatMap((names) =>
            Effect.flatMap(loadCheck, (Check) => (Option.isSome(names) ? Check.checkEach(names.value) : Check.check)),
          ),
          Effect.catchTag("ConfigError", configFailed),
          providingStore,
        )
      case "People":
        return yield* Effect.flatMap(loadPeople, (People) => People.run(command.revoke, exitWith)).pipe(
          Effect.provide(checkingClient(Config.layer)),
          Effect.catchTag("ConfigError", configFailed),
          providingStore,
        )
      case "Setup":
        return yield* Effect.flatMap(loadSetup, (Setup) => Setup.run(command.options))
      case "AuditVerify": {
        const { _tag, ...options } = command
        const code = yield* Effect.flatMap(loadAuditVerify, (AuditVerify) => AuditVerify.run(options)).pipe(
          Effect.catchTag("ConfigError", configFailed),
        )
        return code === 0 ? undefined : yield* exitWith(code)
      }
      case "Sandbox":
        return yield* runSandbox(command.port, command)
      case "Scenarios": {
        const { SCENARIOS } = yield* Effect.promise(() => import("../Sandbox/Estates/Scenarios.js"))
        const width = Math.max(...SCENARIOS.map(([name]) => name.length)) + 2
        return yield* Console.error(SCENARIOS.map(([name, line]) => `${name.padEnd(width)}${line}`).join("\n"))
      }
      case "Serve":
        return yield* providingStore(serveCommand(command))
    }
  })
