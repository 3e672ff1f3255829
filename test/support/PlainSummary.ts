/**
 * A last line any CI can read: "N passed, N failed".
 */
import type { Reporter, RunnerTask } from "vitest/node"

const count = (tasks: ReadonlyArray<RunnerTask>, totals = { passed: 0, failed: 0, skipped: 0 }) => {
  for (const task of tasks) {
    if (task.type === "test") {
      const state = task.result?.state
      if (state === "pass") totals.passed++
      else if (state === "fail") totals.failed++
      else totals.skipped++
    } else if ("tasks" in task) {
      count(task.tasks, totals)
    }
  }
  return totals
}

export default class PlainSummary implements Reporter {
  onFinished(files: ReadonlyArray<RunnerTask> = []) {
    const { passed, failed, skipped } = count(files)
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`)
  }
}
