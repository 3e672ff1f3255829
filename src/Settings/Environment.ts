/**
 * The environment as the executable reads its settings. A start reads some fifty variables,
 * most of them unset, while effect's code is still cold, where `ConfigProvider.fromEnv`'s walk
 * is thousands of steps through the runtime: so the settings' `read` (Settings/Read.ts) knows
 * this provider and reads `process.env` with each setting's plain reader (Settings/Setting.ts)
 * instead. Any other provider, an embedder's, is asked through the setting's `Config`.
 * `test/unit/Settings/Environment.test.ts` holds the two readings equal over the whole settings
 * and random environments.
 */

import type { ConfigError } from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import type * as Either from "effect/Either"
import type { Setting } from "./Setting.js"

/** `fromEnv` itself, for what is read through a `Config` (the setup's questions); known by identity. */
export const provider: ConfigProvider.ConfigProvider = ConfigProvider.fromEnv()

/** `setting` read from this process's environment, each variable by its name as `name` gives it. */
export const read = <A>(setting: Setting<A>, name: (variable: string) => string): Either.Either<A, ConfigError> =>
  setting.read(process.env, name)

/**
 * The names set in this process's environment that begin with `prefix`, for the warning about a
 * variable no setting reads (Settings/Unknown.ts): names only, never a value.
 */
export const namesSet = (prefix: string): ReadonlyArray<string> =>
  Object.keys(process.env).filter((name) => name.startsWith(prefix))
