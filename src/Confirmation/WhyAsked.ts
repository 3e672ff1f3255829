/**
 * Why one call is asked, resolved once (Call/Asked.ts): the operator's SVC_CONFIRM pattern that
 * names it (with `@`, what the call touches that it names: Tools/Policy/Targets.ts), or
 * SVC_REVEAL_SECRETS off before a secret the service shows once, and the guard's hold. The adapter resolves it where it resolves the call and carries it in the call's context;
 * the question, the audit line and telemetry read that value and work nothing out again.
 */
import * as Effect from "effect/Effect"
import * as Asked from "../Call/Asked.js"
import type { Pattern } from "../Settings/ToolSettings.js"
import type { PatternReader } from "../Shared/PatternReader.js"
import type { SvcClient } from "../SvcClient.js"
import type { Invocation } from "../Tools/Invoke.js"
import { type Resolved, touched } from "../Tools/Policy/Targets.js"
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
 * The first of `patterns` that asks: one without `@` as it is; one with it when the call touches
 * what it names (read once, through `targets`, only if no pattern before it asks already).
 */
const patternReason = (
  settings: Settings,
  patterns: ReadonlyArray<Pattern>,
  targets: Effect.Effect<Resolved, never, SvcClient | PatternReader>,
): Effect.Effect<Asked.Reason | undefined, never, SvcClient | PatternReader> =>
  Effect.gen(function* () {
    for (const pattern of patterns) {
      if (pattern.touches === undefined) return reasonOf(settings, pattern)
      const words = touched(pattern.touches, yield* targets)
      if (words.length > 0) return reasonOf(settings, pattern, words)
    }
    return undefined
  })

/**
 * Why `invocation` is asked: the first of `patterns` that asks (SVC_CONFIRM's, in order), then the
 * guard's hold; undefined when nothing asks (a `schema: true` call sends nothing, so nothing asks).
 */
export const resolve = (
  settings: Settings,
  invocation: Invocation,
  patterns: ReadonlyArray<Pattern>,
  hold: GuardHold | undefined,
  targets: Effect.Effect<Resolved, never, SvcClient | PatternReader>,
): Effect.Effect<Asked.Asked | undefined, never, SvcClient | PatternReader> => {
  if (invocation.schema) return Effect.succeed(undefined)
  return Effect.map(patternReason(settings, patterns, targets), (reason) =>
    Asked.of([...(reason === undefined ? [] : [reason]), ...(hold === undefined ? [] : [heldReason(hold)])]),
  )
}
