/**
 * svc_update's answer, where the service answers the changed resource: the glance svc_get shows
 * it at, ids as names, rather than the raw record (`server_id`, tag ids); the whole record is one
 * svc_get away, as svc_update takes no `fields`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import * as RecordGlance from "../../../src/Tools/RecordGlance.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"
import { answerSchema } from "../../support/SchemaValues.js"

describe("svc_update's answer", () => {
  it("is glanced at for each type whose update answers the record svc_get glances at", () => {
    const glanced = Object.entries(Tables.update).filter(
      ([, endpoint]) => RecordGlance.of(Definitions.svc_update.shows, `write/${endpoint}`) !== undefined,
    )
    expect(glanced.map(([type]) => type)).toEqual([
      "stack",
      "build",
      "server",
      "procedure",
      "deployment",
      "alerter",
      "sync_resource",
      "action",
      "repo",
      "builder",
      "swarm",
      "user_group",
    ])
    // Each answers what svc_get does, where the definitions give the update's answer (2.3.2 has no UpdateUserGroup).
    let compared = 0
    for (const [type, endpoint] of glanced) {
      const changed = answerSchema(`write/${endpoint}`)
      if (Object.keys(changed).length === 0) continue
      expect(changed, type).toEqual(answerSchema(`read/${(Tables.get as Record<string, string>)[type]}`))
      compared++
    }
    expect(compared).toBe(11)
    // Other tools' changes are not.
    expect(RecordGlance.of(Definitions.svc_create.shows, "write/CreateDeployment")).toBeUndefined()
  })

  it.scopedLive("of a sync is its plan, as svc_get answers it, not the whole record", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      const got = Mcp.text(yield* call("svc_get", { resource_type: "sync_resource", params: { sync: "estate-sync" } }))
      const updated = yield* call("svc_update", {
        resource_type: "sync_resource",
        params: { id: "estate-sync", config: { managed: true } },
      })
      expect(updated.isError, Mcp.text(updated)).toBeFalsy()
      const plan = (text: string) => JSON.parse(text.split("\n").at(-1) ?? "") as Record<string, unknown>
      expect(Mcp.text(updated)).toContain("[svc-mcp: the sync's pending changes, from its repository")
      expect(Mcp.text(updated)).not.toContain('"config"')
      expect(Object.keys(plan(Mcp.text(updated)))).toEqual(Object.keys(plan(got)))
    }),
  )

  it.scopedLive("of a deployment names its server and tags as svc_get does, and says where the whole record is", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      const updated = yield* call("svc_update", {
        resource_type: "deployment",
        params: { id: "api", config: { restart: "always" } },
      })
      expect(updated.isError, Mcp.text(updated)).toBeFalsy()
      const [first, json] = Mcp.text(updated).split("\n")
      expect(first).toMatch(/^\[svc-mcp: deployment api at a glance; svc_get with fields: \["\*"\] for all, or e\.g\. /)
      const got = yield* call("svc_get", { resource_type: "deployment", params: { deployment: "api" } })
      const [, gotJson] = Mcp.text(got).split("\n")
      // The same glance as svc_get's, the change in it.
      // (but the state, which svc_get reads beside the record from its list, and a change does not)
      const { state, ...glanced } = JSON.parse(gotJson ?? "")
      expect(state).toBe("running")
      expect(JSON.parse(json ?? "")).toEqual(glanced)
      expect(json).not.toContain("server_id")
      const server = sandbox.world.store.find("server", (JSON.parse(json ?? "{}") as { server?: string }).server ?? "")
      expect(server.name).toBe((JSON.parse(json ?? "{}") as { server?: string }).server)
      expect(updated.structuredContent).toEqual(glanced)
    }),
  )
})
