/**
 * OpenTelemetry traces and metrics, exported over OTLP/HTTP when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Without it nothing of the SDK is loaded
 * (it comes in by a dynamic import) and every hook is the identity, so calls
 * cost what they cost without telemetry.
 *
 * Spans: one per tool call (its parent the caller's trace context, from the
 * request's `_meta` or the HTTP `traceparent` header), a child per request to
 * the service and per login. Metrics: tool calls by tool and outcome, call
 * latency, service requests by status, logins, calls in flight. Attributes
 * hold names, paths, statuses and kinds: never a credential or a parameter.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { VERSION } from "../Shared/Version.js"
import * as TraceContext from "./TraceContext.js"

export interface Hooks {
  /** Around a tool call: its span, its count, latency and the calls in flight. */
  readonly toolCall: (
    tool: string,
    selector: string | undefined,
    endpoint: string | undefined,
  ) => <A, E, R>(self: Effect.Effect<A, E, R>, describe: (exit: Exit.Exit<A, E>) => Outcome) => Effect.Effect<A, E, R>
  /** Around one request to the service that answers a status. */
  readonly serviceRequest: (
    method: string,
    path: string,
  ) => <A extends { readonly status: number }, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Around a login. */
  readonly login: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** How a tool call ended, for its span and metrics. */
export interface Outcome {
  readonly outcome: string
  readonly kind?: string
}

/** The hooks, when telemetry is configured. */
export class Telemetry extends Context.Tag("svc-mcp/Telemetry")<Telemetry, Option.Option<Hooks>>() {}

/** The `traceparent` header of the HTTP request a call came in, for a call whose `_meta` names none. */
export const headerTraceparent: FiberRef.FiberRef<string | undefined> = FiberRef.unsafeMake<string | undefined>(
  undefined,
)

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** A W3C traceparent as the parent span, when it is well formed (and not all zeros). */
export const parseTraceparent = (value: unknown): Option.Option<Tracer.ExternalSpan> => {
  if (typeof value !== "string") return Option.none()
  const match = TRACEPARENT.exec(value.trim().toLowerCase())
  if (match === null || match[1] === "ff") return Option.none()
  const [, , traceId, spanId, flags] = match as unknown as [string, string, string, string, string]
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return Option.none()
  return Option.some(Tracer.externalSpan({ traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 }))
}

const toolCalls = Metric.counter("svc_mcp.tool.calls", {
  description: "tool calls, by tool and outcome",
  incremental: true,
})
const toolDuration = Metric.histogram(
  "svc_mcp.tool.duration",
  MetricBoundaries.exponential({ start: 1, factor: 2, count: 18 }),
  "tool call latency in milliseconds, by tool and outcome",
)
const serviceRequests = Metric.counter("svc_mcp.service.requests", {
  description: "requests to the service, by status",
  incremental: true,
})
const logins = Metric.counter("svc_mcp.logins", { description: "logins to the service, by outcome", incremental: true })
const inFlight = Metric.gauge("svc_mcp.tool.in_flight", { description: "tool calls in flight" })

export const makeHooks = (): Hooks => {
  let running = 0
  const toolCall: Hooks["toolCall"] = (tool, selector, endpoint) => (self, describe) =>
    Effect.suspend(() => {
      const started = performance.now()
      const attributes: Record<string, unknown> = { "mcp.method.name": "tools/call", "gen_ai.tool.name": tool }
      if (selector !== undefined) attributes["svc.selector"] = selector
      if (endpoint !== undefined) attributes["svc.endpoint"] = endpoint
      // The caller's `_meta` trace context (kept by the adapter) wins over the HTTP header.
      return Effect.flatMap(
        Effect.zip(TraceContext.TraceContext, FiberRef.get(headerTraceparent)),
        ([trace, header]) => {
          const parent = parseTraceparent(trace.traceparent)
          const resolved = Option.isSome(parent) ? parent : parseTraceparent(header)
          return Effect.suspend(() => Metric.set(inFlight, ++running)).pipe(
            Effect.zipRight(self),
            Effect.onExit((exit) => {
              const { outcome, kind } = describe(exit)
              const tags = labels(tool, outcome)
              running--
              return Effect.all([
                Effect.annotateCurrentSpan(
                  kind === undefined ? { "svc.outcome": outcome } : { "svc.outcome": outcome, "error.type": kind },
                ),
                Metric.increment(Metric.taggedWithLabels(toolCalls, tags)),
                Metric.update(Metric.taggedWithLabels(toolDuration, tags), performance.now() - started),
                Metric.set(inFlight, running),
              ])
            }),
            Effect.withSpan(`tools/call ${tool}`, {
              kind: "server",
              attributes,
              captureStackTrace: false,
              ...(Option.isSome(resolved) ? { parent: resolved.value } : {}),
            }),
          )
        },
      )
    })
  const serviceRequest: Hooks["serviceRequest"] = (method, path) => (self) =>
    self.pipe(
      Effect.tap(({ status }) =>
        Effect.zipRight(
          Effect.annotateCurrentSpan("http.response.status_code", status),
          Metric.increment(Metric.tagged(serviceRequests, "status", String(status))),
        ),
      ),
      Effect.tapErrorCause(() => Metric.increment(Metric.tagged(serviceRequests, "status", "none"))),
      Effect.withSpan(`${method} ${path}`, {
        kind: "client",
        attributes: { "http.request.method": method, "url.path": path },
        captureStackTrace: false,
      }),
    )
  const login: Hooks["login"] = (self) =>
    self.pipe(
      Effect.onExit((exit) =>
        Metric.increment(Metric.tagged(logins, "outcome", Exit.isSuccess(exit) ? "ok" : "error")),
      ),
      Effect.withSpan("login", { kind: "client", captureStackTrace: false }),
    )
  return { toolCall, serviceRequest, login }
}

const labels = (tool: string, outcome: string) => [MetricLabel.make("tool", tool), MetricLabel.make("outcome", outcome)]

/** The hooks as configured: identity functions unless telemetry is on. */
export const hooks: Effect.Effect<Hooks> = Effect.map(Effect.serviceOption(Telemetry), (found) =>
  Option.getOrElse(Option.flatten(found), () => NONE),
)

const NONE: Hooks = {
  toolCall: () => (self) => self,
  serviceRequest: () => (self) => self,
  login: (self) => self,
}

export interface TelemetrySettings {
  readonly serviceName: string
  readonly serviceVersion: string
  readonly metricIntervalMs: number
}

/**
 * Telemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (the exporters read it and
 * the other OTEL_EXPORTER_OTLP_* variables themselves); otherwise no hooks, and
 * nothing loaded.
 */
export const layer: Layer.Layer<Telemetry> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const endpoint = yield* Effect.orDie(Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")))
    if (Option.isNone(endpoint)) return Layer.succeed(Telemetry, Option.none())
    const settings: TelemetrySettings = {
      serviceName: yield* Effect.orDie(Config.withDefault(Config.nonEmptyString("OTEL_SERVICE_NAME"), "svc-mcp")),
      serviceVersion: VERSION,
      metricIntervalMs: yield* Effect.orDie(Config.withDefault(Config.integer("OTEL_METRIC_EXPORT_INTERVAL"), 60_000)),
    }
    const sdk = yield* Effect.promise(() => import("./TelemetrySdk.js"))
    yield* Effect.logInfo(`telemetry: exporting traces and metrics over OTLP/HTTP to ${endpoint.value}`)
    return Layer.merge(Layer.succeed(Telemetry, Option.some(makeHooks())), sdk.layer(settings))
  }),
)
