/**
 * Stacks and deployments on a server that cannot be reached say that their state is the last
 * known, and since when (the server's open ServerUnreachable alert), in lists and at a glance.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

describe("resources on a server that cannot be reached", () => {
  it.scopedLive("carry a stale since note in lists and glances; those elsewhere carry none", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ scenario: "incident" })
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), {})
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.map(
          Effect.promise(() => client.callTool({ name, arguments: args })),
          (result) => Mcp.text(result).split("\n"),
        )
      const stale = (lines: ReadonlyArray<string>) => lines.filter((line) => line.includes("cannot be reached"))
      const note =
        /^\[svc-mcp: stale since (\d{4}-\d\d-\d\dT[\d:.]+Z): the server staging-01 cannot be reached \(NotOk\); the state shown of (.*) is the last known\]$/
      const stacks = stale(yield* call("svc_list", { resource_type: "stack" }))
      expect(stacks).toHaveLength(1)
      expect(note.exec(stacks[0] ?? "")?.[2]).toBe("staging-web")
      const deployments = stale(yield* call("svc_list", { resource_type: "deployment" }))
      expect(note.exec(deployments[0] ?? "")?.[2]).toBe("legacy-cron")
      const glance = stale(
        yield* call("svc_get", { resource_type: "deployment", params: { deployment: "legacy-cron" } }),
      )
      expect(note.exec(glance[0] ?? "")?.[2]).toBe("legacy-cron")
      // The time is the server's open ServerUnreachable alert's, as the sandbox holds it.
      const open = sandbox.world.watch.alerts.find((a) => !a.resolved && a.data.type === "ServerUnreachable")
      expect(open).toBeDefined()
      expect(note.exec(stacks[0] ?? "")?.[1]).toBe(new Date(open?.ts ?? 0).toISOString())
      expect(stale(yield* call("svc_get", { resource_type: "stack", params: { stack: "web" } }))).toEqual([])
    }),
  )
})
