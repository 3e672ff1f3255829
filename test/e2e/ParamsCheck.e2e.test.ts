/**
 * The built server finds the service's definitions beside itself: the bundle
 * (dist/svc-mcp.js) and the library (dist/Tools/*.js) alike.
 */
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

describe("the built server and the definitions", () => {
  it.scopedLive("the bundle checks params against the definitions and says so at start", () =>
    Effect.gen(function* () {
      const { client, stderr } = yield* Spawn.connect({}, ["--sandbox"])
      const refused = yield* Effect.promise(() =>
        client.callTool({ name: "svc_delete", arguments: { resource_type: "variable", params: { id: "x" } } }),
      )
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toMatchObject({
        error: { kind: "invalid_params", endpoint: "write/DeleteVariable", accepted: "{name: string}" },
      })
      const schema = yield* Effect.promise(() =>
        client.callTool({ name: "svc_get", arguments: { resource_type: "user_group", schema: true } }),
      )
      expect(JSON.parse((schema.content as Array<{ text: string }>)[0]?.text ?? "")).toMatchObject({
        endpoint: "read/GetUserGroup",
        params: "{user_group: string}",
      })
      expect(stderr()).toMatch(
        /; params checked against definitions 2\.3\.2, the newest the service publishes \(the tools speak API 2\.3\.3\)\n/,
      )
    }),
  )

  it("the library build finds them too", async () => {
    const library = (await import(
      Path.resolve(Path.dirname(import.meta.dirname), "../dist/Tools/Params/ParamsCheck.js")
    )) as {
      locate: () => string | undefined
    }
    expect(library.locate()).toBe(Path.resolve(Path.dirname(import.meta.dirname), "../spec/service-api.schema.json"))
  })
})
