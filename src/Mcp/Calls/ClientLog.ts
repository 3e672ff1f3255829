/**
 * Log notifications to the MCP client: what the server does (service calls,
 * logins, retries) at the level the client asked for. On 2026-07-28 a request
 * names its level in `_meta` (none: no log notifications for it); on the
 * earlier revisions the connection's `logging/setLevel` does, info by default.
 */
import { LOG_LEVEL_META_KEY, type LoggingLevel, type Server, type ServerContext } from "@modelcontextprotocol/server"
import * as Cause from "effect/Cause"
import * as FiberRefs from "effect/FiberRefs"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as CallContext from "../../Call/Context.js"

const SEVERITY: ReadonlyArray<LoggingLevel> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]

const levelOf = (level: LogLevel.LogLevel): LoggingLevel => {
  switch (level._tag) {
    case "Fatal":
      return "critical"
    case "Error":
      return "error"
    case "Warning":
      return "warning"
    case "Info":
      return "info"
    default:
      return "debug"
  }
}

/** Until a client on an earlier revision sets a level, it gets info and above. */
const DEFAULT_LEVEL: LoggingLevel = "info"

export type ClientLog = CallContext.ClientLog

/**
 * Installed once in the runtime that serves calls: a fiber's logs go to the
 * client of the call it serves (its context's log sink); costs a lookup for a
 * fiber serving no client.
 */
export const forwarder = Logger.make<unknown, void>((entry) => {
  const { log } = FiberRefs.getOrDefault(entry.context, CallContext.current)
  if (log._tag === "Some") log.value.send(entry)
})

/**
 * Installs the `logging/setLevel` handler of the earlier revisions on `server`,
 * and returns the level it holds.
 */
export const attach = (server: Server): (() => LoggingLevel) => {
  let level: LoggingLevel = DEFAULT_LEVEL
  server.setRequestHandler("logging/setLevel", (request) => {
    level = request.params.level
    return {}
  })
  return () => level
}

/** The level a 2026-07-28 request asked for in its `_meta`, if any. */
export const requested = (ctx: ServerContext): LoggingLevel | undefined => {
  const level = (ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined)?.[LOG_LEVEL_META_KEY]
  return typeof level === "string" && (SEVERITY as ReadonlyArray<string>).includes(level)
    ? (level as LoggingLevel)
    : undefined
}

/**
 * Where one call's logs go: notifications related to the call, so that over
 * HTTP they ride the call's own response stream. Messages hold no secret:
 * nothing logged anywhere does.
 */
export const forCall = (level: LoggingLevel, ctx: ServerContext): ClientLog => {
  const threshold = SEVERITY.indexOf(level)
  return {
    wantsDebug: threshold === 0,
    send: ({ logLevel, message, cause }) => {
      const entryLevel = levelOf(logLevel)
      if (SEVERITY.indexOf(entryLevel) < threshold) return
      const parts = Array.isArray(message) ? message : [message]
      const text = parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ")
      const data = Cause.isEmpty(cause) ? text : `${text}: ${Cause.pretty(cause).split("\n")[0]}`
      // A notification that cannot be sent (the client is gone) is not worth failing a call for.
      ctx.mcpReq
        .notify({ method: "notifications/message", params: { level: entryLevel, logger: "svc-mcp", data } })
        .catch(() => undefined)
    },
  }
}
