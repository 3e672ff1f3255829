/**
 * The paths the first lines suggest for `fields` (a list's `for more, fields: [...]`, a record's
 * `paths such as [...]`), for every selector: each one a path of the service's definitions of the
 * selector's answer, and none that the service leaves out until something happens (a list item's
 * optional info, such as a deployment's `status` before it has a container), so that following the
 * suggestion never answers "no item has field ...".
 */
import { describe, expect, it } from "@effect/vitest"
import { byName } from "../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../src/Tools/Catalog/Tables.js"
import * as TablesAll from "../../src/Tools/Catalog/TablesAll.js"
import * as Glance from "../../src/Tools/Lists/Glance.js"
import { RECORD_VIEWS } from "../../src/Tools/Records/RecordViews.js"
import { document } from "../support/Definitions.js"
import { answerSchema, type Schema, schemaAt } from "../support/SchemaValues.js"

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
