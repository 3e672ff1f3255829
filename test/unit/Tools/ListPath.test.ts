/**
 * The list path's work per call, counted rather than timed, so that it cannot slide back
 * unseen: a list at a glance of 300 stacks is rendered without splitting a path, without
 * walking or copying the records to redact them, and with one JSON text made (its rows); and
 * its rows are what the table says, read per row by the table's paths (an independent reading
 * of Projections.ts, below).
 */
import { describe, expect, it, vi } from "@effect/vitest"
import { svc_list } from "../../../src/Tools/Catalog/Definitions.js"
import * as Glance from "../../../src/Tools/Lists/Glance.js"
import { PROJECTIONS } from "../../../src/Tools/Lists/Projections.js"
import type * as Render from "../../../src/Tools/Render.js"
import type { Made as ToolSuccess } from "../../support/Answers.js"
import * as Answers from "../../support/Answers.js"
import { readAt } from "../../support/SchemaValues.js"

/** Stacks as the service lists them (the sandbox's large estate has 300). */
const stacks = Array.from({ length: 300 }, (_, i) => ({
  id: `6b08c060000000000000${String(i).padStart(4, "0")}`,
  info: {
    branch: "main",
    repo: `acme/app-${i}`,
    server_id: `server-${i % 50}`,
    ...(i % 3 === 0 ? {} : { server_name: `prod-${i % 50}` }),
    services: [
      { image: "library/web:latest", service: "web", update_available: i % 7 === 0 },
      { image: "library/worker:latest", service: "worker", update_available: false },
    ],
    state: i % 5 === 0 ? "stopped" : "running",
    status: "2 running",
  },
  name: `app-${i}`,
  tags: [`tag-${i % 7}`, `tag-${(i + 1) % 7}`],
  template: false,
  type: "Stack",
}))

const names = {
  server: new Map(Array.from({ length: 50 }, (_, i) => [`server-${i}`, `prod-${i}`])),
  tag: new Map(Array.from({ length: 7 }, (_, i) => [`tag-${i}`, `team-${i}`])),
}

const outcome: ToolSuccess = {
  tool: "svc_list",
  wait: false,
  schema: false,
  selectorKey: "resource_type",
  selector: "stack",
  endpoint: "read/ListStacks",
  body: {},
  data: stacks,
  text: JSON.stringify(stacks),
  names,
}

const SETTINGS = { maxOutputChars: 1_000_000, revealSecrets: false }

describe("the list path", () => {
  it("renders 300 stacks as rows splitting no path, copying no record, and making one JSON text", () => {
    const projection = Glance.projectionOf(svc_list.shows, "read/ListStacks")
    expect(projection).toBeDefined()
    const split = vi.spyOn(String.prototype, "split")
    const entries = vi.spyOn(Object, "entries")
    const fromEntries = vi.spyOn(Object, "fromEntries")
    const stringify = vi.spyOn(JSON, "stringify")
    let rendered: Render.Rendered
    let counts: ReadonlyArray<number>
    try {
      rendered = Answers.success(svc_list, outcome, SETTINGS)
      counts = [split, entries, fromEntries, stringify].map((spy) => spy.mock.calls.length)
    } finally {
      vi.restoreAllMocks()
    }
    expect(rendered.isError).toBe(false)
    expect(rendered.text.split("\n")).toHaveLength(2)
    // No path split, no record walked by Object.entries or copied by fromEntries, one JSON text.
    expect(counts).toEqual([0, 0, 0, 1])
  })

  it("makes each stack's row as the table reads it: names for ids, the service's own name first", () => {
    const rendered = Answers.success(svc_list, outcome, SETTINGS)
    const rows = JSON.parse(rendered.text.split("\n")[1] ?? "") as Array<Array<unknown>>
    const table = PROJECTIONS["read/ListStacks"]
    expect(table).toBeDefined()
    expect(rows).toHaveLength(300)
    rows.forEach((row, i) => {
      const stack = stacks[i]
      table?.columns.forEach((column, c) => {
        const value = readAt(stack, column.path.split("."))
        if (column.key !== undefined && column.when !== undefined) {
          const picked = (value as Array<Record<string, unknown>>).filter((x) => x[column.when as string] === true)
          expect(row[c]).toEqual(picked.map((x) => x[column.key as string]))
        } else if (column.name !== undefined) {
          const given = column.given === undefined ? undefined : readAt(stack, column.given.split("."))
          const map = names[column.name as "server" | "tag"]
          const expected = Array.isArray(value) ? value.map((id) => map.get(id) ?? id) : map.get(value as string)
          expect(row[c]).toEqual(given ?? expected)
        } else {
          expect(row[c]).toEqual(value ?? null)
        }
      })
    })
    expect(rendered.structuredData).toEqual({ columns: table?.columns.map((column) => column.label), result: rows })
  })

  it("the first line says the count and the columns, for one item and for several", () => {
    const compiled = Glance.projectionOf(svc_list.shows, "read/ListStacks")
    if (compiled === undefined) throw new Error("no projection of ListStacks")
    expect(Glance.headline(compiled, 1)).toMatch(/^\[svc-mcp: 1 stack as rows of \["name","id",/)
    expect(Glance.headline(compiled, 300)).toMatch(/^\[svc-mcp: 300 stacks as rows of \["name","id",/)
  })
})
