/**
 * Telemetry's settings: on when OTEL_EXPORTER_OTLP_ENDPOINT is set, with
 * OTEL_SERVICE_NAME and OTEL_METRIC_EXPORT_INTERVAL read here too, so that a
 * malformed one is refused at start like every other variable. The exporters
 * read the other OTEL_EXPORTER_OTLP_* variables themselves.
 */

import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { VERSION } from "../Shared/Version.js"
import { type ConfigError, optional, optionalWith, positive, read, refuse } from "./Read.js"
import * as Setting from "./Setting.js"

export interface TelemetrySettings {
  /**
   * Where traces and metrics go over OTLP/HTTP, for the start-up line: the
   * exporters read it, and the other OTEL_EXPORTER_OTLP_* variables, themselves.
   */
  readonly endpoint: string
  readonly serviceName: string
  readonly serviceVersion: string
  readonly metricIntervalMs: number
}

const DEFAULT_METRIC_INTERVAL_MS = 60_000

const endpoint = optionalWith("OTEL_EXPORTER_OTLP_ENDPOINT", (value) => {
  const text = value.trim()
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
    ? Either.right(text)
    : Either.left(
        refuse(
          "OTEL_EXPORTER_OTLP_ENDPOINT",
          `is not an http:// or https:// URL (${JSON.stringify(text)})`,
          "give the collector's OTLP/HTTP base URL, e.g. http://localhost:4318, or unset it to export nothing",
        ),
      )
})

/** The settings, or None when telemetry is off. */
const telemetry: Setting.Setting<Option.Option<TelemetrySettings>> = Setting.map(
  Setting.all({
    endpoint,
    serviceName: Setting.map(optional("OTEL_SERVICE_NAME"), (name) => Option.getOrElse(name, () => "svc-mcp").trim()),
    metricIntervalMs: positive("OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_METRIC_INTERVAL_MS, "milliseconds", 10_000),
  }),
  ({ endpoint, ...rest }) =>
    Option.map(endpoint, (at): TelemetrySettings => ({ endpoint: at, serviceVersion: VERSION, ...rest })),
)

export const load: Effect.Effect<Option.Option<TelemetrySettings>, ConfigError> = read(telemetry)
