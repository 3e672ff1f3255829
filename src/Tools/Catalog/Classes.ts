/**
 * The named classes a pattern setting may give instead of `tool:selector` (Settings/ToolSettings.ts):
 * `destructive`, every call that removes or stops something. It is data, not a list kept by
 * hand: every selector of a tool whose every call removes what it names (svc_delete, whose
 * annotations say destructive and whose endpoints all delete), and every selector whose words
 * Tables.removes gives (the prunes, destroys, removes and stops of svc_execute; at SVC_REACH=all,
 * the changes that take a user out of a group or disable them). `test/unit/Tools/Classes.test.ts` holds
 * it to the service's own names for what removes or stops.
 */
import type { PatternClass } from "../../Settings/ToolSettings.js"
import * as Definitions from "./Definitions.js"
import * as Tables from "./Tables.js"

/** The tools each of whose selectors removes what it names. */
const REMOVES_ALWAYS: ReadonlySet<string> = new Set(["svc_delete"])

/** Whether a call of `tool` with `selector` removes or stops something. */
export const isDestructive = (tool: string, selector: string): boolean =>
  REMOVES_ALWAYS.has(tool) || Object.hasOwn(Tables.removes[tool] ?? {}, selector)

const TESTS: Readonly<Record<PatternClass, (tool: string, selector: string) => boolean>> = {
  destructive: isDestructive,
}

/** Whether `tool:selector` is of the class. */
export const holds = (name: PatternClass, tool: string, selector: string): boolean => TESTS[name](tool, selector)

/** The class's selectors among these tools, as `tool:selector`. */
export const members = (
  name: PatternClass,
  tools: ReadonlyArray<{ readonly name: string; readonly selectors: ReadonlyArray<string> }>,
): ReadonlyArray<string> =>
  tools.flatMap((tool) =>
    tool.selectors.filter((selector) => holds(name, tool.name, selector)).map((selector) => `${tool.name}:${selector}`),
  )

/**
 * The class's members in words, a line per tool, as `--help` and the docs list them: a tool
 * whose every call removes by its name alone, the others by their selectors (those of
 * svc_update are of SVC_REACH=all).
 */
export const destructiveByTool = (): ReadonlyArray<readonly [tool: string, selectors: string]> => [
  ...[...REMOVES_ALWAYS].map((tool) => [tool, "every selector"] as const),
  ...Object.entries(Tables.removes).map(([tool, table]) => {
    const offered = Definitions.all.find((t) => t.name === tool)?.selectors ?? []
    const selectors = Object.keys(table)
    const reach = selectors.some((selector) => offered.includes(selector)) ? "" : " (SVC_REACH=all)"
    return [`${tool}${reach}`, selectors.join(", ")] as const
  }),
]
