/**
 * The environment as the executable reads its settings: effect's `ConfigProvider.fromEnv`,
 * with its `load` done in one synchronous walk of the description instead of an Effect per
 * step. A start reads some fifty variables, most of them unset, while effect's code is
 * still cold; `fromEnv`'s walk is thousands of steps through the runtime there.
 *
 * The walk gives what `fromEnv` gives, value or error, for the descriptions a setting is
 * made of (Settings/Read.ts): variables, `map`, `mapOrFail`, `all`, `option`,
 * `withDefault`, `redacted`, `nested`. A description with anything else (sequences, tables)
 * is read by `fromEnv` itself, as is everything read through `flattened` (the several
 * services' names, Settings/Registry.ts). `test/unit/Settings/Environment.test.ts` holds the two
 * equal over the whole settings and random environments.
 */
import type * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

// A description's nodes as effect 3.x builds them (its internal/opCodes/config). Read here by
// their tags, as effect's own providers read them.
type Node =
  | { readonly _tag: "Constant"; readonly value: unknown }
  | { readonly _tag: "Described"; readonly config: Node }
  | { readonly _tag: "Fail"; readonly message: string }
  | {
      readonly _tag: "Fallback"
      readonly first: Node
      readonly second: Node
      readonly condition: (error: ConfigError.ConfigError) => boolean
    }
  | { readonly _tag: "Lazy"; readonly config: () => Node }
  | {
      readonly _tag: "MapOrFail"
      readonly original: Node
      readonly mapOrFail: (a: unknown) => Either.Either<unknown, ConfigError.ConfigError>
    }
  | {
      readonly _tag: "Primitive"
      readonly parse: (text: string) => Either.Either<unknown, ConfigError.ConfigError>
    }
  | { readonly _tag: "Redacted"; readonly original: Node; readonly redact: (a: unknown) => unknown }
  | {
      readonly _tag: "ZipWith"
      readonly left: Node
      readonly right: Node
      readonly zip: (a: unknown, b: unknown) => unknown
    }
  | { readonly _tag: "Nested"; readonly name: string; readonly config: Node }
  | { readonly _tag: "Sequence" | "HashMap" }

type Read =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ConfigError.ConfigError }

const ok = (value: unknown): Read => ({ ok: true, value })
const failed = (error: ConfigError.ConfigError): Read => ({ ok: false, error })

/** Thrown by the walk at a node it leaves to `fromEnv`. */
const ELSEWHERE = Symbol("read by fromEnv")

const REDACTED: ConfigError.ConfigErrorReducer<unknown, ConfigError.ConfigError> = {
  andCase: (_, left, right) => ConfigError.And(left, right),
  orCase: (_, left, right) => ConfigError.Or(left, right),
  invalidDataCase: (_, path) => ConfigError.InvalidData(path, "<redacted>"),
  missingDataCase: (_, path) => ConfigError.MissingData(path, "<redacted>"),
  sourceUnavailableCase: (_, path, _message, cause) => ConfigError.SourceUnavailable(path, "<redacted>", cause),
  unsupportedCase: (_, path) => ConfigError.Unsupported(path, "<redacted>"),
}

/** The names a description's nesting adds to `path`, as `fromEnv` prefixes a mapping's refusal. */
const nestedPath = (path: Array<string>, node: Node): Array<string> => {
  if (node._tag !== "Nested") return path
  const out = [...path]
  for (let at: Node = node; at._tag === "Nested"; at = at.config) out.push(at.name)
  return out
}

/** `fromEnv`'s walk, where each node has one value: nothing here splits a value into a sequence. */
const walk = (node: Node, path: Array<string>, env: NodeJS.ProcessEnv): Read => {
  switch (node._tag) {
    case "Constant":
      return ok(node.value)
    case "Described":
      return walk(node.config, path, env)
    case "Fail":
      return failed(ConfigError.MissingData(path, node.message))
    case "Fallback": {
      const first = walk(node.first, path, env)
      if (first.ok || !node.condition(first.error)) return first
      const second = walk(node.second, path, env)
      return second.ok ? second : failed(ConfigError.Or(first.error, second.error))
    }
    case "Lazy":
      return walk(node.config(), path, env)
    case "MapOrFail": {
      const original = walk(node.original, path, env)
      if (!original.ok) return original
      const mapped = node.mapOrFail(original.value)
      return Either.isRight(mapped)
        ? ok(mapped.right)
        : failed(ConfigError.prefixed(mapped.left, nestedPath(path, node.original)))
    }
    case "Nested":
      return walk(node.config, [...path, node.name], env)
    case "Primitive": {
      const name = path.join("_")
      const text = env[name]
      if (!(name in env) || text === undefined) {
        return failed(ConfigError.MissingData(path, `Expected ${name} to exist in the process context`))
      }
      const parsed = node.parse(text)
      return Either.isRight(parsed) ? ok(parsed.right) : failed(ConfigError.prefixed(parsed.left, path))
    }
    case "Redacted": {
      const original = walk(node.original, path, env)
      return original.ok
        ? ok(node.redact(original.value))
        : failed(ConfigError.reduceWithContext(original.error, undefined, REDACTED))
    }
    case "ZipWith": {
      const left = walk(node.left, path, env)
      const right = walk(node.right, path, env)
      if (!left.ok) return right.ok ? left : failed(ConfigError.And(left.error, right.error))
      return right.ok ? ok(node.zip(left.value, right.value)) : right
    }
    default:
      throw ELSEWHERE
  }
}

export const provider: ConfigProvider.ConfigProvider = (() => {
  const fromEnv = ConfigProvider.fromEnv()
  return ConfigProvider.make({
    load: <A>(config: Config.Config<A>) =>
      Effect.suspend(() => {
        try {
          const read = walk(config as unknown as Node, [], process.env)
          return read.ok ? Effect.succeed(read.value as A) : Effect.fail(read.error)
        } catch (error) {
          if (error === ELSEWHERE) return fromEnv.load(config)
          throw error
        }
      }),
    flattened: fromEnv.flattened,
  })
})()

/**
 * The names set in this process's environment that begin with `prefix`, for the warning about a
 * variable no setting reads (Settings/Unknown.ts): names only, never a value.
 */
export const namesSet = (prefix: string): ReadonlyArray<string> =>
  Object.keys(process.env).filter((name) => name.startsWith(prefix))
