/**
 * The guard's settings (Untrusted/Guard.ts): SVC_GUARD, `ask` (the default;
 * `on` says the same: hold what the table Untrusted/Hold.ts holds), `ask-all`
 * (hold every change) or `off`; SVC_GUARD_HOLD, `tool:selector` patterns that
 * widen the table (a pattern with a leading `-` lets its matches through);
 * and SVC_GUARD_WINDOW, how long after a person received untrusted text their
 * changes are guarded where there is no session (in one, for its life):
 * seconds, or a number with `s`, `m` or `h` (default 10m).
 */

import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { type ConfigError, commaList, optional, optionalWith, pickOne, read, refuse } from "./Read.js"
import * as Setting from "./Setting.js"
import { type PatternClass, parseItem } from "./ToolSettings.js"
import * as Touches from "./Touches.js"

export type GuardMode = "ask" | "ask-all" | "off"

/**
 * An operator's SVC_GUARD_HOLD pattern: its matches are held, or with `-` let through; `*` any
 * run. A class (`destructive`) in place of `tool:selector` matches its members, and `tool` and
 * `selector` are then empty.
 */
export interface HoldPattern {
  readonly text: string
  readonly held: boolean
  readonly tool: string
  readonly selector: string
  /** What the change must touch, after `@` (Touches.ts): decided once what it touches is read. */
  readonly touches?: Touches.Touch
  readonly class?: PatternClass
}

export interface GuardSettings {
  readonly mode: GuardMode
  readonly windowMs: number
  readonly hold: ReadonlyArray<HoldPattern>
}

const DEFAULT_WINDOW_MS = 600_000

/** A day: a longer window would confirm every change for good, which SVC_CONFIRM=svc_*:* says more plainly. */
const MAX_WINDOW_MS = 86_400_000

const UNITS: Readonly<Record<string, number>> = { "": 1000, s: 1000, m: 60_000, h: 3_600_000 }

export const parseWindow = (text: string): Either.Either<number, string> => {
  const match = /^(\d+)\s*([smh]?)$/i.exec(text.trim())
  const ms = match === null ? Number.NaN : Number(match[1]) * (UNITS[(match[2] ?? "").toLowerCase()] ?? Number.NaN)
  return Number.isSafeInteger(ms) && ms > 0 && ms <= MAX_WINDOW_MS
    ? Either.right(ms)
    : Either.left(`is not a duration from 1s to 24h (${JSON.stringify(text)})`)
}

/** SVC_GUARD_HOLD's patterns, in order: the first that matches a change decides it, before the table. */
export const parseHold = (text: string): Either.Either<ReadonlyArray<HoldPattern>, string> =>
  Either.all(
    commaList(text).map((item) => {
      const split = Touches.split(item)
      if (Either.isLeft(split)) return Either.left(`has the pattern ${JSON.stringify(item)}, which ${split.left}`)
      const head = split.right.head
      const held = !head.startsWith("-")
      const touches = split.right.touch === undefined ? {} : { touches: split.right.touch }
      return Either.map(
        parseItem(held ? head : head.slice(1), item),
        (read): HoldPattern =>
          read.class !== undefined
            ? { text: item, held, tool: "", selector: "", class: read.class, ...touches }
            : { text: item, held, tool: read.tool, selector: read.selector, ...touches },
      )
    }),
  )

const settings: Setting.Setting<GuardSettings> = Setting.all({
  mode: Setting.mapOrFail(optional("SVC_GUARD"), (value) =>
    Either.map(
      pickOne(
        "SVC_GUARD",
        ["ask", "on", "ask-all", "off"],
        "ask",
        "use ask (the default: hold what cannot be undone), ask-all (hold every change) or off",
      )(value),
      (mode): GuardMode => (mode === "on" ? "ask" : (mode as GuardMode)),
    ),
  ),
  windowMs: optionalWith("SVC_GUARD_WINDOW", (text) =>
    Either.mapLeft(parseWindow(text), (problem) =>
      refuse("SVC_GUARD_WINDOW", problem, "give seconds, or a number with s, m or h, e.g. SVC_GUARD_WINDOW=10m"),
    ),
  ).pipe(Setting.map(Option.getOrElse(() => DEFAULT_WINDOW_MS))),
  hold: optionalWith("SVC_GUARD_HOLD", (text) =>
    Either.mapLeft(parseHold(text), (problem) =>
      refuse(
        "SVC_GUARD_HOLD",
        problem,
        "write comma-separated tool:selector patterns with * as a wildcard anywhere, or the class destructive, a leading - to let a change through, and what it touches after @ if you like, e.g. SVC_GUARD_HOLD=svc_execute:deploy*,-svc_rename:tag,svc_execute:*@tag:production",
      ),
    ),
  ).pipe(Setting.map(Option.getOrElse((): ReadonlyArray<HoldPattern> => []))),
})

export const load: Effect.Effect<GuardSettings, ConfigError> = read(settings)
