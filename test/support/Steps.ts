/**
 * Effect's steps counted: a scheduler that defers to the default one, and whose `shouldYield`,
 * which the run loop asks once a step, counts. The fibers of an Effect run `withScheduler` it
 * inherit it, and so do the fibers they fork (test/unit/Call/CallSteps.test.ts, StartSteps.test.ts).
 */
import * as Scheduler from "effect/Scheduler"

export interface Counter {
  readonly scheduler: Scheduler.Scheduler
  /** The steps counted since the counter was made or last reset. */
  readonly steps: () => number
  readonly reset: () => void
}

export const counter = (): Counter => {
  let steps = 0
  return {
    scheduler: Scheduler.make(
      (task, priority) => Scheduler.defaultScheduler.scheduleTask(task, priority),
      (fiber) => {
        steps++
        return Scheduler.defaultScheduler.shouldYield(fiber)
      },
    ),
    steps: () => steps,
    reset: () => {
      steps = 0
    },
  }
}
