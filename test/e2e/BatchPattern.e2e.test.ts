/**
 * A batch's pattern cannot stall the server: `\^(a|a)*!$\` over a stack named by 32 `a`s (what
 * V8's backtracking engine took 25 s over, the server unanswering meanwhile) is read by a linear
 * engine, by the question's plan and by the sandbox alike, over HTTP, while `/healthz` answers
 * promptly. A regex the engine refuses is refused with its reason, and nothing is sent. Nor can a
 * pattern RE2 reads: on the 300-stack estate, the 9 KB regex that held `/healthz` for 303 s, its 24
 * copies on their lines (67.7 s), and a regex compiling past the program's limit are refused with
 * the limit named, nothing asked or sent; the costliest pattern within the limits is asked over
 * every stack's name and sent; `/healthz` answers within a second all the while.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const NAME = "a".repeat(32)
const BACKTRACKING = "\\^(a|a)*!$\\"
/** Far from both: the linear engine reads the pattern in milliseconds, the backtracking one took 25 s. */
const CALL_BOUND_MS = 5_000
const HEALTH_BOUND_MS = 1_000

/** 2,002 RE2 instructions in 18 characters; 9 KB of it compiled for seconds and matched one name for seconds. */
const UNIT = "(?i)(?:\\pL?){1000}"
const HOSTILE = `\\${UNIT.repeat(473)}\\`

const accept = (state: string) => ({ inputResponses: { confirm: { action: "accept" } }, requestState: state })

/** `/healthz` asked again and again until `stop`: the longest it took to answer, and how often it did. */
const probe = (url: string) => {
  const health = url.replace("/mcp", "/healthz")
  const slowest = { ms: 0, answered: 0, failed: 0 }
  let running = true
  const done = (async () => {
    while (running) {
      const start = performance.now()
      // A server stopped under it (the test ended early) ends the probe, counted, not thrown.
      const status = await fetch(health).then(
        (answer) => answer.status,
        () => 0,
      )
      if (status !== 200) slowest.failed++
      slowest.ms = Math.max(slowest.ms, performance.now() - start)
      slowest.answered++
      if (status === 0) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  return {
    slowest,
    stop: async () => {
      running = false
      await done
    },
  }
}

describe("a batch's backtracking pattern over HTTP", () => {
  it.scopedLive(
    "is asked and sent promptly, and /healthz answers all the while; a refused regex sends nothing",
    () =>
      Effect.gen(function* () {
        const server = yield* Spawn.serveHttp({ SVC_CONFIRM: "svc_execute:batch_*" }, ["--sandbox"])
        const call = (params: Record<string, unknown>) =>
          Effect.map(
            HttpMcp.modern(server.url, "tools/call", params, { meta: HttpMcp.modernMeta("raw", { elicitation: {} }) }),
            (answer): Any => answer.body.result,
          )
        const created = yield* call({
          name: "svc_create",
          arguments: { resource_type: "stack", params: { name: NAME, config: {} } },
        })
        expect(created.isError, JSON.stringify(created)).toBeFalsy()

        const batch = {
          name: "svc_execute",
          arguments: { operation: "batch_deploy_stack", params: { pattern: BACKTRACKING } },
        }
        const health = probe(server.url)
        const asking = performance.now()
        const asked = yield* call(batch)
        const askedIn = performance.now() - asking
        expect(asked.resultType, JSON.stringify(asked).slice(0, 600)).toBe("input_required")
        // The plan read every stack's name through the pattern: none ends in `!`.
        expect(asked.inputRequests.confirm.params.message).toContain("matches no stack now: nothing would run")
        const sending = performance.now()
        const sent = yield* call({ ...batch, ...accept(asked.requestState) })
        const sentIn = performance.now() - sending
        yield* Effect.promise(() => health.stop())
        expect(sent.isError, JSON.stringify(sent)).toBeFalsy()
        expect(askedIn).toBeLessThan(CALL_BOUND_MS)
        expect(sentIn).toBeLessThan(CALL_BOUND_MS)
        expect(health.slowest.answered).toBeGreaterThan(0)
        expect(health.slowest.failed).toBe(0)
        expect(health.slowest.ms).toBeLessThan(HEALTH_BOUND_MS)

        // A look-ahead, which Rust's regex does not read: refused with the engine's reason, before any question.
        const updates = call({ name: "svc_list_detail", arguments: { list_type: "updates", fields: ["*"] } })
        const before = JSON.stringify((yield* updates).structuredContent)
        const refused = yield* call({
          name: "svc_execute",
          arguments: { operation: "batch_deploy_stack", params: { pattern: "web, \\(?=a)\\" } },
        })
        expect(refused.isError).toBe(true)
        expect(refused.structuredContent.error).toMatchObject({
          kind: "invalid_params",
          endpoint: "execute/BatchDeployStack",
        })
        const text: string = refused.content[0].text
        expect(text).toContain("nothing was sent")
        expect(text).toContain("- params.pattern: the regex \\(?=a)\\ is not one the service reads")
        expect(text).toContain("invalid or unsupported Perl syntax")
        // Nothing was sent: the updates are as they were.
        expect(JSON.stringify((yield* updates).structuredContent)).toBe(before)
      }),
    90_000,
  )
})

describe("a batch's costly patterns over HTTP, on the 300-stack estate", () => {
  it.scopedLive(
    "are refused with the limit named, nothing asked or sent, or asked and sent within the limits; /healthz answers all the while",
    () =>
      Effect.gen(function* () {
        const server = yield* Spawn.serveHttp({ SVC_CONFIRM: "svc_execute:batch_*" }, [
          "--sandbox",
          "--estate",
          "large",
        ])
        const call = (params: Record<string, unknown>) =>
          Effect.map(
            HttpMcp.modern(server.url, "tools/call", params, { meta: HttpMcp.modernMeta("raw", { elicitation: {} }) }),
            (answer): Any => answer.body.result,
          )
        const batch = (pattern: string) => ({
          name: "svc_execute",
          arguments: { operation: "batch_deploy_stack", params: { pattern } },
        })
        const updates = call({ name: "svc_list_detail", arguments: { list_type: "updates", fields: ["*"] } })
        const before = JSON.stringify((yield* updates).structuredContent)
        // A first batch loads what every batch's call runs through (and is asked, never answered), a
        // first /healthz its own: what is measured is the patterns' cost alone.
        expect((yield* call(batch("nothing-*"))).resultType).toBe("input_required")
        yield* Effect.promise(() => fetch(server.url.replace("/mcp", "/healthz")))
        const health = probe(server.url)

        const refusals: Array<[string, string]> = [
          [HOSTILE, "has 8,516 characters; a regex may have at most 1,024"],
          [Array.from({ length: 24 }, () => HOSTILE).join("\n"), "a pattern may have at most 16,384"],
          [`\\${UNIT.repeat(6)}\\`, "compile to 12,002 RE2 instructions"],
          [Array.from({ length: 1_001 }, (_, i) => `web-${i}`).join(","), "a pattern may have at most 1,000"],
        ]
        for (const [pattern, words] of refusals) {
          const refused = yield* call(batch(pattern))
          expect(refused.isError, JSON.stringify(refused).slice(0, 400)).toBe(true)
          expect(refused.structuredContent.error).toMatchObject({
            kind: "invalid_params",
            endpoint: "execute/BatchDeployStack",
          })
          const text: string = refused.content[0].text
          expect(text).toContain("nothing was sent")
          expect(text).toContain(words)
        }
        // Nothing was asked, nor sent: the updates are as they were.
        expect(JSON.stringify((yield* updates).structuredContent)).toBe(before)

        // The costliest within the limits: 8,008 instructions, read over every stack's name, then by the sandbox.
        const within = batch(`\\${UNIT.repeat(4)}\\d#\\, billing-*`)
        const asked = yield* call(within)
        expect(asked.resultType, JSON.stringify(asked).slice(0, 400)).toBe("input_required")
        expect(asked.inputRequests.confirm.params.message).toMatch(/matches \d+ stacks now: /)
        const sent = yield* call({ ...within, ...accept(asked.requestState) })
        yield* Effect.promise(() => health.stop())
        expect(sent.isError, JSON.stringify(sent).slice(0, 400)).toBeFalsy()
        expect(health.slowest.answered).toBeGreaterThan(0)
        expect(health.slowest.failed).toBe(0)
        expect(health.slowest.ms).toBeLessThan(HEALTH_BOUND_MS)
      }),
    120_000,
  )
})
