/**
 * `npm run test:unit` is one vitest start: the design rules (test/unit/Hygiene.test.ts) are put
 * before every other file, and their failure ends the run (test/support/DesignFirst.ts).
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import type { BaseSequencer, TestModule, TestSpecification, Vitest } from "vitest/node"
import { DesignFirstReporter, designFirstSequencer } from "../support/DesignFirst.js"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")

const spec = (file: string) =>
  ({ moduleId: Path.join(root, file), project: { name: "unit" } }) as unknown as TestSpecification

/** A vitest that records the runs it was told to cancel. */
const vitest = (cancelled: Array<string>) =>
  ({
    config: { root },
    cancelCurrentRun: async (reason: string) => {
      cancelled.push(reason)
    },
  }) as unknown as Vitest

/**
 * A sequencer with an order of its own (the files' names backwards), in place of vitest's
 * BaseSequencer, which vitest.config.ts passes: that one orders by the last run's times, kept in
 * node_modules, and loading it here would load vite into this thread.
 */
class Backwards {
  async shard(files: Array<TestSpecification>) {
    return files
  }
  async sort(files: Array<TestSpecification>) {
    return [...files].sort((a, b) => b.moduleId.localeCompare(a.moduleId))
  }
}

const ended = (file: string, state: "passed" | "failed") =>
  ({ moduleId: Path.join(root, file), state: () => state }) as unknown as TestModule

describe("the design rules first, in the lane's own start", () => {
  it("the sequencer puts test/unit/Hygiene.test.ts before every other file, the others in the order of the sequencer it is made from", async () => {
    const files = ["test/unit/Sandbox/Sandbox.test.ts", "test/unit/Hygiene.test.ts", "test/unit/Tools/Tools.test.ts"]
    const Sequencer = designFirstSequencer(Backwards as unknown as typeof BaseSequencer)
    const sorted = await new Sequencer(vitest([])).sort(files.map(spec))
    expect(sorted.map((s) => Path.relative(root, s.moduleId))).toEqual([
      "test/unit/Hygiene.test.ts",
      "test/unit/Tools/Tools.test.ts",
      "test/unit/Sandbox/Sandbox.test.ts",
    ])
  })

  it("the design rules failing end the run; their passing, or another file failing, do not", () => {
    const cancelled: Array<string> = []
    const reporter = new DesignFirstReporter()
    reporter.onInit(vitest(cancelled))
    reporter.onTestModuleEnd(ended("test/unit/Hygiene.test.ts", "passed"))
    reporter.onTestModuleEnd(ended("test/unit/Tools/Tools.test.ts", "failed"))
    expect(cancelled).toEqual([])
    const said: Array<string> = []
    const write = process.stderr.write
    process.stderr.write = ((text: string) => said.push(text) > 0) as typeof process.stderr.write
    try {
      reporter.onTestModuleEnd(ended("test/unit/Hygiene.test.ts", "failed"))
    } finally {
      process.stderr.write = write
    }
    expect(cancelled).toEqual(["test-failure"])
    expect(said.join("")).toMatch(/The design rules failed \(test\/unit\/Hygiene\.test\.ts\): the run stops here\./)
  })

  it("npm run test:unit is that one start, and npm run check:design the rules alone", () => {
    const scripts = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")).scripts
    expect(scripts["test:unit"]).toBe("vitest run --project unit")
    expect(scripts["check:design"]).toBe("vitest run --project unit test/unit/Hygiene.test.ts")
  })
})
