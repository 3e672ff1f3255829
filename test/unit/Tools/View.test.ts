/**
 * An answer's view is decided once: how it is shown is resolved with the call (Call/Shown.ts, from
 * the tool and its arguments), the view of what came is chosen once by the tools' program, and
 * rendering writes the view it is given, choosing nothing.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Shown from "../../../src/Call/Shown.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { resolve } from "../../../src/Tools/Invoke.js"
import * as Render from "../../../src/Tools/Render.js"
import * as View from "../../../src/Tools/View.js"
import * as Spec from "../../support/Spec.js"

const SETTINGS = { maxOutputChars: 50_000, revealSecrets: false }
const STACKS = [{ id: "s1", name: "web", type: "Stack", tags: [], info: { state: "running", server_id: "v1" } }]

const shownOf = (args: Record<string, unknown>) => {
  const resolved = resolve(Definitions.svc_list, { resource_type: "stack", ...args })
  if (Either.isLeft(resolved)) throw new Error(resolved.left.message)
  return resolved.right
}

describe("an answer's view, decided once", () => {
  it("is resolved with the call, from its arguments: at a glance, the paths kept, whole, or a schema's", () => {
    expect(shownOf({}).shown).toEqual(Shown.Shown.Glance())
    expect(shownOf({ fields: [] }).shown).toEqual(Shown.Shown.Glance())
    expect(shownOf({ fields: ["*"] }).shown).toEqual(Shown.Shown.Whole({ because: Shown.ALL_FIELDS }))
    expect(shownOf({ fields: ["*"] }).fields).toBeUndefined()
    expect(shownOf({ schema: true, fields: ["name"] }).shown).toEqual(Shown.Shown.Whole({ because: Shown.SCHEMA }))
    const shaped = shownOf({ fields: ["name", "info.state"] })
    expect(shaped.shown).toEqual(Shown.Shown.Shaped({ fields: ["name", "info.state"] }))
    expect(shaped.fields).toEqual(["name", "info.state"])
  })

  it("chooses the view of what came from what the call resolved, and of nothing else", () => {
    const whole = Shown.Shown.Whole({ because: Shown.ALL_FIELDS })
    const endpoint = "read/ListStacks"
    expect(View.choose(Definitions.svc_list, { endpoint, shown: whole }, STACKS)._tag).toBe("Whole")
    expect(View.choose(Definitions.svc_list, { endpoint, shown: Shown.Shown.Glance() }, STACKS)._tag).toBe("Rows")
    // At a glance, an answer no glance fits is shown whole.
    expect(View.choose(Definitions.svc_list, { endpoint, shown: Shown.Shown.Glance() }, { odd: 1 })._tag).toBe("Whole")
  })

  it("is written by Render as given: a list given the whole view is shown whole, given rows as rows", () => {
    const call = shownOf({})
    const outcome = { ...call, data: STACKS, text: JSON.stringify(STACKS) }
    const asRows = Render.success(
      Definitions.svc_list,
      { ...outcome, view: View.choose(Definitions.svc_list, call, STACKS) },
      SETTINGS,
    )
    expect(asRows.structuredData).toHaveProperty("columns")
    const asWhole = Render.success(Definitions.svc_list, { ...outcome, view: View.View.Whole() }, SETTINGS)
    expect(asWhole.structuredData).toEqual({ result: STACKS })
  })

  it("is never chosen by Render: it names View's types alone, and no choice of a view", () => {
    const source = Fs.readFileSync(Path.join(Spec.root, "src/Tools/Render.ts"), "utf8")
    expect(source).toMatch(/^import type \* as View from "\.\/View\.js"$/m)
    expect(source).not.toMatch(/\bView\.(choose|ask)\b|\bchoose\(/)
    expect(source).not.toMatch(/^import (?!type)[^\n]*"\.\/View\.js"/m)
  })
})
