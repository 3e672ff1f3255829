/**
 * An enum's value in another case than the service's (`green` for `Green`) is sent as the service
 * spells it, where it matches one member, and the answer says so; anything else is refused as before.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

describe("enum values in another case", () => {
  it.scopedLive("are sent as the service spells them, and said so; a value matching none is refused", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      const made = yield* call("svc_create", { resource_type: "tag", params: { name: "canary", color: "green" } })
      expect(made.isError, Mcp.text(made)).toBeFalsy()
      expect(Mcp.text(made).split("\n")[0]).toBe(
        '[svc-mcp: sent as the service spells it: params.color "green" as "Green"]',
      )
      const tag = Mcp.text(yield* call("svc_get", { resource_type: "tag", params: { tag: "canary" } }))
      expect(tag).toContain('"color":"Green"')
      const listed = yield* call("svc_list", {
        resource_type: "stack",
        params: { query: { specific: { states: ["RUNNING"] } } },
        fields: ["name"],
      })
      expect(Mcp.text(listed).split("\n")[0]).toBe(
        '[svc-mcp: sent as the service spells it: params.query.specific.states[0] "RUNNING" as "running"]',
      )
      const refused = yield* call("svc_create", { resource_type: "tag", params: { name: "blue-ish", color: "bluish" } })
      expect(refused.isError).toBe(true)
      expect(Mcp.text(refused)).toContain("params.color: must be one of")
    }),
  )
})
