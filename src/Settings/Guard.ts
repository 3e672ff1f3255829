/**
 * The guard's settings (Untrusted/Guard.ts): SVC_GUARD, `ask` (the default;
 * `on` says the same) or `off`, and SVC_GUARD_WINDOW, how long after a caller
 * received untrusted text its changes are confirmed: seconds, or a number
 * with `s`, `m` or `h` (default 10m).
 */
import * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { type ConfigError, optional, optionalWith, pickOne, read, refuse } from "./Read.js"

export interface GuardSettings {
  readonly on: boolean
  readonly windowMs: number
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

const settings: Config.Config<GuardSettings> = Config.all({
  on: Config.mapOrFail(optional("SVC_GUARD"), (value) =>
    Either.map(
      pickOne("SVC_GUARD", ["ask", "on", "off"], "ask", "use ask (the default) or off")(value),
      (mode) => mode !== "off",
    ),
  ),
  windowMs: optionalWith("SVC_GUARD_WINDOW", (text) =>
    Either.mapLeft(parseWindow(text), (problem) =>
      refuse("SVC_GUARD_WINDOW", problem, "give seconds, or a number with s, m or h, e.g. SVC_GUARD_WINDOW=10m"),
    ),
  ).pipe(Config.map(Option.getOrElse(() => DEFAULT_WINDOW_MS))),
})

export const load: Effect.Effect<GuardSettings, ConfigError> = read(settings)
