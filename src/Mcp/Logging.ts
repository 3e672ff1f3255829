/**
 * Log notifications to the MCP client: what the server does (service calls,
 * logins, retries) at the level the client asked for with logging/setLevel.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { type LoggingLevel, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

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

/** Until the client sets a level, it gets info and above. */
export const DEFAULT_LEVEL: LoggingLevel = "info"

/**
 * Installs the logging/setLevel handler on `server` and returns the logger that
 * forwards to it. Messages hold no secret: nothing logged anywhere does.
 */
export interface ClientLog {
  readonly logger: Logger.Logger<unknown, void>
  /** The least level worth producing: debug only when the client asked for it; info and up always, for stderr. */
  readonly minimum: () => LogLevel.LogLevel
}

export const attach = (server: Server): ClientLog => {
  let threshold = SEVERITY.indexOf(DEFAULT_LEVEL)
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    threshold = SEVERITY.indexOf(request.params.level)
    return {}
  })
  const minimum = () => (threshold === 0 ? LogLevel.Debug : LogLevel.Info)
  const logger = Logger.make<unknown, void>(({ logLevel, message, cause }) => {
    const level = levelOf(logLevel)
    if (SEVERITY.indexOf(level) < threshold) return
    const parts = Array.isArray(message) ? message : [message]
    const text = parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ")
    const data = Cause.isEmpty(cause) ? text : `${text}: ${Cause.pretty(cause).split("\n")[0]}`
    // A notification that cannot be sent (the client is gone) is not worth failing a call for.
    server.sendLoggingMessage({ level, logger: "svc-mcp", data }).catch(() => undefined)
  })
  return { logger, minimum }
}
