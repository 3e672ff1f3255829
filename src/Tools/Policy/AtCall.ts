/**
 * SVC_DENY and SVC_ALLOW patterns with `@`, decided at call time from what the call touches
 * (Targets.ts): tools/list cannot depend on what a call will touch, so a selector they name stays
 * listed, and a call is refused once its targets are read. A deny pattern refuses a call that
 * touches what it names, or whose targets cannot be read (the cautious side); an allow pattern
 * admits only a call that touches what it names, and one whose targets cannot be read is not
 * admitted (the cautious side again: an unread target counts as matching a deny, never an allow).
 */
import * as Effect from "effect/Effect"
import type { PatternReader } from "../../Shared/PatternReader.js"
import type { SvcClient } from "../../SvcClient.js"
import type { AtCall } from "./Policy.js"
import { type Resolved, touched } from "./Targets.js"

/** Why the call is refused, in the refusal's words; undefined: it may be sent. */
export const refusal = (
  atCall: AtCall,
  targets: Effect.Effect<Resolved, never, SvcClient | PatternReader>,
  variable: (single: string) => string,
): Effect.Effect<string | undefined, never, SvcClient | PatternReader> => {
  const { deny, allowOnly } = atCall
  if (deny.length === 0 && allowOnly === undefined) return Effect.succeed(undefined)
  return Effect.map(targets, (resolved) => {
    for (const pattern of deny) {
      const words = pattern.touches === undefined ? [] : touched(pattern.touches, resolved)
      if (words.length > 0) return `denied by ${variable("SVC_DENY")} (${pattern.text}: ${words.join("; ")})`
    }
    if (allowOnly === undefined) return undefined
    const read = { targets: resolved.targets, unread: [] }
    const admits = allowOnly.some((p) => p.touches !== undefined && touched(p.touches, read).length > 0)
    if (admits) return undefined
    const unread = resolved.unread.length === 0 ? "" : ` (${resolved.unread.join("; ")})`
    return `not admitted by ${variable("SVC_ALLOW")} (${allowOnly.map((p) => p.text).join(", ")}): it touches nothing they name${unread}`
  })
}
