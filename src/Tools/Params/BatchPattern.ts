/**
 * A batch's `pattern` read before anything is sent. A regex entry its engine refuses
 * (Shared/NamePattern.ts: RE2, as the service reads Rust's regex), and a pattern past a limit of
 * what it may cost (its size, its entries, its regexes' program, its time), are refused as a param
 * the endpoint's definition refuses is: with the reason, the limit named, before any question, and
 * nothing reaches the service. Patterns of wildcards within the limits are never refused, and load
 * no engine.
 */
import * as Effect from "effect/Effect"
import { isObject } from "../../Shared/JsonShape.js"
import * as NamePattern from "../../Shared/NamePattern.js"
import type { PatternReader } from "../../Shared/PatternReader.js"
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
): Effect.Effect<Checked, never, PatternReader> => {
  if (checked._tag === "Invalid" || !isBatch(endpoint)) return Effect.succeed(checked)
  const pattern = isObject(checked.body) ? checked.body.pattern : undefined
  if (typeof pattern !== "string") return Effect.succeed(checked)
  return Effect.flatMap(
    NamePattern.select(pattern, []),
    (selected): Effect.Effect<Checked, never, PatternReader> =>
      selected._tag === "Selected"
        ? Effect.succeed(checked)
        : Effect.map(check.describe(endpoint), (described) => ({
            _tag: "Invalid",
            problems: [{ path: "params.pattern", message: NamePattern.said(selected) }],
            accepted: described?.accepted ?? BATCH_PARAMS,
          })),
  )
}
