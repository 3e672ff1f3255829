/**
 * The variables set that no setting reads (Settings/Unknown.ts), against the one list of those
 * the server reads (Variables.ts): a warning each as a server starts, a `[warn]` line each in
 * `check`.
 */
import * as Effect from "effect/Effect"
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

/** `check`'s lines for them: none when every variable set is a setting. */
export const checkLines: Effect.Effect<ReadonlyArray<string>> = Effect.map(found, (unknown) =>
  unknown.map((u) => `  [warn] settings ${Unknown.words(u)}`),
)
