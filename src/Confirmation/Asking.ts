/**
 * Why one call is asked, resolved once (Call/Asked.ts): the operator's SVC_CONFIRM pattern that
 * names it (or SVC_REVEAL_SECRETS off before a secret the service shows once), and the guard's
 * hold. The adapter resolves it where it resolves the call and carries it in the call's context;
 * the question, the audit line and telemetry read that value and work nothing out again.
 */
import * as Asked from "../Call/Asked.js"
import type { Pattern } from "../Settings/Policy.js"
import type { Invocation } from "../Tools/Invoke.js"
import type * as Guard from "../Untrusted/Guard.js"

/** A change the guard holds: what the caller read before it, within its window, and why it is held. */
export interface GuardHold {
  readonly window: Guard.Window
  readonly decision: Guard.Decision
}

/** What the resolution reads that does not change between calls. */
export interface Settings {
  /** A setting's name as this service spells it (SVC_STAGING_CONFIRM among several). */
  readonly variable: (single: string) => string
}

/** The reason an operator's pattern gives, as this service names its setting. */
export const reasonOf = (settings: Settings, pattern: Pattern, touched: ReadonlyArray<string> = []): Asked.Reason =>
  pattern.variable === "SVC_REVEAL_SECRETS"
    ? Asked.Reason.ShownOnce({ setting: settings.variable(pattern.variable), pattern: pattern.text })
    : Asked.Reason.Pattern({ setting: settings.variable(pattern.variable), pattern: pattern.text, touched })

/** The guard's hold as a reason. */
export const heldReason = (hold: GuardHold): Asked.Reason =>
  Asked.Reason.Held({ read: hold.window.source, why: hold.decision.why })

/**
 * Why `invocation` is asked: the pattern that names it, then the guard's hold; undefined when
 * nothing asks (a `schema: true` call sends nothing, so nothing asks about it).
 */
export const resolve = (
  settings: Settings,
  invocation: Invocation,
  pattern: Pattern | undefined,
  hold: GuardHold | undefined,
): Asked.Asked | undefined => {
  if (invocation.schema) return undefined
  return Asked.of([
    ...(pattern === undefined ? [] : [reasonOf(settings, pattern)]),
    ...(hold === undefined ? [] : [heldReason(hold)]),
  ])
}
