/**
 * An empty log says why, where one read can: a deployment's container exited and since when, a
 * stack's services' containers; a log with lines says nothing more.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

describe("an empty log", () => {
  it.scopedLive("says the container exited and since when, for a deployment and a stack", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ scenario: "incident" })
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), {})
      const logs = (args: Record<string, unknown>) =>
        Effect.map(
          Effect.promise(() => client.callTool({ name: "svc_logs", arguments: args })),
          (result) => Mcp.text(result).split("\n"),
        )
      const deployment = yield* logs({ resource_type: "deployment", params: { deployment: "legacy-cron" } })
      expect(deployment).toContain(
        "[svc-mcp: the log is empty: the deployment legacy-cron: its container is exited (Exited (0) 3 days ago)]",
      )
      const stack = yield* logs({ resource_type: "stack", params: { stack: "staging-web", services: ["web"] } })
      expect(stack).toContain("[svc-mcp: the log is empty: the stack staging-web: web: exited (Exited (0) 3 days ago)]")
      // A log with lines is the log alone.
      const running = yield* logs({ resource_type: "stack", params: { stack: "web", services: [] } })
      expect(running.some((line) => line.includes("the log is empty"))).toBe(false)
    }),
  )
})
