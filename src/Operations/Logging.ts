/**
 * Logs go to stderr, one line each: on stdio, stdout belongs to the protocol.
 */
import * as Cause from "effect/Cause"
import * as HashMap from "effect/HashMap"
import type * as Layer from "effect/Layer"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

const render = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts
    .map((part) => (typeof part === "string" ? part : Cause.isCause(part) ? Cause.pretty(part) : JSON.stringify(part)))
    .join(" ")
}

const stderrLogger = Logger.make(({ logLevel, message, cause, annotations, spans, date }) => {
  let line = `${date.toISOString()} ${logLevel.label} ${render(message)}`
  for (const [key, value] of HashMap.toEntries(annotations)) line += ` ${key}=${JSON.stringify(value)}`
  for (const span of List.toArray(spans)) line += ` ${span.label}=${date.getTime() - span.startTime}ms`
  if (!Cause.isEmpty(cause)) line += `\n${Cause.pretty(cause)}`
  process.stderr.write(`${line}\n`)
})

/**
 * Replaces Effect's default logger, which writes to stdout. stderr shows Info and up (effect's
 * default minimum, left as it is), even where a tool call lowers the minimum for the client's
 * log notifications.
 */
export const layer: Layer.Layer<never> = Logger.replace(
  Logger.defaultLogger,
  Logger.filterLogLevel(stderrLogger, (level) => LogLevel.greaterThanEqual(level, LogLevel.Info)),
)
