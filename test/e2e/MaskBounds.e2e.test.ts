/**
 * One long log line cannot stall the server: a stack service's command of
 * 300 KB of `eyJ-` (what made the JWT pattern backtrack for half a minute) ends
 * up in its Update's logs; read through the tools over HTTP, the answer comes
 * promptly, cut to the cap with a note, and `/healthz` answers all the while.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly isError?: boolean
}

/** Far from both: linear masking reads 300 KB in milliseconds, the quadratic one took half a minute. */
const CALL_BOUND_MS = 10_000
const HEALTH_BOUND_MS = 3_000

describe("a log line built to stall masking", () => {
  it.scopedLive(
    "is read promptly over HTTP, cut to the cap, while /healthz answers",
    () =>
      Effect.gen(function* () {
        const server = yield* Spawn.serveHttp({}, ["--sandbox"])
        const { client } = yield* Clients.overHttp(server.url, { name: "svc-mcp-mask-bounds", era: "modern" })
        const health = server.url.replace("/mcp", "/healthz")
        const line = "eyJ-".repeat(75_000)
        const slowest = { ms: 0, answered: 0 }
        let running = true
        const probe = (async () => {
          while (running) {
            const start = performance.now()
            const answer = await fetch(health)
            expect(answer.status).toBe(200)
            slowest.ms = Math.max(slowest.ms, performance.now() - start)
            slowest.answered++
            await new Promise((resolve) => setTimeout(resolve, 50))
          }
        })()
        const start = performance.now()
        const result = (yield* Effect.promise(() =>
          client.callTool({
            name: "svc_execute",
            arguments: {
              operation: "deploy_stack_service",
              params: { stack: "web", service: "worker", command: [line] },
              wait: true,
              // The whole Update: every line of the output is read, not the glance's last one.
              fields: ["*"],
            },
          }),
        )) as Result
        const took = performance.now() - start
        running = false
        yield* Effect.promise(() => probe)
        const text = result.content[0]?.text ?? ""
        expect(result.isError, text.slice(0, 300)).toBeFalsy()
        expect(took).toBeLessThan(CALL_BOUND_MS)
        expect(slowest.answered).toBeGreaterThan(0)
        expect(slowest.ms).toBeLessThan(HEALTH_BOUND_MS)
        // The budget (50,000 characters by default) holds, and the cap says what it left out.
        expect(text.length).toBeLessThanOrEqual(50_000)
        expect(text).toMatch(
          /the service's answer held \d+ characters of text from the infrastructure: only its first 200000 were read/,
        )
        expect(text).toContain("eyJ-eyJ-")
      }),
    60_000,
  )
})
