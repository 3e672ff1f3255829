/**
 * OpenTelemetry traces and metrics, exported over OTLP/HTTP when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (Settings/Telemetry.ts). Off, nothing of
 * the SDK is loaded (it comes in by a dynamic import) and every hook is the
 * identity, so calls cost what they cost without telemetry.
 *
 * Spans: one per tool call (its parent the caller's trace context, from the
 * request's `_meta` or the HTTP `traceparent` header), a child per request to
 * the service and per login. Metrics: tool calls by tool and outcome, call
 * latency, service requests by status, logins, calls in flight. Attributes
 * hold names, paths, statuses and kinds: never a credential or a parameter.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as SvcHooks from "../Service/Hooks.js"
import type { ConfigError } from "../Settings/Read.js"
import * as Settings from "../Settings/Telemetry.js"
import type { Hooks } from "./TelemetryHooks.js"

export type { TelemetrySettings } from "../Settings/Telemetry.js"
export type { Hooks, Outcome } from "./TelemetryHooks.js"

/** The tool-call hooks when telemetry is on; None, the default, when it is off. */
export class Telemetry extends Context.Reference<Telemetry>()("svc-mcp/Telemetry", {
  defaultValue: (): Option.Option<Hooks> => Option.none(),
}) {}
/** Hooks that do nothing: a tool call costs what it costs without telemetry. */
export const off: Hooks = { toolCall: () => (self) => self }

/** The tool-call hooks in force: `off` unless telemetry is on. */
export const hooks: Effect.Effect<Hooks> = Effect.map(
  Telemetry,
  Option.getOrElse(() => off),
)

/** No telemetry: the hooks do nothing, and nothing of the SDK is loaded. */
const offContext = Context.make(Telemetry, Option.none<Hooks>()).pipe(Context.add(SvcHooks.Hooks, SvcHooks.none))

export const layerOff: Layer.Layer<Telemetry | SvcHooks.Hooks> = Layer.succeedContext(offContext)

/**
 * Telemetry exporting to `settings.endpoint`: the tool-call hooks, the service
 * client's hooks (SvcClient.Hooks), and the SDK, loaded now. Provide it beneath
 * the client, so that the client's requests are traced.
 */
export const layer = (settings: Settings.TelemetrySettings): Layer.Layer<Telemetry | SvcHooks.Hooks> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const [sdk, { makeHooks }] = yield* Effect.promise(() =>
        Promise.all([import("./TelemetrySdk.js"), import("./TelemetryHooks.js")]),
      )
      yield* Effect.logInfo(`telemetry: exporting traces and metrics over OTLP/HTTP to ${settings.endpoint}`)
      const made = makeHooks()
      return Layer.mergeAll(
        Layer.succeed(Telemetry, Option.some(made)),
        Layer.succeed(SvcHooks.Hooks, made),
        sdk.layer(settings),
      )
    }),
  )

/** What `layerConfig` provides, made in the current scope: the command line's start builds no layer for it. */
export const contextConfig: Effect.Effect<
  Context.Context<Telemetry | SvcHooks.Hooks>,
  ConfigError,
  Scope.Scope
> = Effect.flatMap(
  Settings.load,
  Option.match({ onNone: () => Effect.succeed(offContext), onSome: (settings) => Layer.build(layer(settings)) }),
)

/** Telemetry as the OTEL_* variables say (Settings/Telemetry.ts): `layer` when an endpoint is set, else `layerOff`. */
export const layerConfig: Layer.Layer<Telemetry | SvcHooks.Hooks, ConfigError> = Layer.scopedContext(contextConfig)
