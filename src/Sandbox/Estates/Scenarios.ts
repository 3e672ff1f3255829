/**
 * The sandbox's scenarios: the day the estate is having. `calm` is a good day
 * (the estate as Seed.ts makes it); `incident` is a bad morning on the small
 * estate (Incident.ts); `drift` is an estate gone apart from its repositories
 * (Drift.ts). Each runs on its own clock (Clock.ts): `calm`'s starts when the
 * sandbox does; the others' at a fixed moment, so that their ids, times and
 * logs are the same two runs in a row.
 */

import type { World } from "../World/World.js"
import * as Drift from "./Drift.js"
import * as Incident from "./Incident.js"

export type Scenario = "calm" | "incident" | "drift"

/** Each scenario, with the line `--scenario list` prints for it. */
export const SCENARIOS: ReadonlyArray<readonly [Scenario, string]> = [
  ["calm", "a good day: everything runs, one memory alert on prod-02 (the default)"],
  [
    "incident",
    "a bad morning: api crash-loops on a new tag, prod-02's disk 96% full, staging-01 unreachable, a failed build",
  ],
  [
    "drift",
    "repositories moved on: estate-sync has changes to create, update and delete; web's and monitoring's files changed",
  ],
]

/** Sets the scenario's day on an estate already seeded. */
export const apply = (world: World, scenario: Scenario): void => {
  if (scenario === "incident") Incident.apply(world, world.clock)
  if (scenario === "drift") Drift.apply(world, world.clock)
}
