/**
 * The variables set that no setting reads (Settings/Unknown.ts), against the one list of those
 * the server reads (Variables.ts): a warning each as a server starts, a `[warn]` line each in
 * `check`, beside the calls that lose data asked of no one.
 */
import * as Effect from "effect/Effect"
import { formatStep } from "../Diagnosis/Check.js"
import * as Destructive from "../Diagnosis/Destructive.js"
import type { ConfigError } from "../Settings/Read.js"
import * as Unknown from "../Settings/Unknown.js"
import type { Command } from "./CommandLine.js"
import { ALL } from "./Variables.js"

const found = Effect.suspend(() => Unknown.found(ALL.map((variable) => variable.name)))

/** A warning for each, as a server starts. */
export const atStart = (command: Command): Effect.Effect<void> =>
  command._tag === "Serve"
    ? Effect.flatMap(found, (unknown) =>
        Effect.forEach(unknown, (u) => Effect.logWarning(Unknown.words(u)), { discard: true }),
      )
    : Effect.void

/**
 * `check`'s lines of the settings: one for each variable no setting reads, then the step on the
 * calls that lose data the configuration offers and asks of no one (Diagnosis/Destructive.ts).
 */
export const checkLines: Effect.Effect<ReadonlyArray<string>, ConfigError> = Effect.gen(function* () {
  const unknown = yield* found
  const losing = yield* Destructive.step
  return [...unknown.map((u) => `  [warn] settings ${Unknown.words(u)}`), ...formatStep(losing)]
})
