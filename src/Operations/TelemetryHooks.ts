/**
 * The hooks of telemetry that is on (Telemetry.ts says what they record): a span, counts and
 * latency per tool call, a span per request to the service and per login. Imported when
 * telemetry is configured: a start without it loads none of it.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as Asked from "../Call/Asked.js"
import * as CallContext from "../Call/Context.js"
import type * as SvcHooks from "../Service/Hooks.js"

export interface Hooks {
  /** Around a tool call: its span, its count, latency and the calls in flight. */
  readonly toolCall: (
    tool: string,
    selector: string | undefined,
    endpoint: string | undefined,
  ) => <A, E, R>(self: Effect.Effect<A, E, R>, describe: (exit: Exit.Exit<A, E>) => Outcome) => Effect.Effect<A, E, R>
}

/** How a tool call ended, for its span and metrics. */
export interface Outcome {
  readonly outcome: string
  readonly kind?: string
}
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

/** A tool call's span: what it says of the call, and its parent. */
const spanOf = (
  tool: string,
  selector: string | undefined,
  endpoint: string | undefined,
  { trace, traceparent, identity, asked }: CallContext.CallContext,
) => {
  const attributes: Record<string, unknown> = { "mcp.method.name": "tools/call", "gen_ai.tool.name": tool }
  if (selector !== undefined) attributes["svc.selector"] = selector
  if (endpoint !== undefined) attributes["svc.endpoint"] = endpoint
  // A signed-in person, by the claim that names them (never the token).
  if (Option.isSome(identity)) attributes["enduser.id"] = identity.value.name
  // Why the call was asked: the settings and their patterns, no name of a resource.
  if (Option.isSome(asked)) attributes["svc.confirmation"] = Asked.attribute(asked.value)
  // The call's `_meta` trace context wins over its HTTP request's header.
  const parent = parseTraceparent(trace.traceparent)
  return { attributes, parent: Option.isSome(parent) ? parent : parseTraceparent(Option.getOrUndefined(traceparent)) }
}

/** The hooks of telemetry that is on: for tool calls, and for the service's client (requests, logins). */
export const makeHooks = (): Hooks & SvcHooks.ClientHooks => {
  let running = 0
  const toolCall: Hooks["toolCall"] = (tool, selector, endpoint) => (self, describe) =>
    Effect.suspend(() => {
      const started = performance.now()
      return Effect.flatMap(CallContext.get, (context) => {
        const { attributes, parent } = spanOf(tool, selector, endpoint, context)
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
            ...(Option.isSome(parent) ? { parent: parent.value } : {}),
          }),
        )
      })
    })
  const serviceRequest: SvcHooks.ClientHooks["serviceRequest"] = (method, path) => (self) =>
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
  const login: SvcHooks.ClientHooks["login"] = (self) =>
    self.pipe(
      Effect.onExit((exit) =>
        Metric.increment(Metric.tagged(logins, "outcome", Exit.isSuccess(exit) ? "ok" : "error")),
      ),
      Effect.withSpan("login", { kind: "client", captureStackTrace: false }),
    )
  return { toolCall, serviceRequest, login }
}

const labels = (tool: string, outcome: string) => [MetricLabel.make("tool", tool), MetricLabel.make("outcome", outcome)]
