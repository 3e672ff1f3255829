/**
 * One call for common questions, on the built server over its sandbox: what runs now over the
 * whole estate (the updates in progress, which the action states' description names), and a
 * resource named under the key another tool uses for it, read as the endpoint's and said so in the
 * answer's first lines.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }> }
const textOf = (result: Result) => result.content.map((part) => part.text ?? "").join("\n")

describe("one call for common questions", () => {
  it.scopedLive("what runs now: the updates in progress, over the whole estate, named by the action states", () =>
    Effect.gen(function* () {
      const { client } = yield* Spawn.connect({ SVC_REACH: "all", SVC_WAIT_POLL_MS: "100" }, ["--sandbox"])
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)
      const listed = yield* Effect.promise(() => client.listTools())
      const described = (name: string) => listed.tools.find((t) => t.name === name)?.description ?? ""
      const asked = 'svc_list_detail updates {query: {"status": "InProgress"}}'
      expect(described("svc_get")).toContain(
        `*_action_state, deployment_*: under the type's key (all running now, in one call: ${asked})`,
      )
      expect(described("svc_list_detail")).toContain('running now: updates {query: {"status": "InProgress"}}')

      const restarted = yield* call("svc_execute", {
        operation: "restart_deployment",
        params: { deployment: "api" },
        wait: true,
      })
      expect(restarted.isError, textOf(restarted)).toBeFalsy()
      const id = /"update":"([0-9a-f]{24})"/.exec(textOf(restarted))?.[1]
      expect(id).toBeDefined()
      const updates = (status: string) =>
        Effect.map(
          call("svc_list_detail", { list_type: "updates", params: { query: { status } } }),
          (result) => (JSON.parse(textOf(result)) as { updates: Array<{ id: string; status: string }> }).updates,
        )
      // Finished: among the complete ones, not among those that run now.
      const running = yield* updates("InProgress")
      expect(running.map((u) => u.id)).not.toContain(id)
      expect(running.every((u) => u.status === "InProgress")).toBe(true)
      const complete = yield* updates("Complete")
      expect(complete.map((u) => u.id)).toContain(id)
      expect(complete.every((u) => u.status === "Complete")).toBe(true)
    }),
  )

  it.scopedLive("a resource under another tool's key is read as the endpoint's, and the first lines say so", () =>
    Effect.gen(function* () {
      const { client } = yield* Spawn.connect({ SVC_WAIT_POLL_MS: "100" }, ["--sandbox"])
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)
      // svc_get names a deployment {deployment}; svc_update takes {id}.
      const updated = yield* call("svc_update", {
        resource_type: "deployment",
        params: { deployment: "api", config: { restart: "always" } },
      })
      expect(updated.isError, textOf(updated)).toBeFalsy()
      // Said among the first lines, where a respelling is: after the glance's own line, before the record.
      expect(textOf(updated).split("\n").slice(0, 2)).toEqual([
        expect.stringMatching(/^\[svc-mcp: deployment api at a glance/),
        "[svc-mcp: read params.deployment as params.id]",
      ])
      expect(textOf(updated)).toContain('"restart":"always"')
      // svc_update's key, to an operation that takes {deployment}.
      const restarted = yield* call("svc_execute", {
        operation: "restart_deployment",
        params: { id: "api" },
        wait: true,
      })
      expect(restarted.isError, textOf(restarted)).toBeFalsy()
      // After the fences' line, before the outcome.
      expect(textOf(restarted).split("\n").slice(1, 3)).toEqual([
        "[svc-mcp: read params.id as params.deployment]",
        "RestartDeployment succeeded.",
      ])
      // Two keys could be meant: refused as before, nothing read.
      const inspected = yield* call("svc_inspect", {
        inspect_type: "container",
        params: { id: "api", container: "api" },
      })
      expect(inspected.isError).toBe(true)
      expect(textOf(inspected)).not.toContain("read params.id")
    }),
  )
})
