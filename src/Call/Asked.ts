/**
 * Why a call is asked before it is sent, as one value: resolved once where the call is resolved
 * (Confirmation/WhyAsked.ts), carried in the call's context (Context.ts), and read by the question,
 * the audit line and telemetry, so that none of them works it out again. Each reason names the
 * setting that asks as this service spells it (SVC_STAGING_CONFIRM among several), the pattern or
 * rule, and what the call touches that the pattern names. Nothing here imports the program.
 */
import * as Data from "effect/Data"

/** One reason a call is asked. */
export type Reason = Data.TaggedEnum<{
  /**
   * An operator's pattern names the call (SVC_CONFIRM): the setting, its pattern as written, and
   * what the call touches that the pattern's `@` part names, in words (`web carries the tag
   * production`; empty for a pattern without one).
   */
  Pattern: { readonly setting: string; readonly pattern: string; readonly touched: ReadonlyArray<string> }
  /** The service shows a secret once in its answer, and SVC_REVEAL_SECRETS is off: the user is told first. */
  ShownOnce: { readonly setting: string; readonly pattern: string }
  /** The guard holds the change (SVC_GUARD): what the caller read before it, and why it is held. */
  Held: { readonly read: string; readonly why: string }
}>
export const Reason = Data.taggedEnum<Reason>()

/** Why a call is asked: the setting's reason first (when one asks), then the guard's (when it holds the call). */
export interface Asked {
  readonly reasons: readonly [Reason, ...ReadonlyArray<Reason>]
}

/** The reasons in force, when any is: the call is asked; none, it is not. */
export const of = (reasons: ReadonlyArray<Reason>): Asked | undefined =>
  reasons.length === 0 ? undefined : { reasons: reasons as Asked["reasons"] }

/** The reason that asks first: the operator's setting before the guard. */
export const first = (asked: Asked): Reason => asked.reasons[0]

/** The guard's hold among the reasons, if it holds the call. */
export const heldOf = (asked: Asked): Extract<Reason, { _tag: "Held" }> | undefined =>
  asked.reasons.find((reason): reason is Extract<Reason, { _tag: "Held" }> => reason._tag === "Held")

/** The setting that asks, as the user and the record name it: SVC_CONFIRM, SVC_REVEAL_SECRETS or SVC_GUARD. */
export const settingOf = (reason: Reason): string => (reason._tag === "Held" ? "SVC_GUARD" : reason.setting)

/** The guard's rule in the words the record gives it: the setting that decided, or the table's reason under SVC_GUARD. */
const heldWords = (why: string) => (why.startsWith("SVC_GUARD") ? why : `SVC_GUARD (${why})`)

/**
 * One reason as a record says it: `SVC_CONFIRM (svc_delete:*)`, with what the pattern's `@` part
 * matched (`SVC_CONFIRM (*@tag:production: web carries the tag production)`), or the guard's rule.
 */
export const wordsOf = (reason: Reason): string =>
  Reason.$match(reason, {
    Pattern: ({ setting, pattern, touched }) =>
      `${setting} (${pattern}${touched.length === 0 ? "" : `: ${touched.join("; ")}`})`,
    ShownOnce: ({ setting, pattern }) => `${setting} (${pattern})`,
    Held: ({ why }) => heldWords(why),
  })

/** Every reason, as the audit line's `confirmation` says it. */
export const recorded = (asked: Asked): string => asked.reasons.map(wordsOf).join(", and ")

/** The settings and patterns alone, with no name of a resource: what telemetry's attribute holds. */
export const attribute = (asked: Asked): string =>
  asked.reasons
    .map((reason) => (reason._tag === "Held" ? heldWords(reason.why) : `${reason.setting} (${reason.pattern})`))
    .join(", ")
