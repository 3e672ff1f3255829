/**
 * The W3C trace context a client sent with a call (`_meta.traceparent`,
 * `tracestate`, `baggage`), kept in the call's context (Call/Context.ts) so
 * that telemetry can continue the client's trace. Empty when the client sent none.
 */
import type { TraceContext } from "../Call/Context.js"

export type TraceContextShape = TraceContext

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
