/**
 * A 2025-era client over Streamable HTTP, spoken raw: it initializes, keeps
 * the `Mcp-Session-Id` it is given, and reads each POST's event stream message
 * by message, so that a test can answer a question as it likes (or as someone
 * else), replay an answer, or cancel a call.
 */
import * as JSON_HEADERS_MODULE from "./HttpMcp.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC messages field by field
type Any = any

export const VERSION = "2025-11-25"

export interface Stream {
  /** The next JSON-RPC message on the POST's event stream; undefined once it ends. */
  readonly next: () => Promise<Any | undefined>
  readonly close: () => Promise<void>
}

/** The messages of an event stream (or of a JSON answer, as one message). */
export const streamOf = (response: Response): Stream => {
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    let given = false
    return {
      next: async () => {
        if (given) return undefined
        given = true
        const text = await response.text()
        return text === "" ? undefined : JSON.parse(text)
      },
      close: async () => {},
    }
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  const next = async (): Promise<Any | undefined> => {
    for (;;) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n")
        if (data !== "") return JSON.parse(data)
        continue
      }
      const { done, value } = await reader.read()
      if (done) return undefined
      buffer += decoder.decode(value, { stream: true })
    }
  }
  return { next, close: () => reader.cancel().catch(() => undefined) }
}

export interface LegacyClient {
  /** The session the server issued at initialize, if any. */
  readonly session: string | undefined
  /** POSTs one JSON-RPC message with this client's headers (and session), as given. */
  readonly post: (message: unknown, headers?: Record<string, string>) => Promise<Response>
  /** A request, its answer's stream. */
  readonly request: (id: number, method: string, params: Record<string, unknown>) => Promise<Stream>
  /** A tools/call read to its result (no question expected). */
  readonly call: (id: number, name: string, args: Record<string, unknown>) => Promise<Any>
}

/** Initializes as a 2025-11-25 client declaring `capabilities`, sending `headers` with every request. */
export const connect = async (
  url: string,
  options: { readonly capabilities?: Record<string, unknown>; readonly headers?: Record<string, string> } = {},
): Promise<LegacyClient> => {
  const base = { ...JSON_HEADERS_MODULE.JSON_HEADERS, ...options.headers }
  const initialized = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: VERSION,
        capabilities: options.capabilities ?? {},
        clientInfo: { name: "legacy-raw", version: "1" },
      },
    }),
  })
  if (initialized.status !== 200) throw new Error(`initialize answered ${initialized.status}`)
  const session = initialized.headers.get("mcp-session-id") ?? undefined
  await streamOf(initialized).next()
  const headers = {
    ...base,
    "mcp-protocol-version": VERSION,
    ...(session === undefined ? {} : { "mcp-session-id": session }),
  }
  const post = (message: unknown, extra: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(message) })
  await post({ jsonrpc: "2.0", method: "notifications/initialized" })
  const request = async (id: number, method: string, params: Record<string, unknown>) =>
    streamOf(await post({ jsonrpc: "2.0", id, method, params }))
  const call = async (id: number, name: string, args: Record<string, unknown>) => {
    const stream = await request(id, "tools/call", { name, arguments: args })
    for (;;) {
      const message = await stream.next()
      if (message === undefined) throw new Error(`the stream of ${name} ended without its result`)
      if (message.id === id) return message
    }
  }
  return { session, post, request, call }
}

/** The answer a user gives to a question: a JSON-RPC response with the question's id. */
export const answer = (question: Any, action: "accept" | "decline") => ({
  jsonrpc: "2.0",
  id: question.id,
  result: action === "accept" ? { action, content: {} } : { action },
})
