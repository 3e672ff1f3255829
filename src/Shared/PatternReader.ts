/**
 * A batch pattern read off the event loop (Shared/PatternWorkers.ts: RE2 in worker threads, within
 * a time budget), by a pool of workers that is a part holding state (PatternReader, a Tag): each
 * bundle makes its own (`make`, scoped), so two servers share no worker, and its workers end when
 * the scope that made it closes. The workers' code is loaded with the first pattern that needs it,
 * never at start.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { Pool } from "./PatternWorkers.js"

export type { Answer, Job, Pool } from "./PatternWorkers.js"

/** Patterns waiting for a worker, past which one is refused at once. */
export const WAITING = 16
/** The heap a worker may use (MB): past it, it is stopped and the call refused. */
export const MEMORY_MB = 256

/** Why a pattern asked of a closed pool is refused. */
export const CLOSED = "the pattern reader was closed"

/** A pool of its own: its workers' code loaded, and its workers started, by the first pattern that needs them. */
export const makePool = (): Pool => {
  let made: Promise<Pool> | undefined
  let closed = false
  return {
    read: (job, budgetMs) => {
      if (closed) return Promise.resolve({ _tag: "Stopped", reason: CLOSED })
      made ??= import("./PatternWorkers.js").then((workers) =>
        workers.makePool({ waiting: WAITING, memoryMb: MEMORY_MB, closed: CLOSED }),
      )
      return made.then((pool) => pool.read(job, budgetMs))
    },
    close: async () => {
      closed = true
      if (made !== undefined) await (await made).close()
    },
  }
}

/** The pattern reader a bundle provides: a pool of workers, its own. */
export class PatternReader extends Context.Tag("svc-mcp/PatternReader")<PatternReader, Pool>() {}

/** A pool for the length of the scope: its workers end when the scope closes. */
export const make: Effect.Effect<Pool, never, Scope.Scope> = Effect.acquireRelease(Effect.sync(makePool), (pool) =>
  Effect.promise(() => pool.close()),
)

/** A pattern reader of its own, its workers ended when the layer's scope closes. */
export const layer: Layer.Layer<PatternReader> = Layer.scoped(PatternReader, make)
