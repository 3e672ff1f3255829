/**
 * A setting's own description: the few combinators the settings are made of (variables,
 * `map`, `mapOrFail`, `all`, `zipWith`, `option`), each giving two readers of one meaning.
 * `config` is effect's `Config`, for an embedder who brings a ConfigProvider of its own;
 * `read` is a plain synchronous read of an environment, for the executable's start, where
 * effect's `ConfigProvider.fromEnv` costs tens of milliseconds cold (Settings/Environment.ts).
 * Only public APIs on both sides: nothing here looks inside a `Config`.
 * `test/unit/Settings/Environment.test.ts` holds the two equal, values and errors.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import { dual } from "effect/Function"
import * as Option from "effect/Option"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import * as Redacted from "effect/Redacted"

/** The environment's variables as a setting reads them: `name` gives a variable's name as read. */
export type Reader<A> = (
  env: NodeJS.ProcessEnv,
  name: (variable: string) => string,
) => Either.Either<A, ConfigError.ConfigError>

export interface Setting<A> extends Pipeable {
  readonly config: Config.Config<A>
  readonly read: Reader<A>
  /** The variable, when this is one as it is: effect names it in the path of a mapping's refusal. */
  readonly variable?: string
}

const make = <A>(config: Config.Config<A>, read: Reader<A>, variable?: string): Setting<A> => ({
  config,
  read,
  ...(variable === undefined ? {} : { variable }),
  pipe() {
    // biome-ignore lint/complexity/noArguments: effect's own Pipeable is written so
    return pipeArguments(this, arguments)
  },
})

export const succeed = <A>(value: A): Setting<A> => make(Config.succeed(value), () => Either.right(value))

/** The variable's text as it is, as `fromEnv` reads one. */
const text =
  (variable: string): Reader<string> =>
  (env, name) => {
    const as = name(variable)
    const value = env[as]
    return as in env && value !== undefined
      ? Either.right(value)
      : Either.left(ConfigError.MissingData([as], `Expected ${as} to exist in the process context`))
  }

export const string = (variable: string): Setting<string> => make(Config.string(variable), text(variable), variable)

// effect's `redacted` words each of its refusals so, to keep the value out of them.
const REDACTED: ConfigError.ConfigErrorReducer<unknown, ConfigError.ConfigError> = {
  andCase: (_, left, right) => ConfigError.And(left, right),
  orCase: (_, left, right) => ConfigError.Or(left, right),
  invalidDataCase: (_, path) => ConfigError.InvalidData(path, "<redacted>"),
  missingDataCase: (_, path) => ConfigError.MissingData(path, "<redacted>"),
  sourceUnavailableCase: (_, path, _message, cause) => ConfigError.SourceUnavailable(path, "<redacted>", cause),
  unsupportedCase: (_, path) => ConfigError.Unsupported(path, "<redacted>"),
}

export const redacted = (variable: string): Setting<Redacted.Redacted<string>> =>
  make(Config.redacted(variable), (env, name) =>
    Either.match(text(variable)(env, name), {
      onLeft: (error) => Either.left(ConfigError.reduceWithContext(error, undefined, REDACTED)),
      onRight: (value) => Either.right(Redacted.make(value)),
    }),
  )

export const map: {
  <A, B>(f: (a: A) => B): (self: Setting<A>) => Setting<B>
  <A, B>(self: Setting<A>, f: (a: A) => B): Setting<B>
} = dual(
  2,
  <A, B>(self: Setting<A>, f: (a: A) => B): Setting<B> =>
    make(Config.map(self.config, f), (env, name) => Either.map(self.read(env, name), f)),
)

export const mapOrFail: {
  <A, B>(f: (a: A) => Either.Either<B, ConfigError.ConfigError>): (self: Setting<A>) => Setting<B>
  <A, B>(self: Setting<A>, f: (a: A) => Either.Either<B, ConfigError.ConfigError>): Setting<B>
} = dual(
  2,
  <A, B>(self: Setting<A>, f: (a: A) => Either.Either<B, ConfigError.ConfigError>): Setting<B> =>
    make(Config.mapOrFail(self.config, f), (env, name) =>
      Either.flatMap(self.read(env, name), (value) =>
        self.variable === undefined
          ? f(value)
          : Either.mapLeft(f(value), (error) => ConfigError.prefixed(error, [self.variable as string])),
      ),
    ),
)

/** Both, as effect's `zipWith` reads them: both refusals when both refuse, the left's first. */
export const zipWith: {
  <B, A, C>(that: Setting<B>, f: (a: A, b: B) => C): (self: Setting<A>) => Setting<C>
  <A, B, C>(self: Setting<A>, that: Setting<B>, f: (a: A, b: B) => C): Setting<C>
} = dual(
  3,
  <A, B, C>(self: Setting<A>, that: Setting<B>, f: (a: A, b: B) => C): Setting<C> =>
    make(Config.zipWith(self.config, that.config, f), (env, name) => {
      const left = self.read(env, name)
      const right = that.read(env, name)
      if (Either.isLeft(left)) {
        return Either.isLeft(right) ? Either.left(ConfigError.And(left.left, right.left)) : Either.left(left.left)
      }
      return Either.isLeft(right) ? Either.left(right.left) : Either.right(f(left.right, right.right))
    }),
)

/** Unset is none; a refusal stays one. */
export const option = <A>(self: Setting<A>): Setting<Option.Option<A>> =>
  make(Config.option(self.config), (env, name) => {
    const read = self.read(env, name)
    if (Either.isRight(read)) return Either.right(Option.some(read.right))
    return ConfigError.isMissingDataOnly(read.left) ? Either.right(Option.none()) : Either.left(read.left)
  })

type Values<T> = { -readonly [K in keyof T]: T[K] extends Setting<infer A> ? A : never }

/** A tuple or a record of settings, read in order as effect's `Config.all` reads one. */
export const all = <const T extends ReadonlyArray<Setting<unknown>> | Readonly<Record<string, Setting<unknown>>>>(
  settings: T,
): Setting<Values<T>> => {
  if (Array.isArray(settings)) {
    return (settings as ReadonlyArray<Setting<unknown>>).reduce<Setting<Array<unknown>>>(
      (acc, setting) => zipWith(acc, setting, (values, value) => [...values, value]),
      succeed([]),
    ) as unknown as Setting<Values<T>>
  }
  return Object.entries(settings as Readonly<Record<string, Setting<unknown>>>).reduce<
    Setting<Record<string, unknown>>
  >(
    (acc, [key, setting]) => zipWith(acc, setting, (values, value) => ({ ...values, [key]: value })),
    succeed({}),
  ) as unknown as Setting<Values<T>>
}

/** What a setting gives when read. */
export type Success<S> = S extends Setting<infer A> ? A : never
