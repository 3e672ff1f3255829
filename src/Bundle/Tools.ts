/**
 * The tools as one layer, on top of the service's client: their settings from
 * the ConfigProvider (SVC_MODE, SVC_ALLOW, SVC_DENY, SVC_CONFIRM ...), the
 * policy they make, and the params check (SVC_CHECK_PARAMS, SVC_DEFINITIONS).
 * The tool programs themselves (Invoke) need the client's services alone.
 */
import * as Layer from "effect/Layer"
import type { ConfigError } from "../Settings/Read.js"
import * as ParamsCheck from "../Tools/ParamsCheck.js"
import * as Policy from "../Tools/Policy.js"
import * as Settings from "../Tools/Settings.js"

/** What the tools bundle provides (the params check is a reference: its default when `params` gives none). */
export type Tools = Policy.Policy | Settings.ServerSettings | ParamsCheck.ParamsCheck

/**
 * The tools over the settings `settings` gives (a value: `Settings.layerValue(...)`),
 * with the params check `params` makes (none: the shipped definitions, checked on first use).
 */
export const layerWith = (
  settings: Layer.Layer<Settings.ServerSettings, ConfigError> = Settings.layer,
  params: Layer.Layer<ParamsCheck.ParamsCheck, ConfigError> | Layer.Layer<never> = ParamsCheck.layerConfig,
): Layer.Layer<Tools, ConfigError> =>
  Policy.layer.pipe(Layer.provideMerge(settings), Layer.merge(params)) as Layer.Layer<Tools, ConfigError>

/** The tools as the ConfigProvider says. */
export const layer: Layer.Layer<Tools, ConfigError> = layerWith()
