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
 * - the pages a secret is handed to the person on (SecretPages): this process's own, in memory,
 *   served on loopback from the first one made;
 * - the pattern reader (PatternReader): a pool of worker threads of its own, started by the first
 *   pattern that needs one, its workers ended when the bundle's scope closes;
 * - the shared store (Store) itself, so that serving over HTTP hands a 2025-era
 *   client's answers to the replica holding the call: none.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as SecretPageServer from "../Confirmation/SecretPageServer.js"
import * as SecretPages from "../Confirmation/SecretPages.js"
import * as ConfirmationState from "../Confirmation/State.js"
import type { ConfigError } from "../Settings/Read.js"
import * as PolicySettings from "../Settings/ToolSettings.js"
import * as Parts from "../Shared/Parts.js"
import * as PatternReader from "../Shared/PatternReader.js"
import * as Store from "../Store/Store.js"
import * as ParamsCheck from "../Tools/Params/ParamsCheck.js"
import * as Policy from "../Tools/Policy/Policy.js"
import * as Guard from "../Untrusted/Guard.js"

/** What the tools bundle provides. */
export type Tools =
  | Policy.Policy
  | PolicySettings.ServerSettings
  | ParamsCheck.ParamsCheck
  | ConfirmationState.ConfirmationState
  | Guard.Guard
  | Store.Store
  | SecretPages.SecretPages
  | PatternReader.PatternReader

/**
 * The tools over the settings `settings` gives (a value: `PolicySettings.layerValue(...)`),
 * with the params check `params` makes (none: the one provided beneath, else
 * the shipped definitions, checked on first use). The parts are made in one layer (by
 * `contextWith`), the settings read first, rather than in a score of them.
 */
export const layerWith = (
  settings: Layer.Layer<PolicySettings.ServerSettings, ConfigError> = PolicySettings.layer,
  params: Layer.Layer<ParamsCheck.ParamsCheck, ConfigError> | Layer.Layer<never> = ParamsCheck.layerConfig,
): Layer.Layer<Tools, ConfigError> =>
  Layer.scopedContext(
    contextWith(
      Effect.map(Layer.build(settings), Context.get(PolicySettings.ServerSettings)),
      Effect.map(Layer.build(params), (made) =>
        Context.getOption(made as Context.Context<never>, ParamsCheck.ParamsCheck),
      ),
    ),
  )

/**
 * What `layerWith` provides, made in the current scope (the command line's start builds no layer
 * for it), over the settings and the params check (None: the one beneath, else the shipped) given.
 */
export const contextWith = (
  settings: Effect.Effect<PolicySettings.ServerSettingsShape, ConfigError, Scope.Scope> = PolicySettings.loadSettings,
  params: Effect.Effect<Option.Option<ParamsCheck.ParamsCheckShape>, ConfigError, Scope.Scope> = Effect.map(
    ParamsCheck.load,
    Option.some,
  ),
): Effect.Effect<Context.Context<Tools>, ConfigError, Scope.Scope> =>
  Effect.gen(function* () {
    const settled = Context.make(PolicySettings.ServerSettings, yield* settings)
    const policy = yield* Effect.provide(Policy.ofSettings, settled)
    const given = yield* params
    const check = Option.isSome(given)
      ? given.value
      : yield* Parts.beneathOr(ParamsCheck.ParamsCheck, Effect.sync(ParamsCheck.lazyShipped))
    const store = yield* Parts.beneath(Store.Store, Option.none())
    const confirmations = yield* Parts.beneathOr(
      ConfirmationState.ConfirmationState,
      Effect.provideService(ConfirmationState.ofTeam, Store.Store, store),
    )
    const guard = yield* Parts.beneath(Guard.Guard, Option.none())
    const pages = yield* Parts.beneathOr(
      SecretPages.SecretPages,
      SecretPageServer.make(
        SecretPages.makeStore(Context.get(settled, PolicySettings.ServerSettings).secretPageMs),
        Date.now,
        Context.get(settled, PolicySettings.ServerSettings).secretPageMs,
      ),
    )
    const reader = yield* Parts.beneathOr(PatternReader.PatternReader, PatternReader.make)
    return settled.pipe(
      Context.add(Policy.Policy, policy),
      Context.add(ParamsCheck.ParamsCheck, check),
      Context.add(ConfirmationState.ConfirmationState, confirmations),
      Context.add(Guard.Guard, guard),
      Context.add(Store.Store, store),
      Context.add(SecretPages.SecretPages, pages),
      Context.add(PatternReader.PatternReader, reader),
    )
  })

/** The tools as the ConfigProvider says. */
export const layer: Layer.Layer<Tools, ConfigError> = layerWith()
