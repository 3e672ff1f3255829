/**
 * Messages of any size over stdio: one just within the largest accepted is served, one
 * just over it is refused with a JSON-RPC error naming its id (or logged when it has
 * none), and the server serves on. The SDK's own stdio transport closed itself, and so
 * ended the server, on a line over its 10 MB buffer.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { MAX_MESSAGE_BYTES } from "../../src/Mcp/Stdio/StdioFraming.js"
import * as Spawn from "../support/Spawn.js"

const line = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`

/** A tools/call of exactly `bytes` bytes, its size made up by a long tag name to look for. */
const callOfSize = (id: number | string, bytes: number) => {
  const shape = (pad: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "svc_get", arguments: { resource_type: "tag", params: { tag: pad } } },
    })
  const text = shape("x".repeat(bytes - shape("").length))
  expect(Buffer.byteLength(text)).toBe(bytes)
  return `${text}\n`
}

const INITIALIZE =
  line({
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  }) + line({ method: "notifications/initialized" })

describe("the stdio server and the largest message", () => {
  it.scopedLive(
    "serves a message of exactly the bound, refuses one byte more by its id, skips an oversized notification, and serves on",
    () =>
      Effect.gen(function* () {
        const input =
          INITIALIZE +
          callOfSize(1, MAX_MESSAGE_BYTES) +
          callOfSize("over", MAX_MESSAGE_BYTES + 1) +
          `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { pad: "y".repeat(12 * 1024 * 1024) } })}\n` +
          line({ id: 2, method: "tools/list" })
        const { code, stdout, stderr } = yield* Spawn.run({}, ["--sandbox"], input)
        expect(code).toBe(0)
        type Answer = { id: unknown; result?: { isError?: boolean }; error?: { code: number; message: string } }
        // Responses only (log notifications have no id), by id: the refusal does not wait for the call before it.
        const answers = new Map(
          stdout
            .trim()
            .split("\n")
            .map((text) => JSON.parse(text) as Answer & { method?: string })
            .filter((message) => message.method === undefined)
            .map((answer) => [answer.id, answer]),
        )
        expect([...answers.keys()].sort()).toEqual([0, 1, 2, "over"])
        // Within the bound: a tool result (the service says no such tag), not a protocol error.
        expect(answers.get(1)?.error).toBeUndefined()
        expect(answers.get(1)?.result?.isError).toBe(true)
        expect(answers.get("over")?.error).toEqual({
          code: -32600,
          message: `Invalid Request: the message is ${MAX_MESSAGE_BYTES + 1} bytes; the largest accepted is ${MAX_MESSAGE_BYTES} bytes`,
        })
        expect(answers.get(2)?.result).toHaveProperty("tools")
        expect(stderr).toMatch(/a message without a readable id was skipped/)
      }),
  )
})
