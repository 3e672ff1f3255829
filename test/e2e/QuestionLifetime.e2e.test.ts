/**
 * SVC_MCP_QUESTION_TIMEOUT bounds a question's whole life, not the asking alone: a 2025-era call
 * waiting on its question ends at the lifetime with nothing sent, its room freed; a 2026-07-28
 * answer given after it is not honoured (the question is asked again, nothing sent).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Legacy from "../support/LegacyHttp.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC messages field by field
type Any = any

const LIFETIME = { SVC_CONFIRM: "svc_delete:*", SVC_MCP_QUESTION_TIMEOUT: "1s", SVC_MCP_QUESTIONS_PER_SESSION: "1" }
const LIFETIME_MS = 1_000
const deleteMonitoring = { resource_type: "stack", params: { id: "monitoring" } }
const getMonitoring = { resource_type: "stack", params: { stack: "monitoring" } }
const resultText = (message: Any): string => message?.result?.content?.[0]?.text ?? ""

describe("a question's lifetime (SVC_MCP_QUESTION_TIMEOUT=1s, its least)", () => {
  it.scopedLive(
    "2025-era: asked, never answered, the call ends after the lifetime, nothing sent; a new one is asked",
    () =>
      Effect.gen(function* () {
        const server = yield* Spawn.serveHttp(LIFETIME, ["--sandbox"])
        const client = yield* Effect.promise(() => Legacy.connect(server.url, { capabilities: { elicitation: {} } }))
        const asked = Date.now()
        const stream = yield* Effect.promise(() =>
          client.request(10, "tools/call", { name: "svc_delete", arguments: deleteMonitoring }),
        )
        const first = (yield* Effect.promise(() => stream.next())) as Any
        expect(first.method).toBe("elicitation/create")
        const ended = (yield* Effect.promise(() => stream.next())) as Any
        // Ended by the lifetime, long before the SDK's 600 s round.
        expect(Date.now() - asked).toBeGreaterThanOrEqual(LIFETIME_MS)
        expect(Date.now() - asked).toBeLessThan(60_000)
        expect(ended.result.isError).toBe(true)
        expect(resultText(ended)).toContain("SVC_MCP_QUESTION_TIMEOUT")
        // Nothing sent: the stack is there.
        const got = (yield* Effect.promise(() => client.call(11, "svc_get", getMonitoring))) as Any
        expect(got.result.isError).toBeFalsy()
        // Its room is freed (one question per session): a new question is asked.
        const again = yield* Effect.promise(() =>
          client.request(12, "tools/call", { name: "svc_delete", arguments: deleteMonitoring }),
        )
        expect(((yield* Effect.promise(() => again.next())) as Any).method).toBe("elicitation/create")
      }),
  )

  it.scopedLive("2026-07-28: an accept after the lifetime is not honoured; asked again, nothing sent", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp(LIFETIME, ["--sandbox"])
      const call = (params: Record<string, unknown>) =>
        Effect.map(
          HttpMcp.modern(server.url, "tools/call", params, { meta: HttpMcp.modernMeta("raw", { elicitation: {} }) }),
          (answer): Any => answer.body.result,
        )
      const accept = (state: string) => ({ inputResponses: { confirm: { action: "accept" } }, requestState: state })
      const params = { name: "svc_delete", arguments: deleteMonitoring }
      const first = yield* call(params)
      const asked = Date.now()
      expect(first.resultType).toBe("input_required")
      // The question was made before its answer came: past its lifetime from then, it is past it.
      yield* Effect.sleep(Math.max(0, asked + LIFETIME_MS + 100 - Date.now()))
      const late = yield* call({ ...params, ...accept(first.requestState) })
      expect(late.resultType).toBe("input_required")
      // Answered within the lifetime (at once: it is a second), the new question's accept sends the
      // delete; and the stack was still there to delete, so the late accept sent nothing.
      const sent = yield* call({ ...params, ...accept(late.requestState) })
      expect(sent.resultType).toBe("complete")
      expect(sent.isError, JSON.stringify(sent)).toBeFalsy()
      const got = yield* call({ name: "svc_get", arguments: getMonitoring })
      expect(got.isError).toBe(true)
    }),
  )
})
