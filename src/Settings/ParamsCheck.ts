/**
 * SVC_CHECK_PARAMS: `on` (the default) checks params against the service's
 * definitions before sending; `off` sends them as given, for a service newer
 * than the definitions. SVC_DEFINITIONS: the definitions file to check against
 * (the shape of spec/service-api.schema.json), for a service of another
 * version than the shipped definitions'; unset, the shipped file.
 *
 * Among several services (SVC_SERVICES) each name N has its own,
 * SVC_N_CHECK_PARAMS and SVC_N_DEFINITIONS, as the services may run different
 * versions; each defaults to the unprefixed one, so that one setting serves
 * every service alike. (Unlike SVC_URL and its family, these are the server's
 * as well: they are not refused beside SVC_SERVICES.)
 */

import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { own } from "./Naming.js"
import { type ConfigError, optional, optionalWith, pickOne, read } from "./Read.js"
import * as Setting from "./Setting.js"

const ON = ["on", "true", "1", "yes"]
const OFF = ["off", "false", "0", "no"]

const CHECK = "SVC_CHECK_PARAMS"
const DEFINITIONS = "SVC_DEFINITIONS"

export interface ParamsSettings {
  /** Whether params are checked. */
  readonly on: boolean
  /** The variable whose value decided it (SVC_PROD_CHECK_PARAMS, or the SVC_CHECK_PARAMS it defaults to), when one is set. */
  readonly decidedBy: Option.Option<string>
  /** The variable that turns the check off for this service alone: the one a hint names. */
  readonly checkVariable: string
  /** The variable that names this service's own definitions: the one a hint names. */
  readonly definitionsVariable: string
  /** A definitions file given instead of the shipped one, with the variable that named it. */
  readonly definitions: Option.Option<{ readonly path: string; readonly variable: string }>
}

const switchOf = (name: string) =>
  optionalWith(name, (text) =>
    Either.map(
      pickOne(
        name,
        [...ON, ...OFF],
        "on",
        "use on (the default: params checked against the service's definitions) or off",
      )(Option.some(text)),
      (picked) => ON.includes(picked),
    ),
  )

/** The first of `names` that is set, with its value. */
const firstSet = <A>(
  names: ReadonlyArray<string>,
  config: (name: string) => Setting.Setting<Option.Option<A>>,
): Effect.Effect<Option.Option<readonly [string, A]>, ConfigError> =>
  Effect.reduce(names, Option.none<readonly [string, A]>(), (found, name) =>
    Option.isSome(found)
      ? Effect.succeed(found)
      : Effect.map(
          read(config(name)),
          Option.map((value) => [name, value] as const),
        ),
  )

/** The settings read from `check` then `fallback`, and `definitions` then its fallback. */
const readWith = (
  checks: ReadonlyArray<string>,
  definitions: ReadonlyArray<string>,
): Effect.Effect<ParamsSettings, ConfigError> =>
  Effect.gen(function* () {
    const decided = yield* firstSet(checks, switchOf)
    const given = yield* firstSet(definitions, (name) =>
      Setting.map(
        optional(name),
        Option.map((path) => path.trim()),
      ),
    )
    return {
      on: Option.match(decided, { onNone: () => true, onSome: ([, on]) => on }),
      decidedBy: Option.map(decided, ([name]) => name),
      checkVariable: checks[0] as string,
      definitionsVariable: definitions[0] as string,
      definitions: Option.map(given, ([name, path]) => ({ path, variable: name })),
    }
  })

/** The single service's settings: SVC_CHECK_PARAMS and SVC_DEFINITIONS. */
export const load: Effect.Effect<ParamsSettings, ConfigError> = readWith([CHECK], [DEFINITIONS])

/** Service `name`'s settings (SVC_SERVICES): its own variables, else the server's. */
export const loadFor = (name: string): Effect.Effect<ParamsSettings, ConfigError> =>
  readWith([own(name, CHECK), CHECK], [own(name, DEFINITIONS), DEFINITIONS])
