/**
 * An answer as the tools' program gives it to rendering, for tests that render one they made:
 * how it is shown resolved as the call's resolution does (`whole` for `fields: ["*"]`, `fields`
 * for the paths kept, else at a glance), and its view chosen once (View.ts `choose`), as
 * Tools/Invoke.ts does. Rendering itself chooses nothing.
 */
import * as Shown from "../../src/Call/Shown.js"
import type { Tool } from "../../src/Tools/Catalog/Tool.js"
import type { ToolSuccess } from "../../src/Tools/Invoke.js"
import * as Render from "../../src/Tools/Render.js"
import * as View from "../../src/Tools/View.js"

/** An answer made by a test: `whole` stands for `fields: ["*"]`; `shown` and `view`, where not given, are made. */
export type Made = Omit<ToolSuccess, "shown" | "view"> & {
  readonly whole?: boolean
  readonly shown?: Shown.Shown
  readonly view?: View.View
}

const shownOf = (made: Made): Shown.Shown =>
  made.shown ??
  (made.schema
    ? Shown.Shown.Whole({ because: Shown.SCHEMA })
    : made.whole === true
      ? Shown.Shown.Whole({ because: Shown.ALL_FIELDS })
      : made.fields === undefined
        ? Shown.Shown.Glance()
        : Shown.Shown.Shaped({ fields: made.fields }))

/** The answer with how it is shown and its view, as the tools' program makes them. */
const viewed = (tool: Tool, made: Made): ToolSuccess => {
  const { whole: _, ...rest } = made
  const shown = shownOf(made)
  return {
    ...rest,
    shown,
    view: made.view ?? View.choose(tool, { endpoint: made.endpoint, shown }, made.data, made.text),
  }
}

/** Render.success of an answer a test made, viewed first. */
export const success = (tool: Tool, made: Made, settings: Render.OutputSettings): Render.Rendered =>
  Render.success(tool, viewed(tool, made), settings)
