/**
 * Pages, however the answer is shown: the next page's hint stays with `fields`, and a page past
 * the last one says there is no more, not that the answer lacks the fields asked for.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import type { Made as ToolSuccess } from "../../support/Answers.js"
import * as Answers from "../../support/Answers.js"

const SETTINGS = { maxOutputChars: 100_000, revealSecrets: false }
const ALERT = {
  ts: 1,
  level: "WARNING",
  resolved: false,
  target: { type: "System", id: "" },
  data: { type: "None", data: {} },
}

const alerts = (data: unknown, body: Record<string, unknown>, fields?: ReadonlyArray<string>): string =>
  Answers.success(
    Definitions.svc_list,
    {
      tool: "svc_list",
      wait: false,
      schema: false,
      selectorKey: "resource_type",
      selector: "alert",
      endpoint: "read/ListAlerts",
      body,
      data,
      ...(fields === undefined ? {} : { fields }),
    } satisfies ToolSuccess,
    SETTINGS,
  ).text

describe("pages", () => {
  it("the next page's hint stays with fields, and with the rows", () => {
    const page = { alerts: [ALERT], next_page: 2 }
    expect(alerts(page, {}, ["alerts.ts"])).toBe('{"alerts":[{"ts":1}]}\n[svc-mcp: more alerts: params.page 2]')
    expect(alerts(page, {})).toMatch(/\n\[svc-mcp: more alerts: params\.page 2\]$/)
  })

  it("a page past the last one says there is no more, with fields or without", () => {
    const none = { alerts: [] }
    expect(alerts(none, { page: 9 }, ["alerts.ts"])).toBe(
      '{"alerts":[]}\n[svc-mcp: no more alerts: params.page 9 is past the last page]',
    )
    expect(alerts(none, { page: 9 })).toMatch(
      /\[\]\n\[svc-mcp: no more alerts: params\.page 9 is past the last page\]$/,
    )
    // The first page, empty, is not past anything: there are none.
    expect(alerts(none, { page: 0 })).not.toContain("no more")
  })
})
