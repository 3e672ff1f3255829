/**
 * What `check` says of the calls that lose data: those the configuration offers the assistant
 * (its mode, reach and patterns) that no setting asks the user before (SVC_CONFIRM, by the class
 * destructive or by patterns). A warning, as each of them would run unasked.
 */
import * as Effect from "effect/Effect"
import type { ConfigError } from "../Settings/Read.js"
import * as PolicySettings from "../Settings/ToolSettings.js"
import * as Classes from "../Tools/Catalog/Classes.js"
import * as Policy from "../Tools/Policy/Policy.js"

/** A step of `check` (Check.ts's own shape; named here so that Check.ts can offer this one). */
interface Step {
  readonly name: string
  readonly status: "ok" | "warn" | "fail"
  readonly detail: string
  readonly hint?: string
}

/** The calls that remove or stop something this policy offers and does not ask before, as `tool:selector`. */
const unaskedOf = (policy: Policy.PolicyShape): ReadonlyArray<string> =>
  policy.tools.flatMap((tool) =>
    tool.selectors
      .filter(
        (selector) => Classes.isDestructive(tool.name, selector) && policy.confirmation(tool, selector) === undefined,
      )
      .map((selector) => `${tool.name}:${selector}`),
  )

/** The step: ok when each such call is asked first, or none is offered; a warning naming each otherwise. */
export const stepOf = (policy: Policy.PolicyShape): Step => {
  const unasked = unaskedOf(policy)
  if (unasked.length === 0) {
    return {
      name: "losing",
      status: "ok",
      detail: "every call offered that removes or stops something is asked first (or none is offered)",
    }
  }
  const byTool = new Map<string, Array<string>>()
  for (const item of unasked) {
    const [tool = "", selector = ""] = item.split(":")
    byTool.set(tool, [...(byTool.get(tool) ?? []), selector])
  }
  return {
    name: "losing",
    status: "warn",
    detail: `${unasked.length} calls that remove or stop something are offered and asked of no one: ${[...byTool]
      .map(([tool, selectors]) => `${tool}: ${selectors.join(", ")}`)
      .join("; ")}`,
    hint: "set SVC_CONFIRM=destructive to ask the user before each (or SVC_DENY=destructive to offer none)",
  }
}

/** The step for the settings of this environment. */
export const step: Effect.Effect<Step, ConfigError> = Effect.flatMap(PolicySettings.loadSettings, (settings) =>
  Effect.map(
    Effect.flatMap(Policy.toolsOf(settings.reach), (tools) => Policy.make(settings, tools)),
    stepOf,
  ),
)
