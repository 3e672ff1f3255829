/**
 * How every setting is read from the environment: `effect/Config` descriptions
 * whose refusals become one `ConfigError`, a line that names the variable and
 * the fix. Each variable is described once with these helpers, each section
 * in its own module of Settings/ (the policy's in ToolSettings.ts, HTTP's in Http.ts,
 * the several services' in Registry.ts, the optional parts' beside them), but
 * the service's own connection, in Config.ts at the root, the spine's entry.
 * The services take values; their `layerConfig` reads the description, and the
 * command line (Cli/Commands.ts) is where those layers are chosen.
 */

import * as EffectConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Environment from "./Environment.js"
import { Naming } from "./Naming.js"
import * as Setting from "./Setting.js"

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export
// (node:fs's `promises` alone loads readline), which a start pays for.
const Fs = process.getBuiltinModule("node:fs")

export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly variable: string
  readonly problem: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.variable} ${this.problem}: ${this.hint}`
  }
}

/**
 * A refusal's problem or hint: plain words, or words that name variables
 * through `name`, so that a service's refusal names its own variables
 * (SVC_STAGING_API_KEY where a single service's names SVC_API_KEY).
 */
export type Words = string | ((name: (variable: string) => string) => string)

// Problems quote the values they refuse with JSON.stringify, which escapes control characters,
// so neither a newline nor a MARK can come from the environment.
const SEPARATOR = "\n"
// effect's ConfigError keeps only a path and a message on its way out of a Config (the provider
// rebuilds it with its prefix): the variables a refusal names travel between two MARKs, and `read`
// names each with the naming in force.
const MARK = "\u001f"
const marked = (variable: string) => `${MARK}${variable}${MARK}`
const carried = (words: Words) => (typeof words === "string" ? words : words(marked))
const named = (text: string, name: (variable: string) => string) =>
  text
    .split(MARK)
    .map((part, at) => (at % 2 === 1 ? name(part) : part))
    .join("")

/**
 * A refusal inside a `Config`, carried as effect's InvalidData until `read` turns it into a
 * ConfigError: `variable` is a single service's name for it (SVC_URL), as are those `problem` and
 * `hint` name; `read` names them as the service being read has them.
 */
export const refuse = (variable: string, problem: Words, hint: Words): EffectConfigError.ConfigError =>
  EffectConfigError.InvalidData([variable], `${carried(problem)}${SEPARATOR}${carried(hint)}`)

const firstRefusal = (error: EffectConfigError.ConfigError, name: (variable: string) => string): ConfigError => {
  switch (error._op) {
    case "And":
    case "Or": {
      const left = firstRefusal(error.left, name)
      return left.variable === "" ? firstRefusal(error.right, name) : left
    }
    case "InvalidData": {
      const at = error.message.indexOf(SEPARATOR)
      return new ConfigError({
        variable: name(error.path.join(".")),
        problem: named(at < 0 ? error.message : error.message.slice(0, at), name),
        hint: at < 0 ? "see svc-mcp --help" : named(error.message.slice(at + 1), name),
      })
    }
    default:
      // Every variable is optional at the Config level; a missing one is refused by name with its fix.
      return new ConfigError({ variable: "", problem: error.message, hint: "see svc-mcp --help" })
  }
}

/**
 * Reads a setting from the current ConfigProvider; its first refusal is the error, naming the
 * variables as the service being read has them (its Naming; a single service's by default).
 * The executable's environment (Settings/Environment.ts) is read by the setting's plain reader,
 * any other provider through its `Config`.
 */
export const read = <A>(setting: Setting.Setting<A>): Effect.Effect<A, ConfigError> =>
  Effect.flatMap(Naming, (naming) =>
    Effect.catchAll(
      Effect.configProviderWith((provider) =>
        provider === Environment.provider
          ? Either.match(Environment.read(setting, naming.variable), {
              onLeft: Effect.fail,
              onRight: Effect.succeed,
            })
          : provider.load(setting.config),
      ),
      (error) => Effect.fail(firstRefusal(error, naming.variable)),
    ),
  )

/** The variable as a string; an empty value counts as unset, as client config templates often leave `""`. */
export const optional = (name: string): Setting.Setting<Option.Option<string>> =>
  Setting.option(Setting.string(name)).pipe(Setting.map(Option.filter((value) => value.trim() !== "")))

/** `optional`, with each present value parsed: `Either.left` is a refusal. */
export const optionalWith = <A>(
  name: string,
  parse: (text: string) => Either.Either<A, EffectConfigError.ConfigError>,
): Setting.Setting<Option.Option<A>> =>
  Setting.mapOrFail(
    optional(name),
    Option.match({ onNone: () => Either.right(Option.none()), onSome: (text) => Either.map(parse(text), Option.some) }),
  )

const readFile = (name: string, path: string): Either.Either<string, EffectConfigError.ConfigError> => {
  try {
    const content = Fs.readFileSync(path, "utf8").replace(/\r?\n$/, "")
    return content.trim() === ""
      ? Either.left(
          refuse(
            `${name}_FILE`,
            `names an empty file (${JSON.stringify(path)})`,
            (v) => `put the value of ${v(name)} in it`,
          ),
        )
      : Either.right(content)
  } catch (error) {
    return Either.left(
      refuse(
        `${name}_FILE`,
        `names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        `check the path ${JSON.stringify(path)} and its permissions`,
      ),
    )
  }
}

/**
 * A secret given either in `name` or, as container secrets are mounted, in the
 * file that `name_FILE` names (one trailing newline is dropped). Not both.
 */
export const secret = (name: string): Setting.Setting<Option.Option<Redacted.Redacted<string>>> =>
  Setting.mapOrFail(
    Setting.all([Setting.option(Setting.redacted(name)), optional(`${name}_FILE`)]),
    ([direct, file]) => {
      const given = Option.filter(direct, (value) => Redacted.value(value).trim() !== "")
      if (Option.isNone(file)) return Either.right(given)
      if (Option.isSome(given)) {
        return Either.left(
          refuse(
            `${name}_FILE`,
            (v) => `is set, and so is ${v(name)}`,
            (v) => `set only one of ${v(name)} and ${v(`${name}_FILE`)}`,
          ),
        )
      }
      return Either.map(readFile(name, file.value.trim()), (content) => Option.some(Redacted.make(content)))
    },
  )

/** A comma-separated list's entries, each trimmed, the empty ones left out. */
export const commaList = (text: string): ReadonlyArray<string> =>
  text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

/** A positive whole number from `variable`, or `fallback` when unset. */
export const positive = (variable: string, fallback: number, unit: string, example: number): Setting.Setting<number> =>
  optionalWith(variable, (value) => {
    const text = value.trim()
    const n = Number(text)
    return /^\d+$/.test(text) && Number.isSafeInteger(n) && n > 0
      ? Either.right(n)
      : Either.left(
          refuse(
            variable,
            `is not a positive whole number of ${unit} (${JSON.stringify(text)})`,
            (v) => `unset it for the default of ${fallback}, or give e.g. ${v(variable)}=${example}`,
          ),
        )
  }).pipe(Setting.map(Option.getOrElse(() => fallback)))

const DURATION_UNITS: Readonly<Record<string, number>> = { "": 1000, s: 1000, m: 60_000, h: 3_600_000 }

const shownDuration = (ms: number) =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`

/** A duration from `variable` (seconds, or a number with s, m or h) from `minMs` to `maxMs`, or `fallbackMs` when unset. */
export const duration = (variable: string, fallbackMs: number, minMs: number, maxMs: number): Setting.Setting<number> =>
  optionalWith(variable, (value) => {
    const match = /^(\d{1,9})\s*([smh]?)$/i.exec(value.trim())
    const ms = match === null ? Number.NaN : Number(match[1]) * (DURATION_UNITS[(match[2] ?? "").toLowerCase()] ?? 0)
    return ms >= minMs && ms <= maxMs
      ? Either.right(ms)
      : Either.left(
          refuse(
            variable,
            `is not a duration from ${shownDuration(minMs)} to ${shownDuration(maxMs)} (${JSON.stringify(value.trim())})`,
            (v) =>
              `give seconds, or a number with s, m or h; unset it for the default, ${v(variable)}=${shownDuration(fallbackMs)}`,
          ),
        )
  }).pipe(Setting.map(Option.getOrElse(() => fallbackMs)))

/** One of `values`, case-insensitive, or `fallback` when unset. */
export const pickOne =
  <A extends string>(variable: string, values: ReadonlyArray<A>, fallback: A, hint: Words) =>
  (value: Option.Option<string>): Either.Either<A, EffectConfigError.ConfigError> => {
    if (Option.isNone(value)) return Either.right(fallback)
    const found = values.find((v) => v === value.value.trim().toLowerCase())
    return found === undefined
      ? Either.left(refuse(variable, `is ${JSON.stringify(value.value)}`, hint))
      : Either.right(found)
  }

/** A port number from 0 to 65535, given as digits. */
export const parsePort = (text: string): Option.Option<number> =>
  /^\d+$/.test(text) && Number(text) <= 65535 ? Option.some(Number(text)) : Option.none()
