/**
 * `fields` on the lists the service answers inside an object (`{alerts, next_page}`,
 * `{updates, next_page}`): a path of each item is taken as the tool says, "of each item for a
 * list", whether or not it is a column's name; a path of the answer itself still works.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

const connect = Effect.gen(function* () {
  const sandbox = yield* Sandboxes.scoped()
  const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
  return (name: string, args: Record<string, unknown>) =>
    Effect.promise(() => client.callTool({ name, arguments: args }))
})

type Items = ReadonlyArray<Readonly<Record<string, unknown>>>

/** The items of a shaped answer, under the field that holds them. */
const itemsIn = (answer: { structuredContent?: unknown }, field: string): Items =>
  ((answer.structuredContent as Record<string, unknown> | undefined)?.[field] as Items | undefined) ?? []

describe("fields on a list held in a field of the answer", () => {
  it.scopedLive("an update's path is taken for each update, as the answer's own path is", () =>
    Effect.gen(function* () {
      const call = yield* connect
      // An update to list: a stack deployed.
      const deployed = yield* call("svc_execute", { operation: "deploy_stack", params: { stack: "web" }, wait: true })
      expect(deployed.isError, Mcp.text(deployed)).toBeFalsy()
      const perItem = yield* call("svc_list_detail", { list_type: "updates", fields: ["operation", "status"] })
      expect(perItem.isError, Mcp.text(perItem)).toBeFalsy()
      expect(Mcp.text(perItem)).not.toContain("has no field")
      const updates = itemsIn(perItem, "updates")
      expect(updates.length).toBeGreaterThan(0)
      for (const update of updates) expect(Object.keys(update)).toEqual(["operation", "status"])
      expect(updates.map((update) => update.operation)).toContain("DeployStack")
      // The answer's own path reads the same.
      const whole = yield* call("svc_list_detail", { list_type: "updates", fields: ["updates.operation", "status"] })
      expect(itemsIn(whole, "updates")).toEqual(updates)
    }),
  )

  it.scopedLive("an alert's data and its type are taken for each alert, not only the columns' names", () =>
    Effect.gen(function* () {
      const call = yield* connect
      const types = yield* call("svc_list", { resource_type: "alert", fields: ["data.type", "level"] })
      expect(types.isError, Mcp.text(types)).toBeFalsy()
      expect(Mcp.text(types)).not.toContain("has no field")
      const alerts = itemsIn(types, "alerts")
      expect(alerts.length).toBeGreaterThan(0)
      for (const alert of alerts) {
        expect(Object.keys(alert)).toEqual(["data", "level"])
        expect(Object.keys(alert.data as object)).toEqual(["type"])
      }
      const data = yield* call("svc_list", { resource_type: "alert", fields: ["data"] })
      expect(Mcp.text(data)).not.toContain("has no field")
      expect(itemsIn(data, "alerts")).toHaveLength(alerts.length)
    }),
  )
})
