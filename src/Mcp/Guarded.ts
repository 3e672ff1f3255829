/**
 * The guard's part of one call (SVC_GUARD, Untrusted/Guard.ts): a read of
 * untrusted text opens the caller's window; a change within it is held or let
 * through as the table decides; a held change that cannot be asked is refused
 * in words an assistant relays.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { Call } from "../Tools/Invoke.js"
import { callerOf } from "../Untrusted/Caller.js"
import type * as Guard from "../Untrusted/Guard.js"

/** A change made within the caller's window, and whether the guard holds it. */
export interface Held {
  readonly window: Guard.Window
  readonly decision: Guard.Decision
}

/** The caller received untrusted text (`read`, in words): its changes in the window are guarded. */
export const noteRead = (guard: Option.Option<Guard.GuardShape>, read: string | undefined): Effect.Effect<void> =>
  Option.isNone(guard) || read === undefined
    ? Effect.void
    : Effect.flatMap(callerOf, (caller) => guard.value.store.mark(caller, read, guard.value.windowMs))

/**
 * What the caller read within its window, and the guard's decision, when this
 * call changes something (a schema-only call sends nothing, and is not guarded).
 */
export const inWindow = (guard: Option.Option<Guard.GuardShape>, call: Call): Effect.Effect<Option.Option<Held>> => {
  if (Option.isNone(guard) || call.tool.group === "read" || Either.isLeft(call.invocation)) {
    return Effect.succeed(Option.none())
  }
  const invocation = call.invocation.right
  if (invocation.schema) return Effect.succeed(Option.none())
  const endpoint = invocation.endpoint.slice(invocation.endpoint.indexOf("/") + 1)
  return Effect.map(Effect.flatMap(callerOf, guard.value.store.recent), (window) =>
    Option.map(window, (w) => ({
      window: w,
      decision: guard.value.decide(call.tool.name, invocation.selector, endpoint),
    })),
  )
}

/** A time a person reads: UTC, to the second. */
const clockTime = (epochMs: number) => `${new Date(epochMs).toISOString().slice(0, 19).replace("T", " ")} UTC`

/**
 * Why a held change is refused to a client that cannot be asked: which read
 * opened the window, when it ends, and the way forward in one sentence.
 */
export const refusal = ({ window, decision }: Held): string =>
  `this change ${decision.why.startsWith("SVC_GUARD") ? `is held by ${decision.why}` : `${decision.why}, so it is held`} because it follows reading ${window.source}, which may carry instructions (SVC_GUARD), until ${clockTime(window.until)}; this client can answer neither input_required nor elicitation requests. To go on: use a client that can answer the confirmation, or the user makes this change themselves, or wait until ${clockTime(window.until)}, or the operator changes SVC_GUARD_HOLD or SVC_GUARD`
