import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Spec from "../../support/Spec.js"

const spec = Spec.text
const shared = Path.join(Spec.sharedDir, "interface.md")

describe("selector tables", () => {
  // Every other test reads the repo's own copy (spec/); this one holds it to the shared one, which a
  // clone has beside it (read-only in CI); a clone without it skips, saying so, rather than fail or pass unchecked.
  it.skipIf(Spec.sharedAbsent)(
    `the in-repo copy of interface.md is the shared specification ${Spec.SKIPPED_WITHOUT_SHARED}`,
    () => {
      expect(spec).toBe(Fs.readFileSync(shared, "utf8"))
    },
  )

  it("serve exactly the rows of interface.md, spelled as written, in its order", () => {
    const expected = Spec.rows
    // Every tool the specification names has its rows, and no row belongs to another tool.
    expect(new Set(expected.map((row) => row.tool))).toEqual(new Set(Spec.tools))
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

  it("has the tools of the specification, as many as it says, with the selector names of the issue", () => {
    expect(Spec.tools).toHaveLength(Spec.statedToolCount)
    expect(Definitions.all.map((tool) => `\`${tool.name}\``).join(", ")).toBe(Spec.toolSentence)
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
