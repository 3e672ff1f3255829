/**
 * The design rules (test/unit/Hygiene.test.ts) run first, in the same vitest start as the rest:
 * the sequencer puts their file before every other, and the reporter ends the run as soon as
 * that file fails, so that a broken rule is said in seconds, as `npm run check:design` says it
 * alone, and nothing else is run on a design the rules refuse.
 */
import type { BaseSequencer, Reporter, TestModule, TestSpecification, Vitest } from "vitest/node"

const DESIGN = /(^|[\\/])test[\\/]unit[\\/]Hygiene\.test\.ts$/

const isDesign = (file: string) => DESIGN.test(file)

/** The files in the order given, the design rules' first. */
const designFirst = <A extends { readonly moduleId: string }>(sorted: ReadonlyArray<A>): Array<A> => [
  ...sorted.filter((spec) => isDesign(spec.moduleId)),
  ...sorted.filter((spec) => !isDesign(spec.moduleId)),
]

/**
 * The sequencer: vitest's order (the `Base` given, its BaseSequencer: vitest.config.ts passes it), the
 * design rules first. Made from the class given so that this module loads none of vitest's node API
 * (vite with it): the test thread that imports it, to test it, would spend 0.4 s of CPU loading that,
 * where the config has it loaded already.
 */
export const designFirstSequencer = (Base: typeof BaseSequencer): typeof BaseSequencer =>
  class DesignFirstSequencer extends Base {
    override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
      return designFirst(await super.sort(files))
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
