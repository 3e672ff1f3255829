/**
 * What a line on stdin is: a message for the server, checked with the SDK's own
 * JSON-RPC schema, or a line that cannot be served.
 *
 * The SDK's stdio transport drops, without a word to the client, every line that
 * fails that schema, even a request whose id it could read: the client then waits
 * forever. Here such a request is answered with "invalid request" and its id, and
 * a line that is not JSON with "parse error" and a null id, as JSON-RPC has it; each
 * line that cannot be served is logged in one short line that says what was wrong
 * and nothing of what the line held (it may hold a secret).
 * A response from the client is never answered, whatever its shape.
 */
import { type JSONRPCMessage, parseJSONRPCMessage } from "@modelcontextprotocol/server"

/** JSON-RPC "invalid request". */
export const INVALID_REQUEST = -32600
/** JSON-RPC "parse error": the line is not JSON. */
const PARSE_ERROR = -32700

export interface Handlers {
  /** Sends the client a JSON-RPC error response; its id null where the line has none to read (not JSON). */
  readonly answer: (response: {
    readonly jsonrpc: "2.0"
    readonly id: string | number | null
    readonly error: { readonly code: number; readonly message: string }
  }) => void
  /** Reports a line that was skipped, and why, in a few words. */
  readonly skipped: (why: string) => void
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const MEMBERS = new Set(["jsonrpc", "id", "method", "params", "result", "error"])

/** What makes a parsed message not JSON-RPC, in a few words; undefined when nothing shows. */
export const problem = (value: unknown): string | undefined => {
  if (Array.isArray(value)) return "a batch (MCP has none)"
  if (!isObject(value)) return "not a JSON object"
  if (value.jsonrpc !== "2.0") return "jsonrpc is not 2.0"
  if ("method" in value && typeof value.method !== "string") return "method is not a string"
  if ("id" in value) {
    const id = value.id
    if (typeof id !== "string" && typeof id !== "number") return "id is not a string or a number"
    if (typeof id === "number" && !Number.isSafeInteger(id)) return "id is not a safe integer"
  }
  for (const key of Object.keys(value)) if (!MEMBERS.has(key)) return "a member JSON-RPC does not have"
  if ("method" in value) {
    if ("result" in value || "error" in value) return "both a method and a result or error"
    if ("params" in value) {
      const params = value.params
      if (!isObject(params)) return "params is not an object"
      if ("_meta" in params) {
        const meta = params._meta
        if (!isObject(meta)) return "params._meta is not an object"
        const token = meta.progressToken
        if (token !== undefined && typeof token !== "string" && !Number.isSafeInteger(token))
          return "the progress token is not a string or an integer"
      }
    }
    return undefined
  }
  if ("result" in value && "error" in value) return "both a result and an error"
  if ("result" in value) return isObject(value.result) ? undefined : "result is not an object"
  if ("error" in value) {
    const error = value.error
    if (!isObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== "string")
      return "error is not {code, message}"
    return undefined
  }
  return "neither a method nor a result or error"
}

/**
 * The id of a request, to answer it with an error: a JSON object with a method and a
 * string or numeric id (as parsed: past 2^53, the nearest double, as the SDK answers
 * over HTTP). Anything else, a response above all, is never answered.
 */
export const requestId = (value: unknown): string | number | undefined =>
  isObject(value) && "method" in value && (typeof value.id === "string" || typeof value.id === "number")
    ? value.id
    : undefined

/** Whether the line holds nothing but JSON whitespace: skipped without a word, as the transport does. */
const isBlank = (line: Buffer) => {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return false
  return true
}

/**
 * Reads one stdin line (without its `\n`): the message, as the SDK's schema
 * parses it, when the server can serve it; otherwise undefined, the line having
 * been answered (a request) or reported.
 */
export const reader =
  (handlers: Handlers) =>
  (line: Buffer): JSONRPCMessage | undefined => {
    if (isBlank(line)) return undefined
    let value: unknown
    try {
      value = JSON.parse(line.toString("utf8"))
    } catch {
      // JSON-RPC answers a text it cannot parse, with a null id; the client may be waiting on it.
      handlers.answer({ jsonrpc: "2.0", id: null, error: { code: PARSE_ERROR, message: "Parse error: not JSON" } })
      handlers.skipped("not JSON")
      return undefined
    }
    try {
      return parseJSONRPCMessage(value)
    } catch {
      const why = problem(value)
      const id = requestId(value)
      if (id !== undefined) {
        handlers.answer({
          jsonrpc: "2.0",
          id,
          error: { code: INVALID_REQUEST, message: `Invalid Request: ${why ?? "not a valid JSON-RPC request"}` },
        })
      } else {
        handlers.skipped(why ?? "not a valid JSON-RPC message")
      }
      return undefined
    }
  }
