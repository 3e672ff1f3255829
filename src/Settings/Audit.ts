/**
 * The audit log's setting, SVC_AUDIT_LOG: a file to append to, or `-` for
 * stderr; unset (or empty), nothing is audited.
 */
import * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type ConfigError, optional, read } from "./Read.js"

/** Where audit lines go, or None for no audit log. */
const destination: Config.Config<Option.Option<string>> = Config.map(
  optional("SVC_AUDIT_LOG"),
  Option.map((value) => value.trim()),
)

export const load: Effect.Effect<Option.Option<string>, ConfigError> = read(destination)
