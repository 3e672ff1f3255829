/**
 * The OpenTelemetry SDK and its OTLP/HTTP exporters, behind @effect/opentelemetry.
 * Loaded by Telemetry.ts with a dynamic import, and only when telemetry is
 * configured; its packages are imported dynamically too, so that a bundle
 * keeps them out of start-up.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TelemetrySettings } from "../Settings/Telemetry.js"

export const layer = (settings: TelemetrySettings): Layer.Layer<never> =>
  Layer.unwrapEffect(
    Effect.promise(async () => {
      const [NodeSdk, TraceExporter, MetricExporter, TraceBase, SdkMetrics] = await Promise.all([
        import("@effect/opentelemetry/NodeSdk"),
        import("@opentelemetry/exporter-trace-otlp-http"),
        import("@opentelemetry/exporter-metrics-otlp-http"),
        import("@opentelemetry/sdk-trace-base"),
        import("@opentelemetry/sdk-metrics"),
      ])
      return NodeSdk.layer(() => ({
        resource: { serviceName: settings.serviceName, serviceVersion: settings.serviceVersion },
        spanProcessor: new TraceBase.BatchSpanProcessor(new TraceExporter.OTLPTraceExporter()),
        metricReader: new SdkMetrics.PeriodicExportingMetricReader({
          exporter: new MetricExporter.OTLPMetricExporter(),
          exportIntervalMillis: settings.metricIntervalMs,
        }),
      }))
    }),
  )
