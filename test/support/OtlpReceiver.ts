/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the tests: it keeps every export the
 * server sends (JSON encoding, as the OTLP/HTTP exporters send it).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Servers from "./Servers.js"

export interface Attribute {
  readonly key: string
  readonly value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean }
}

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<Attribute>
}

export interface DataPoint {
  readonly attributes: ReadonlyArray<Attribute>
  readonly asInt?: string | number
  readonly asDouble?: number
  readonly count?: string | number
}

export interface Metric {
  readonly name: string
  readonly sum?: { readonly dataPoints: ReadonlyArray<DataPoint> }
  readonly gauge?: { readonly dataPoints: ReadonlyArray<DataPoint> }
  readonly histogram?: { readonly dataPoints: ReadonlyArray<DataPoint> }
}

class OtlpReceiver {
  readonly bodies: Array<{ readonly path: string; readonly text: string }> = []
  url = ""
  private readonly server = Http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      this.bodies.push({ path: req.url ?? "", text: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  stop(): Promise<void> {
    return Servers.close(this.server)
  }

  private exports(path: string): Array<unknown> {
    return this.bodies.filter((b) => b.path === path).map((b) => JSON.parse(b.text))
  }

  spans(): Array<Span & { readonly resource: ReadonlyArray<Attribute> }> {
    return this.exports("/v1/traces").flatMap((body) =>
      (
        body as {
          resourceSpans: Array<{
            resource: { attributes: Array<Attribute> }
            scopeSpans: Array<{ spans: Array<Span> }>
          }>
        }
      ).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ ...span, resource: rs.resource.attributes }))),
      ),
    )
  }

  /** The metrics of the latest export (cumulative: each export holds the totals so far). */
  latestMetrics(): Array<Metric> {
    const all = this.exports("/v1/metrics") as Array<{
      resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<Metric> }> }>
    }>
    const last = all.at(-1)
    return last === undefined ? [] : last.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
  }
}

export const attribute = (attributes: ReadonlyArray<Attribute>, key: string): unknown => {
  const value = attributes.find((a) => a.key === key)?.value
  if (value === undefined) return undefined
  if (value.intValue !== undefined) return Number(value.intValue)
  return value.stringValue ?? value.doubleValue ?? value.boolValue
}

export const scoped = Effect.acquireRelease(
  Effect.promise(() => new OtlpReceiver().start()),
  (receiver) => Effect.promise(() => receiver.stop()),
)
