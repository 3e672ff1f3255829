/**
 * Logs go to stderr, one line each, whatever they hold: on stdio, stdout belongs to the protocol.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { escapeControls } from "../Shared/Controls.js"

const render = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts
    .map((part) => (typeof part === "string" ? part : Cause.isCause(part) ? Cause.pretty(part) : JSON.stringify(part)))
    .join(" ")
}

/**
 * One log entry as its line on stderr. What it holds may come from outside (a service's error
 * echoing a name, an answer's text): each part is escaped (Shared/Controls.ts), so that no text
 * can end the line and write one of its own, nor turn its order. A cause's trace is on the line
 * too, its line ends escaped.
 */
export const format = ({
  logLevel,
  message,
  cause,
  annotations,
  spans,
  date,
}: Pick<
  Logger.Logger.Options<unknown>,
  "logLevel" | "message" | "cause" | "annotations" | "spans" | "date"
>): string => {
  let line = `${date.toISOString()} ${logLevel.label} ${escapeControls(render(message))}`
  for (const [key, value] of HashMap.toEntries(annotations)) {
    line += ` ${escapeControls(key)}=${escapeControls(JSON.stringify(value) ?? String(value))}`
  }
  for (const span of List.toArray(spans)) line += ` ${escapeControls(span.label)}=${date.getTime() - span.startTime}ms`
  if (!Cause.isEmpty(cause)) line += ` cause=${escapeControls(Cause.pretty(cause))}`
  return line
}

const stderrLogger = Logger.make((options) => {
  process.stderr.write(`${format(options)}\n`)
})

const toStderr = Logger.filterLogLevel(stderrLogger, (level) => LogLevel.greaterThanEqual(level, LogLevel.Info))

/**
 * Runs `self` with Effect's default logger, which writes to stdout, replaced by stderr's. stderr
 * shows Info and up (effect's default minimum, left as it is), even where a tool call lowers the
 * minimum for the client's log notifications. Set on the program's fiber, which every other
 * inherits, rather than by `Logger.replace`'s layers: three layers are some 300 of a start's steps.
 */
export const toStderrOnly = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locallyWith(self, FiberRef.currentLoggers, (loggers) =>
    HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), toStderr),
  )
