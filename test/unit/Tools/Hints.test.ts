/**
 * The paths the first lines suggest for `fields` (a list's `for more, fields: [...]`, a record's
 * `paths such as [...]`), for every selector: each one a path of the service's definitions of the
 * selector's answer, and none that the service leaves out until something happens (a list item's
 * optional info, such as a deployment's `status` before it has a container), so that following the
 * suggestion never answers "no item has field ...".
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Settings from "../../../src/Settings/ToolSettings.js"
import { byName } from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import * as TablesAll from "../../../src/Tools/Catalog/TablesAll.js"
import * as Hints from "../../../src/Tools/Hints.js"
import * as Glance from "../../../src/Tools/Lists/Glance.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"
import type { Step } from "../../../src/Tools/Records/Records.js"
import { RECORD_VIEWS } from "../../../src/Tools/Records/RecordViews.js"
import { document } from "../../support/Definitions.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"
import { answerSchema, type Schema, schemaAt } from "../../support/SchemaValues.js"

const definitions = document.definitions as unknown as Readonly<Record<string, Schema>>

/** Every list selector of svc_list and svc_list_detail, with or without SVC_REACH=all, and its endpoint. */
const LISTS: ReadonlyArray<readonly [tool: string, selector: string, endpoint: string]> = [
  ...Object.entries(Tables.list).map(([s, e]) => ["svc_list", s, `read/${e}`] as const),
  ...Object.entries(Tables.list_detail).map(([s, e]) => ["svc_list_detail", s, `read/${e}`] as const),
  ...Object.entries(TablesAll.list).map(([s, e]) => ["svc_list", s, e] as const),
  ...Object.entries(TablesAll.list_detail).map(([s, e]) => ["svc_list_detail", s, e] as const),
]

/**
 * The optional fields on the way along `names`, in a list item's info (`*ListItemInfo`): the service
 * sends each of those definitions' required fields always, and an optional one only once it is
 * set. Read through `$ref`s, arrays and every choice of a union.
 */
const optionalOnWay = (schema: Schema, names: ReadonlyArray<string>, info = false): ReadonlyArray<string> => {
  const ref = typeof schema.$ref === "string" ? decodeURIComponent(schema.$ref.replace("#/definitions/", "")) : ""
  if (ref !== "") return optionalOnWay(definitions[ref] ?? {}, names, info || ref.endsWith("ListItemInfo"))
  const [first, ...rest] = names
  if (first === undefined) return []
  if (schema.type === "array") return optionalOnWay((schema.items as Schema) ?? {}, names)
  const choices = [...((schema.anyOf as Array<Schema>) ?? []), ...((schema.oneOf as Array<Schema>) ?? [])]
  if (choices.length > 0) return choices.flatMap((choice) => optionalOnWay(choice, names, info))
  const property = (schema.properties as Record<string, Schema> | undefined)?.[first]
  if (property === undefined) return []
  const required = (schema.required as ReadonlyArray<string> | undefined) ?? []
  return [...(info && !required.includes(first) ? [first] : []), ...optionalOnWay(property, rest)]
}

/** The paths a list's first line suggests, read from the line as the assistant reads it. */
const suggested = (line: string): ReadonlyArray<string> => {
  const example = /fields: \["\*"\] or (\[.*\])\]$/.exec(line)?.[1]
  expect(example, line).toBeDefined()
  return JSON.parse(example ?? "[]") as ReadonlyArray<string>
}

describe("the paths a first line suggests", () => {
  it("are, for every list selector with rows, paths of its items that every item has", () => {
    let checked = 0
    for (const [tool, selector, endpoint] of LISTS) {
      const projection = Glance.projectionOf(byName.get(tool)?.shows, endpoint)
      if (projection === undefined) continue
      const schema = answerSchema(endpoint)
      for (const count of [1, 3]) {
        const paths = suggested(Glance.headline(projection, count))
        expect(paths, `${tool} ${selector}`).toHaveLength(2)
        for (const path of paths) {
          const names = path.split(".")
          expect(schemaAt(schema, names), `${tool} ${selector} ${path}`).toBeDefined()
          expect(optionalOnWay(schema, names), `${tool} ${selector} ${path}`).toEqual([])
        }
      }
      checked++
    }
    // svc_list's 17 and its alerts, the full lists, the docker lists, access and SVC_REACH=all's.
    expect(checked).toBeGreaterThanOrEqual(45)
  })

  it("are, for every record at a glance, paths every record has", () => {
    for (const [endpoint, view] of Object.entries(RECORD_VIEWS)) {
      if (view?.more === undefined) continue
      const names = view.more.split(".")
      expect(schemaAt(answerSchema(endpoint), names), `${endpoint} ${view.more}`).toBeDefined()
      expect(optionalOnWay(answerSchema(endpoint), names), `${endpoint} ${view.more}`).toEqual([])
    }
  })
})

describe("a step an answer points to, over every mode and reach", () => {
  const modes: ReadonlyArray<Settings.Mode> = ["read-only", "operate", "full"]
  const reaches: ReadonlyArray<Settings.Reach> = ["interface", "all"]
  /** Whether the policy of `mode` and `reach` publishes the step's selector: the policy's own word, not the hint's. */
  const offered = (step: Step, mode: Settings.Mode, reach: Settings.Reach) =>
    Effect.map(
      Effect.flatMap(Policy.toolsOf(reach), (tools) =>
        Policy.make({ mode, allow: Option.none(), deny: [], confirm: [], accessChanges: Option.none() }, tools),
      ),
      (policy) => policy.tools.some((t) => t.name === step.tool && t.selectors.includes(step.selector)),
    )

  it.effect("is a call where offered; elsewhere the settings that would offer it, and never the call", () =>
    Effect.gen(function* () {
      expect(Hints.STEPS.length).toBeGreaterThan(0)
      for (const step of Hints.STEPS)
        for (const mode of modes)
          for (const reach of reaches) {
            const line = Hints.stepLine(step, { mode, reach })
            const where = `${step.selector} ${mode} ${reach}`
            if (yield* offered(step, mode, reach)) {
              expect(line, where).toBe(`[svc-mcp: ${step.tool} ${step.selector} ${step.does}]\n`)
              continue
            }
            expect(line, where).not.toContain(step.selector)
            expect(line, where).not.toContain(step.tool)
            // The settings it names are the ones that offer it.
            const settings = /start this server with (.*); it is not offered here/.exec(line)?.[1]?.split(" and ") ?? []
            expect(settings.length, where).toBeGreaterThan(0)
            const set = Object.fromEntries(settings.map((s) => s.split("=") as [string, string]))
            const nextMode = (set.SVC_MODE as Settings.Mode | undefined) ?? mode
            const nextReach = (set.SVC_REACH as Settings.Reach | undefined) ?? reach
            expect(yield* offered(step, nextMode, nextReach), `${where}: ${line}`).toBe(true)
          }
    }),
  )

  it.scopedLive(
    "a sync's plan at the default reach names SVC_REACH=all, not refresh_sync_pending; at all, the call",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped({})
        for (const reach of reaches) {
          const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach, mode: "full" })
          const result = yield* Effect.promise(() =>
            client.callTool({
              name: "svc_get",
              arguments: { resource_type: "sync_resource", params: { sync: "estate-sync" } },
            }),
          )
          const text = Mcp.text(result)
          if (reach === "interface") {
            expect(text).not.toContain("refresh_sync_pending")
            expect(text).toContain("the operator would start this server with SVC_REACH=all")
          } else expect(text).toContain("[svc-mcp: svc_execute refresh_sync_pending computes the plan anew")
        }
      }),
  )
})
