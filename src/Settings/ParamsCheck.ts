/**
 * SVC_CHECK_PARAMS: `on` (the default) checks params against the service's
 * definitions before sending; `off` sends them as given, for a service newer
 * than the definitions.
 */
import * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { type ConfigError, optional, pickOne, read } from "./Read.js"

const ON = ["on", "true", "1", "yes"]
const OFF = ["off", "false", "0", "no"]

/** Whether params are checked. */
export const checkParams: Config.Config<boolean> = Config.mapOrFail(optional("SVC_CHECK_PARAMS"), (value) =>
  Either.map(
    pickOne(
      "SVC_CHECK_PARAMS",
      [...ON, ...OFF],
      "on",
      "use on (the default: params checked against the service's definitions) or off",
    )(value),
    (picked) => ON.includes(picked),
  ),
)

export const load: Effect.Effect<boolean, ConfigError> = read(checkParams)
