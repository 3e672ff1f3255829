import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Definitions from "../src/Tools/Definitions.js"

const root = Path.resolve(import.meta.dirname, "..")
const spec = Fs.readFileSync(Path.join(root, "spec/interface.md"), "utf8")
const shared = Path.resolve(root, "../shared/spec/interface.md")

/** Every `- selector => Endpoint` row of interface.md, under its tool's heading. */
const rowsOfSpec = () => {
  const rows: Array<{ tool: string; group: string; selector: string; endpoint: string }> = []
  let tool: string | undefined
  let group: string | undefined
  for (const line of spec.split("\n")) {
    const heading = /^### (svc_\w+) \(group `(\w+)`\)/.exec(line)
    if (heading !== null) {
      tool = heading[1]
      group = heading[2]
      continue
    }
    if (line.startsWith("### ")) tool = undefined
    const row = /^- (\w+) => (\w+)\s*$/.exec(line)
    if (row !== null && tool !== undefined && group !== undefined) {
      rows.push({ tool, group, selector: row[1]!, endpoint: row[2]! })
    }
  }
  return rows
}

describe("selector tables", () => {
  it("the in-repo copy of interface.md is the shared specification", () => {
    if (!Fs.existsSync(shared)) return
    expect(spec).toBe(Fs.readFileSync(shared, "utf8"))
  })

  it("serve exactly the 264 rows of interface.md, spelled as written, in its order", () => {
    const expected = rowsOfSpec()
    expect(expected).toHaveLength(264)
    const actual = Definitions.all.flatMap((tool) =>
      tool.selectors.map((selector) => ({
        tool: tool.name,
        group: tool.group,
        selector,
        endpoint: tool.endpoints[selector],
      })),
    )
    // Stable sort: tools in any order, selectors within a tool in the specification's order.
    const byTool = <A extends { tool: string }>(rows: ReadonlyArray<A>) =>
      [...rows].sort((a, b) => a.tool.localeCompare(b.tool))
    expect(byTool(actual)).toEqual(byTool(expected))
  })

  it("has the 13 tools of the specification, with the selector names of the issue", () => {
    const named = /The server offers 13 tools: (.*)\./.exec(spec)?.[1]
    expect(Definitions.all.map((tool) => `\`${tool.name}\``).join(", ")).toBe(named)
    const keys = Object.fromEntries(Definitions.all.map((tool) => [tool.name, tool.selectorKey]))
    expect(keys).toEqual({
      svc_list: "resource_type",
      svc_get: "resource_type",
      svc_create: "resource_type",
      svc_update: "resource_type",
      svc_delete: "resource_type",
      svc_execute: "operation",
      svc_logs: "resource_type",
      svc_summary: "resource_type",
      svc_inspect: "inspect_type",
      svc_search_logs: "resource_type",
      svc_list_detail: "list_type",
      svc_copy: "resource_type",
      svc_rename: "resource_type",
    })
  })

  it("publishes each selector table as the enum of its tool's input schema", () => {
    for (const tool of Definitions.all) {
      const properties = tool.inputSchema.properties as Record<string, { enum?: ReadonlyArray<string> }>
      expect(properties[tool.selectorKey]?.enum).toEqual(tool.selectors)
      expect(tool.inputSchema.required).toContain(tool.selectorKey)
      expect(tool.inputSchema.required).not.toContain("params")
    }
  })
})
