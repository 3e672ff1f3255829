/**
 * A next step an answer points to (a Glimpse's `next`), said as this caller is offered it: as the
 * call where its mode and reach offer it; where a setting holds it back, as what the operator would
 * change (SVC_MODE, SVC_REACH), never as a call to make.
 */
import type { Mode, Reach } from "../Settings/ToolSettings.js"
import * as Definitions from "./Catalog/Definitions.js"
import { TIERS } from "./Policy/Policy.js"
import type { Step } from "./Records/Records.js"
import { REFRESH } from "./Sync/SyncPlan.js"

/** Every step an answer points to: a test walks each over every mode and reach. */
export const STEPS: ReadonlyArray<Step> = [REFRESH]

/** What decides whether a step is offered: the server's mode and reach (as the settings hold them). */
export interface Offering {
  readonly mode?: Mode
  readonly reach?: Reach
}

/** The least mode whose tiers hold the tool's. */
const leastMode = (tier: string): Mode | undefined =>
  (Object.keys(TIERS) as Array<Mode>).find((mode) => (TIERS[mode] as ReadonlyArray<string>).includes(tier))

/** The settings the operator would change for this caller to be offered `step`: none where it is. */
const heldBy = (step: Step, offering: Offering): ReadonlyArray<string> => {
  const tool = Definitions.byName.get(step.tool)
  if (tool === undefined) return ["(no such tool)"]
  const mode = offering.mode ?? "read-only"
  const settings: Array<string> = []
  if (!(TIERS[mode] as ReadonlyArray<string>).includes(tool.tier))
    settings.push(`SVC_MODE=${leastMode(tool.tier) ?? "full"}`)
  const inInterface = tool.selectors.includes(step.selector)
  if (!inInterface && offering.reach !== "all") settings.push("SVC_REACH=all")
  return settings
}

/** The step as one line: the call and what it does, or what the operator would set for it. */
export const stepLine = (step: Step, offering: Offering): string => {
  const held = heldBy(step, offering)
  return held.length === 0
    ? `[svc-mcp: ${step.tool} ${step.selector} ${step.does}]\n`
    : `[svc-mcp: ${step.want}, the operator would start this server with ${held.join(" and ")}; it is not offered here]\n`
}
