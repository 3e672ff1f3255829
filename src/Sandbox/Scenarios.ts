/**
 * The sandbox's scenarios: the day the estate is having. `calm` is a good day
 * (the estate as Seed.ts makes it); `incident` is a bad morning on the small
 * estate (Incident.ts). A scenario other than `calm` runs on its own clock
 * (Clock.ts), so that its ids, times and logs are the same two runs in a row.
 */
import type { Clock } from "./Clock.js"
import * as Incident from "./Incident.js"
import type { World } from "./World.js"

export type Scenario = "calm" | "incident"

/** Each scenario, with the line `--scenario list` prints for it. */
export const SCENARIOS: ReadonlyArray<readonly [Scenario, string]> = [
  ["calm", "a good day: everything runs, one memory alert on prod-02 (the default)"],
  [
    "incident",
    "a bad morning: api crash-loops on a new tag, prod-02's disk 96% full, staging-01 unreachable, a failed build",
  ],
]

/** Sets the scenario's day on an estate already seeded. */
export const apply = (world: World, scenario: Scenario, clock: Clock | undefined): void => {
  if (scenario === "incident" && clock !== undefined) Incident.apply(world, clock)
}
