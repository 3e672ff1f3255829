/**
 * Records at a glance: one record (an execution's result, a resource, a
 * sync's pending changes) shown by what an operator looks at first, in place
 * of the service's whole record, which `fields: ["*"]` still gives. Each kind
 * says where its glance holds untrusted text, for the fences.
 */
import type { Pattern } from "../../Untrusted/Derive.js"

export interface Glimpse {
  /** What the text shows, and structuredContent holds. */
  readonly value: unknown
  /** Where `value` holds untrusted text: its paths, as Untrusted/Paths.ts writes them. */
  readonly untrusted: ReadonlyArray<Pattern>
  /** A first line of the answer's own, ending in a line break. */
  readonly line?: string
}
