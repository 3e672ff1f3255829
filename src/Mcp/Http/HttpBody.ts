/**
 * The body of a POST to /mcp, read once where the socket is known (Http.ts).
 */
import type * as NodeHttp from "node:http"
import type { NodeIncomingMessageLike } from "@modelcontextprotocol/node"

/**
 * A POST's body of a declared, bounded length, read and parsed here, once: given
 * to the SDK's handler parsed, it neither copies the request nor reads it again
 * (a clone's stream costs more than the parse). Any other body (chunked, over
 * the bound, not a POST) is left to the SDK, which reads and bounds it itself;
 * one that is not JSON is handed back as it came, for the SDK's own answer.
 */
export const bodyOf = async (
  req: NodeHttp.IncomingMessage,
  declared: number,
  maxBytes: number,
): Promise<{ readonly parsed: unknown } | { readonly text: string } | undefined> => {
  if (req.method !== "POST" || req.headers["content-length"] === undefined || declared > maxBytes) {
    return undefined
  }
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString("utf8")
  // The adapter writes a parsed body out again with JSON.stringify, which recurses: a body nested
  // deeper than it can go is left to the SDK's own reading, which answers it with a 400.
  if (deeperThan(text, MAX_NESTING)) return { text }
  try {
    return { parsed: JSON.parse(text) }
  } catch {
    return { text }
  }
}

const MAX_NESTING = 256

/** Whether the JSON text opens more than `limit` arrays or objects within each other (strings skipped). */
const deeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/** The request with its body, read already, given again. */
export const replayed = (req: NodeHttp.IncomingMessage, text: string): NodeIncomingMessageLike => ({
  ...(req.method === undefined ? {} : { method: req.method }),
  ...(req.url === undefined ? {} : { url: req.url }),
  headers: req.headers,
  async *[Symbol.asyncIterator]() {
    yield Buffer.from(text, "utf8")
  },
})
