import { describe, expect, it } from "@effect/vitest"
import { parseJSONRPCMessage } from "@modelcontextprotocol/server"
import * as FastCheck from "fast-check"
import { problem, reader } from "../../../src/Mcp/Stdio/StdioMessages.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

const seen = (text: string) => {
  const answers: Array<{ id: unknown; error: { code: number; message: string } }> = []
  const skipped: Array<string> = []
  const message = reader({ answer: (line) => answers.push(line), skipped: (why) => skipped.push(why) })(
    Buffer.from(text),
  )
  return { handedOn: message !== undefined, message, answers, skipped }
}

const sdkAccepts = (value: unknown) => {
  try {
    parseJSONRPCMessage(value)
    return true
  } catch {
    return false
  }
}

const json = FastCheck.jsonValue({ maxDepth: 2 })
const message = FastCheck.record(
  {
    jsonrpc: FastCheck.oneof(FastCheck.constant("2.0"), FastCheck.constant("2.0"), json),
    id: FastCheck.oneof(FastCheck.integer(), FastCheck.string({ maxLength: 5 }), FastCheck.double(), json),
    method: FastCheck.oneof(FastCheck.constantFrom("ping", "tools/list", "notifications/x"), json),
    params: FastCheck.oneof(
      FastCheck.record(
        {
          _meta: FastCheck.oneof(
            FastCheck.record({ progressToken: FastCheck.oneof(FastCheck.integer(), FastCheck.string(), json) }),
            json,
          ),
          name: json,
        },
        { requiredKeys: [] },
      ),
      json,
    ),
    result: FastCheck.oneof(FastCheck.constant({}), json),
    error: FastCheck.oneof(FastCheck.constant({ code: 1, message: "m" }), json),
    extra: json,
  },
  { requiredKeys: [] },
)

describe("a stdin line, read", () => {
  property(
    "a message the SDK accepts is handed on as the SDK reads it; a request it refuses is answered once with its id; anything else is reported once",
    [message],
    ([value]) => {
      const text = JSON.stringify(value)
      const { handedOn, message: read, answers, skipped } = seen(text)
      const parsed = JSON.parse(text) as Record<string, unknown>
      const request = "method" in parsed && (typeof parsed.id === "string" || typeof parsed.id === "number")
      if (sdkAccepts(parsed)) {
        expect(handedOn).toBe(true)
        expect(read).toEqual(parseJSONRPCMessage(parsed))
        expect(problem(parsed)).toBeUndefined()
        expect(answers).toEqual([])
        expect(skipped).toEqual([])
      } else if (request) {
        expect(handedOn).toBe(false)
        expect(answers).toHaveLength(1)
        const answer = answers[0] as { id: unknown; error: { code: number; message: string } }
        expect(answer.id).toEqual(parsed.id)
        expect(answer.error.code).toBe(-32600)
        expect(answer.error.message).toMatch(/^Invalid Request: [a-z]/)
      } else {
        expect(handedOn).toBe(false)
        expect(answers).toEqual([])
        expect(skipped).toHaveLength(1)
      }
    },
    { fastCheck: { numRuns: runs(500) } },
  )

  it("answers a request by its id, and says what is wrong in a few words", () => {
    expect(seen('{"jsonrpc":"2.0","id":1.5,"method":"ping"}').answers).toEqual([
      { jsonrpc: "2.0", id: 1.5, error: { code: -32600, message: "Invalid Request: id is not a safe integer" } },
    ])
    expect(seen('{"jsonrpc":"2.0","id":"x","method":"ping","params":[1]}').answers).toEqual([
      { jsonrpc: "2.0", id: "x", error: { code: -32600, message: "Invalid Request: params is not an object" } },
    ])
  })

  it("skips, with a reason and without a word of the content, what it cannot serve; a line not JSON gets a parse error; a response is never answered", () => {
    const notJson = seen("hunter2 is the password")
    expect(notJson.skipped).toEqual(["not JSON"])
    // JSON-RPC's parse error, with the null id it requires, and not a word of the line.
    expect(notJson.answers).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: not JSON" } },
    ])
    expect(seen('{"jsonrpc":"2.0","id":').answers.map((answer) => answer.error.code)).toEqual([-32700])
    expect(seen('[{"jsonrpc":"2.0","id":1,"method":"ping"}]').skipped).toEqual(["a batch (MCP has none)"])
    expect(seen('{"jsonrpc":"2.0","id":1,"result":[]}')).toEqual({
      handedOn: false,
      message: undefined,
      answers: [],
      skipped: ["result is not an object"],
    })
    expect(seen('{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}').answers).toEqual([])
    expect(seen("  \r").skipped).toEqual([])
  })
})
