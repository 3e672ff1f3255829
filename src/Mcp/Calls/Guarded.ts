/**
 * The guard's part of one call (SVC_GUARD, Untrusted/Guard.ts): a read of
 * untrusted text opens the window of the person and the conversation
 * (Untrusted/Caller.ts), on every service; a change within it is held or let
 * through as the table decides; a held change is confirmed (Confirmation/Flow.ts).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { CLASSES } from "../../Settings/ToolSettings.js"
import { holds } from "../../Tools/Catalog/Classes.js"
import type { Call } from "../../Tools/Invoke.js"
import * as Targets from "../../Tools/Policy/Targets.js"
import { callersOf } from "../../Untrusted/Caller.js"
import type * as Guard from "../../Untrusted/Guard.js"

/** A change made after an untrusted read within the caller's window, and whether the guard holds it. */
export interface ReadBefore {
  readonly window: Guard.Window
  readonly decision: Guard.Decision
}

/** Several names' lookups side by side (a shared store's round trips), one alone without a fiber of its own. */
const together = (count: number) => (count > 1 ? ("unbounded" as const) : 1)

/**
 * The caller received untrusted text (`read`, in words): its changes in the window are guarded.
 * Noted under each of its names: its conversation's for the conversation's life, the person's
 * for SVC_GUARD_WINDOW, in whichever conversation the person next changes something.
 */
export const noteRead = (guard: Option.Option<Guard.GuardShape>, read: string | undefined): Effect.Effect<void> => {
  if (Option.isNone(guard) || read === undefined) return Effect.void
  const { store, windowMs, conversationMs } = guard.value
  return Effect.flatMap(callersOf, ({ person, conversation }) => {
    const marks = [
      ...person.map((name) => store.mark(name, read, windowMs)),
      ...Option.toArray(conversation).map((name) => store.mark(name, read, conversationMs)),
    ]
    return Effect.all(marks, { concurrency: together(marks.length), discard: true })
  })
}

/** The latest reading in the window of any of the caller's names. */
const latest = (store: Guard.WindowStore): Effect.Effect<Option.Option<Guard.Window>> =>
  Effect.flatMap(callersOf, ({ person, conversation }) => {
    const names = [...Option.toArray(conversation), ...person]
    return Effect.map(Effect.forEach(names, store.recent, { concurrency: together(names.length) }), (found) => {
      let best: Option.Option<Guard.Window> = Option.none()
      for (const window of found) {
        if (Option.isSome(window) && (Option.isNone(best) || window.value.at > best.value.at)) best = window
      }
      return best
    })
  })

/**
 * What the caller read within its window, and the guard's decision, when this
 * call changes something (a schema-only call sends nothing, and is not guarded).
 */
/** Whether the guard watches `call` at all: it is on, and the call is a change, resolved, not a schema's look-up. */
export const watches = (guard: Option.Option<Guard.GuardShape>, call: Call): boolean =>
  Option.isSome(guard) &&
  call.tool.group !== "read" &&
  Either.isRight(call.invocation) &&
  call.invocation.right.schema !== true

/** The classes (SVC_GUARD_HOLD=destructive) a call is of. */
const classesOf = (tool: string, selector: string) => CLASSES.filter((name) => holds(name, tool, selector))

export const afterUntrustedRead = <R = never>(
  guard: Option.Option<Guard.GuardShape>,
  call: Call,
  touches: Effect.Effect<Targets.Resolved, never, R> = NOTHING,
): Effect.Effect<Option.Option<ReadBefore>, never, R> => {
  if (!watches(guard, call) || Option.isNone(guard) || Either.isLeft(call.invocation)) {
    return Effect.succeed(Option.none())
  }
  const invocation = call.invocation.right
  const endpoint = invocation.endpoint.slice(invocation.endpoint.indexOf("/") + 1)
  return Effect.flatMap(latest(guard.value.store), (window) =>
    Option.isNone(window)
      ? Effect.succeed(Option.none())
      : Effect.map(decision(guard.value, call.tool.name, invocation.selector, endpoint, touches), (decided) =>
          Option.some({ window: window.value, decision: decided }),
        ),
  )
}

/** Without a read of what the call touches, it touches nothing a pattern names. */
const NOTHING = Effect.succeed<Targets.Resolved>({ targets: [], unread: [] })

/**
 * The guard's decision on a change in a window: the first SVC_GUARD_HOLD pattern with `@` that
 * names it and that it touches (what it touches read once for the call), else the settings' own.
 */
const decision = <R>(
  guard: Guard.GuardShape,
  tool: string,
  selector: string,
  endpoint: string,
  touches: Effect.Effect<Targets.Resolved, never, R>,
): Effect.Effect<Guard.Decision, never, R> => {
  const classes = classesOf(tool, selector)
  const touching = guard.touching(tool, selector, classes)
  if (touching.length === 0) return Effect.succeed(guard.decide(tool, selector, endpoint, classes))
  return Effect.map(touches, (resolved) => {
    for (const pattern of touching) {
      const words = pattern.touches === undefined ? [] : Targets.touched(pattern.touches, resolved)
      if (words.length > 0) return { held: pattern.held, why: `SVC_GUARD_HOLD (${pattern.text}: ${words.join("; ")})` }
    }
    return guard.decide(tool, selector, endpoint, classes)
  })
}
