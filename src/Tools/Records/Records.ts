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
  /** A next step the answer points to: said as a call where this caller is offered it (Hints.ts). */
  readonly next?: Step
}

/**
 * A call an answer points to, and what it does: `does` follows the call where it is offered
 * (`svc_execute refresh_sync_pending` `computes the plan anew`); `want` leads where a setting holds
 * it back (`to compute the plan anew`), and the setting the operator would change follows.
 */
export interface Step {
  readonly tool: string
  readonly selector: string
  readonly does: string
  readonly want: string
}
