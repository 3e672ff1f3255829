/**
 * Log notifications to the MCP client: what the server does (service calls,
 * logins, retries) at the level the client asked for with logging/setLevel.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { type LoggingLevel, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"

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

export interface ClientLog {
  /** Sends one log entry to this client, if its level is one the client asked for. */
  readonly send: (entry: Logger.Logger.Options<unknown>) => void
  /** Whether the client asked for debug messages, which are not produced otherwise. */
  readonly wantsDebug: () => boolean
}

/** The client whose call a fiber serves; the forwarder sends that fiber's logs there. */
export const CurrentClientLog = FiberRef.unsafeMake<ClientLog | undefined>(undefined)

/** Installed once in the runtime that serves calls; costs a lookup for a fiber serving no client. */
export const forwarder = Logger.make<unknown, void>((entry) => {
  FiberRefs.getOrDefault(entry.context, CurrentClientLog)?.send(entry)
})

/**
 * Installs the logging/setLevel handler on `server`, and returns where its logs
 * go. Messages hold no secret: nothing logged anywhere does.
 */
export const attach = (server: Server): ClientLog => {
  let threshold = SEVERITY.indexOf(DEFAULT_LEVEL)
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    threshold = SEVERITY.indexOf(request.params.level)
    return {}
  })
  return {
    wantsDebug: () => threshold === 0,
    send: ({ logLevel, message, cause }) => {
      const level = levelOf(logLevel)
      if (SEVERITY.indexOf(level) < threshold) return
      const parts = Array.isArray(message) ? message : [message]
      const text = parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ")
      const data = Cause.isEmpty(cause) ? text : `${text}: ${Cause.pretty(cause).split("\n")[0]}`
      // A notification that cannot be sent (the client is gone) is not worth failing a call for.
      server.sendLoggingMessage({ level, logger: "svc-mcp", data }).catch(() => undefined)
    },
  }
}
