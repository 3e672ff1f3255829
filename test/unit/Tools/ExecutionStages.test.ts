/**
 * An execution's stages at a glance: of an Update that succeeded, the Update's `success` says once
 * that each stage did; of one that failed, each stage says whether it succeeded.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Execution from "../../../src/Tools/Records/Execution.js"

const log = (stage: string, success: boolean, stdout = "") => ({ stage, success, stdout, stderr: "" })

const update = (success: boolean, logs: ReadonlyArray<unknown>) => ({
  operation: "DeployStack",
  status: "Complete",
  success,
  target: { type: "System", id: "" },
  logs,
})

describe("an execution's stages at a glance", () => {
  it("of an Update that succeeded name each stage, without an ok each", () => {
    const { value } = Execution.glance(update(true, [log("pull", true), log("up", true, "done\n")]), {}, undefined)
    expect((value as { stages: unknown }).stages).toEqual([{ stage: "pull" }, { stage: "up", out: "done" }])
  })

  it("of an Update that failed say of each stage whether it succeeded", () => {
    const { value } = Execution.glance(update(false, [log("pull", true), log("up", false, "boom\n")]), {}, undefined)
    expect((value as { stages: unknown }).stages).toEqual([
      { stage: "pull", ok: true },
      { stage: "up", ok: false, out: "boom" },
    ])
  })
})
