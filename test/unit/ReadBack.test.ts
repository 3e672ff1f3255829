/**
 * A change the service answers with nothing says what now holds, read back once: a resource's
 * tags (by name) and description, the alert closed with its kind and target, a stack's commits.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../support/Mcp.js"
import * as Sandboxes from "../support/Sandbox.js"

const connect = (scenario?: "drift") =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped(scenario === undefined ? {} : { scenario })
    const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
    return (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }))
  })

/** The answer's lines: its first, and the JSON after it. */
const read = (result: unknown) => {
  const [line, json] = Mcp.text(result).split("\n")
  return { line, value: JSON.parse(json ?? "null") as Record<string, unknown> }
}

describe("a change answered with nothing says what now holds", () => {
  it.scopedLive("resource_meta: the tags by name and the description, as the service now holds them", () =>
    Effect.gen(function* () {
      const call = yield* connect()
      const result = yield* call("svc_update", {
        resource_type: "resource_meta",
        params: { target: { type: "Deployment", id: "docs" }, tags: ["canary", "production"], description: "the docs" },
      })
      expect(result.isError, Mcp.text(result)).toBeFalsy()
      const { line, value } = read(result)
      expect(line).toBe("[svc-mcp: the meta of the deployment docs is now as follows, read back]")
      expect(value).toEqual({ tags: ["canary", "production"], description: "the docs", template: false })
    }),
  )

  it.scopedLive("close_alert: the alert closed, its kind and its target by name", () =>
    Effect.gen(function* () {
      const call = yield* connect()
      const rows = Mcp.text(yield* call("svc_list", { resource_type: "alert" })).split("\n")[1] ?? "[]"
      const alert = (JSON.parse(rows) as Array<Array<unknown>>).find((row) => row[3] === "ServerMem")
      const id = alert?.[5] as string
      expect(id).toMatch(/^[0-9a-f]{24}$/)
      const { line, value } = read(yield* call("svc_execute", { operation: "close_alert", params: { id } }))
      expect(line).toBe(`[svc-mcp: the alert ${id} is closed, read back]`)
      expect(value).toEqual({
        alert: id,
        resolved: true,
        what: "ServerMem",
        target: "Server prod-02",
        level: "WARNING",
      })
    }),
  )

  it.scopedLive("refresh_stack_cache: the deployed and repository commits, and whether they differ", () =>
    Effect.gen(function* () {
      const call = yield* connect("drift")
      const { line, value } = read(
        yield* call("svc_execute", { operation: "refresh_stack_cache", params: { stack: "web" } }),
      )
      expect(line).toBe(
        "[svc-mcp: the cache of the stack web is refreshed; its commits now, read back: the deployed commit is not the repository's]",
      )
      expect(value).toEqual({ deployed_commit: "a1c4e09", repository_commit: "5d27b8f", differs: true })
      // fields: ["*"] is the service's own answer, and reads nothing back.
      const whole = yield* call("svc_execute", {
        operation: "refresh_stack_cache",
        params: { stack: "web" },
        fields: ["*"],
      })
      expect(Mcp.text(whole)).toBe("{}")
    }),
  )
})
