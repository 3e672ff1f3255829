/**
 * Columns said once: a projection's `once` columns leave the rows where every row has the same
 * value, its `step` column where it moves by one step each row, each said in the first line;
 * otherwise they stay in each row.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Glance from "../../../src/Tools/Lists/Glance.js"

const compiled = Glance.compile({
  noun: "samples",
  columns: [
    { label: "ts", path: "ts" },
    { label: "used", path: "used" },
    { label: "total", path: "total" },
  ],
  more: "load",
  once: ["total"],
  step: "ts",
})

const sample = (ts: number, used: number, total: number) => ({ ts, used, total })

describe("columns said once", () => {
  it("the same in each row and one step apart: said once in the first line and in the structured answer", () => {
    const rows = Glance.rows(compiled, [sample(900, 1, 8), sample(600, 2, 8), sample(300, 3, 8)], {})
    expect(rows).toEqual({
      columns: ["used"],
      rows: [[1], [2], [3]],
      same: { total: 8 },
      steps: { ts: { first: 900, by: -300 } },
    })
    expect(Glance.headline(compiled, 3, 3, rows)).toBe(
      '[svc-mcp: 3 samples as rows of ["used"], in each total 8, ts 900 in the first, 300 less in each next; for more, fields: ["*"] or ["ts","load"]]',
    )
  })

  it("a value that differs, a step that changes, or one row: each stays in its rows", () => {
    const uneven = Glance.rows(compiled, [sample(900, 1, 8), sample(600, 2, 16), sample(400, 3, 8)], {})
    expect(uneven.columns).toEqual(["ts", "used", "total"])
    expect(uneven.rows).toEqual([
      [900, 1, 8],
      [600, 2, 16],
      [400, 3, 8],
    ])
    expect(Glance.headline(compiled, 3, 3, uneven)).toBe(
      '[svc-mcp: 3 samples as rows of ["ts","used","total"]; for more, fields: ["*"] or ["ts","load"]]',
    )
    // Two rows: the same total is said once; two times are no series.
    expect(Glance.rows(compiled, [sample(900, 1, 8), sample(600, 2, 8)], {})).toEqual({
      columns: ["ts", "used"],
      rows: [
        [900, 1],
        [600, 2],
      ],
      same: { total: 8 },
    })
    expect(Glance.rows(compiled, [sample(900, 1, 8)], {}).columns).toEqual(["ts", "used", "total"])
  })
})
