/**
 * The design rules (test/unit/Hygiene.test.ts) run first, in the same vitest start as the rest:
 * the sequencer puts their file before every other, and the reporter ends the run as soon as
 * that file fails, so that a broken rule is said in seconds, as `npm run check:design` says it
 * alone, and nothing else is run on a design the rules refuse.
 */
import { BaseSequencer, type Reporter, type TestModule, type TestSpecification, type Vitest } from "vitest/node"

const DESIGN = /(^|[\\/])test[\\/]unit[\\/]Hygiene\.test\.ts$/

const isDesign = (file: string) => DESIGN.test(file)

export class DesignFirstSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    return [...sorted.filter((spec) => isDesign(spec.moduleId)), ...sorted.filter((spec) => !isDesign(spec.moduleId))]
  }
}

export class DesignFirstReporter implements Reporter {
  private vitest: Vitest | undefined

  onInit(vitest: Vitest) {
    this.vitest = vitest
  }

  onTestModuleEnd(module: TestModule) {
    if (!isDesign(module.moduleId) || module.state() !== "failed") return
    process.stderr.write("\nThe design rules failed (test/unit/Hygiene.test.ts): the run stops here.\n")
    // Not awaited, as vitest's own bail does: the workers' report of this file waits on this hook.
    void this.vitest?.cancelCurrentRun("test-failure")
  }
}
