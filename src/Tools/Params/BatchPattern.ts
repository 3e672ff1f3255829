/**
 * A batch's `pattern` read before anything is sent. A regex entry its engine refuses
 * (Shared/NamePattern.ts: RE2, as the service reads Rust's regex) is refused as a param the
 * endpoint's definition refuses is: with the engine's reason, before any question, and nothing
 * reaches the service. Patterns of wildcards alone are never refused, and load no engine.
 */
import * as Effect from "effect/Effect"
import { isObject } from "../../Shared/JsonShape.js"
import * as NamePattern from "../../Shared/NamePattern.js"
import type { ParamsCheckShape } from "./ParamsCheck.js"
import type { Checked } from "./ParamsValidation.js"

/** A batch endpoint's params as its definition says them, where the definitions are not at hand. */
const BATCH_PARAMS = "{pattern: string, tags?: string[]}"

const isBatch = (endpoint: string) => endpoint.startsWith("Batch", endpoint.indexOf("/") + 1)

/** `checked` as it was, or Invalid where it is a batch's whose pattern holds a regex the engine refuses. */
export const withPattern = (
  endpoint: string,
  checked: Checked,
  check: Pick<ParamsCheckShape, "describe">,
): Effect.Effect<Checked> => {
  if (checked._tag === "Invalid" || !isBatch(endpoint)) return Effect.succeed(checked)
  const pattern = isObject(checked.body) ? checked.body.pattern : undefined
  if (typeof pattern !== "string" || !NamePattern.entries(pattern).some(NamePattern.isRegex)) {
    return Effect.succeed(checked)
  }
  return Effect.flatMap(
    Effect.promise(() => NamePattern.compile(pattern)),
    (compiled): Effect.Effect<Checked> =>
      compiled._tag === "Test"
        ? Effect.succeed(checked)
        : Effect.map(check.describe(endpoint), (described) => ({
            _tag: "Invalid",
            problems: [
              {
                path: "params.pattern",
                message: `the regex ${compiled.entry} is not one the service reads (${compiled.reason}); the service reads Rust's regex syntax: no look-around, no back-references`,
              },
            ],
            accepted: described?.accepted ?? BATCH_PARAMS,
          })),
  )
}
