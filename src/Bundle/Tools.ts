/**
 * The tools as one layer, on top of the service's client: their settings from
 * the ConfigProvider (SVC_MODE, SVC_ALLOW, SVC_DENY, SVC_CONFIRM ...), the
 * policy they make, and the params check (SVC_CHECK_PARAMS, SVC_DEFINITIONS).
 * The tool programs themselves (Invoke) need the client's services and the
 * params check.
 *
 * The parts of the tools that hold state are provided here, each the one
 * provided beneath the bundle if any, else one of this bundle's own (built
 * with each build of it: two servers share none of it):
 * - the params check: the shipped definitions, read on first use;
 * - the confirmations' memory (ConfirmationState): the team's key
 *   (TeamSettings) or one of the process's, its used answers in the shared
 *   store when one is provided beneath (Store), else its own;
 * - the guard (Guard): off;
 * - the shared store (Store) itself, so that serving over HTTP hands a 2025-era
 *   client's answers to the replica holding the call: none.
 */
import * as Layer from "effect/Layer"
import * as ConfirmationState from "../Confirmation/State.js"
import * as PolicySettings from "../Settings/Policy.js"
import type { ConfigError } from "../Settings/Read.js"
import * as Parts from "../Shared/Parts.js"
import * as Store from "../Store/Store.js"
import * as ParamsCheck from "../Tools/ParamsCheck.js"
import * as Policy from "../Tools/Policy.js"
import * as Guard from "../Untrusted/Guard.js"

/** What the tools bundle provides. */
export type Tools =
  | Policy.Policy
  | PolicySettings.ServerSettings
  | ParamsCheck.ParamsCheck
  | ConfirmationState.ConfirmationState
  | Guard.Guard
  | Store.Store

/** The confirmations' memory, the guard and the store as provided beneath, else this bundle's own. */
const parts: Layer.Layer<ConfirmationState.ConfirmationState | Guard.Guard | Store.Store> = Layer.merge(
  Parts.orElse(ConfirmationState.ConfirmationState, ConfirmationState.layer),
  Parts.orElse(Guard.Guard, Guard.layerOff),
).pipe(Layer.provideMerge(Parts.orElse(Store.Store, Store.layerOff)))

/**
 * The tools over the settings `settings` gives (a value: `PolicySettings.layerValue(...)`),
 * with the params check `params` makes (none: the one provided beneath, else
 * the shipped definitions, checked on first use).
 */
export const layerWith = (
  settings: Layer.Layer<PolicySettings.ServerSettings, ConfigError> = PolicySettings.layer,
  params: Layer.Layer<ParamsCheck.ParamsCheck, ConfigError> | Layer.Layer<never> = ParamsCheck.layerConfig,
): Layer.Layer<Tools, ConfigError> =>
  Policy.layer.pipe(
    Layer.provideMerge(settings),
    Layer.merge(Parts.orElse(ParamsCheck.ParamsCheck, ParamsCheck.layerLazy).pipe(Layer.provide(params))),
    Layer.merge(parts),
  )

/** The tools as the ConfigProvider says. */
export const layer: Layer.Layer<Tools, ConfigError> = layerWith()
