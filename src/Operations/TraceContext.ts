/**
 * The W3C trace context a client sent with a call (`_meta.traceparent`,
 * `tracestate`, `baggage`), kept with the fiber that serves the call so that
 * telemetry can continue the client's trace. Empty when the client sent none.
 */
import * as Context from "effect/Context"

export interface TraceContextShape {
  /** e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01` */
  readonly traceparent?: string
  readonly tracestate?: string
  readonly baggage?: string
}

export class TraceContext extends Context.Reference<TraceContext>()("svc-mcp/TraceContext", {
  defaultValue: (): TraceContextShape => ({}),
}) {}

const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/

/** Header values are short; anything longer is not a trace context worth keeping. */
const header = (value: unknown): string | undefined =>
  typeof value === "string" && value.length <= 8192 && !/[\r\n]/.test(value) ? value : undefined

/**
 * The trace context in a request's `_meta`, or undefined when it has none. A
 * malformed `traceparent` is dropped with the rest: state without a parent
 * belongs to no trace.
 */
export const fromMeta = (meta: unknown): TraceContextShape | undefined => {
  if (typeof meta !== "object" || meta === null) return undefined
  const { traceparent, tracestate, baggage } = meta as Record<string, unknown>
  if (typeof traceparent !== "string" || !TRACEPARENT.test(traceparent)) return undefined
  const state = header(tracestate)
  const bag = header(baggage)
  return {
    traceparent,
    ...(state === undefined ? {} : { tracestate: state }),
    ...(bag === undefined ? {} : { baggage: bag }),
  }
}
