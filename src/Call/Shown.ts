/**
 * How a call's answer is to be shown, as one value: resolved once where the call is resolved
 * (Tools/Invoke.ts, by Tools/View.ts's `ask`) from its tool, its arguments and the settings, and
 * carried with it, so that no later stage works it out again: the tools' program reads it for what
 * it reads beside the answer, and the answer's view (Tools/View.ts `choose`, once per answer) is
 * made from it; rendering reads only that view. Nothing here imports the program.
 */
import * as Data from "effect/Data"

export type Shown = Data.TaggedEnum<{
  /** As its tool shows its answers at a glance (a list's rows, a record, an execution); whole where none fits. */
  Glance: Record<never, never>
  /** The paths `fields` kept. */
  Shaped: { readonly fields: ReadonlyArray<string> }
  /**
   * The answer whole, and what asked for it: `fields: ["*"]`, `schema` (a schema answer), or a
   * setting, by its name.
   */
  Whole: { readonly because: string }
}>
export const Shown = Data.taggedEnum<Shown>()

/** `fields: ["*"]`: the service's whole answer, as it came. */
export const ALL_FIELDS = 'fields: ["*"]'

/** A schema answer (`schema: true` or a shape's name), which is never shaped. */
export const SCHEMA = "schema"
