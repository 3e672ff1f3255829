/**
 * Logs go to stderr, one line each: on stdio, stdout belongs to the protocol.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
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
