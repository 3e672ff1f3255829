/**
 * The server's own changes renew the names they change: a tag made and put on a deployment reads
 * by its name in the next answer, a renamed stack by its new name, not after the names' 30 s.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { kindsChangedBy } from "../../../src/Tools/Names/Names.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

describe("the server's own changes renew the names", () => {
  it("a change's selector names the kinds it may change", () => {
    expect(kindsChangedBy("resource_meta")).toEqual(["tag"])
    expect(kindsChangedBy("tag")).toEqual(["tag"])
    expect(kindsChangedBy("stack")).toEqual(["stack"])
    expect(kindsChangedBy("sync_resource")).toEqual(["sync"])
    expect(kindsChangedBy("user_group_add_user")).toEqual(["user_group"])
    expect(kindsChangedBy("service_user")).toEqual(["user"])
    expect(kindsChangedBy("variable")).toEqual([])
  })

  it.scopedLive("a tag made by a deployment's meta, and a tag renamed, read by their names at once", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      // The tags' names are read, and kept.
      const before = Mcp.text(yield* call("svc_get", { resource_type: "deployment", params: { deployment: "docs" } }))
      expect(before).not.toContain("canary")
      const meta = yield* call("svc_update", {
        resource_type: "resource_meta",
        params: { target: { type: "Deployment", id: "docs" }, tags: ["canary"] },
      })
      expect(meta.isError, Mcp.text(meta)).toBeFalsy()
      const after = Mcp.text(yield* call("svc_get", { resource_type: "deployment", params: { deployment: "docs" } }))
      expect(after).toContain('"tags":["canary"]')
      const renamed = yield* call("svc_rename", { resource_type: "tag", params: { id: "canary", name: "canary-eu" } })
      expect(renamed.isError, Mcp.text(renamed)).toBeFalsy()
      const again = Mcp.text(yield* call("svc_get", { resource_type: "deployment", params: { deployment: "docs" } }))
      expect(again).toContain('"tags":["canary-eu"]')
    }),
  )
})
