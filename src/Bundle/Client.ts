/**
 * The service's client as one layer, needing only an HttpClient: its settings
 * from the ConfigProvider (SVC_URL, the credentials, SVC_TIMEOUT_MS), its auth,
 * the default page the tools learn once, the names of ids each caller may
 * see (kept briefly per caller), and in per-request mode (when
 * `CallerCredentials.layerConfig` or `.layer("per-request")` is provided
 * beneath it) each caller's own key, with the refused-key guard, its memory in
 * the shared store when one is provided beneath (Store).
 *
 * The credentials mode and whether identities send keys of their own are read
 * once, as the layer is built, and provided with the client: what is above it
 * sees the very values the client was built with, wherever they were provided.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Auth from "../Auth.js"
import * as RefusedKeys from "../Callers/RefusedKeys.js"
import * as Config from "../Config.js"
import * as Mint from "../Mint/Shape.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as MintSettings from "../Settings/Mint.js"
import * as Parts from "../Shared/Parts.js"
import * as SignInAuth from "../SignIn/SignedInAuth.js"
import * as Store from "../Store/Store.js"
import * as SvcClient from "../SvcClient.js"
import * as Pages from "../Tools/Lists/Pages.js"
import * as Names from "../Tools/Names/Names.js"

/** What the client bundle provides. */
export type Client =
  | Config.SvcConfig
  | Auth.Auth
  | SvcClient.SvcClient
  | Pages.DefaultPage
  | Names.Names
  | RefusedKeys.RefusedKeys
  | CallerCredentials.Mode
  | SignInAuth.IdentityKeys
  | Mint.Minting

/** How the bundle gets its configuration, for the credentials mode in force. */
export type ConfigFor<E = Config.ConfigError> = (mode: Config.CredentialsMode) => Layer.Layer<Config.SvcConfig, E>

/** `ConfigFor` as `contextWith` takes it: the configuration itself, read or given. */
export type LoadConfigFor<E = Config.ConfigError> = (
  mode: Config.CredentialsMode,
) => Effect.Effect<Config.SvcConfigShape, E, Scope.Scope>

/**
 * The client over the configuration `config` gives (a value: `() => Config.layerValue(...)`).
 * Its parts are made in one layer (by `contextWith`), in the order each needs the one before (the
 * configuration, the refused keys, the auth, the client, then what learns from the client),
 * rather than in a layer each, twenty of them.
 */
export const layerWith = <E = Config.ConfigError>(
  config: ConfigFor<E> = Config.layerFor as ConfigFor<E>,
): Layer.Layer<Client, E, HttpClient.HttpClient> =>
  Layer.scopedContext(contextWith((mode) => Effect.map(Layer.build(config(mode)), Context.get(Config.SvcConfig))))

/** What `layerWith` provides, made in the current scope (the command line's start builds no layer for it). */
export const contextWith = <E>(
  config: LoadConfigFor<E>,
): Effect.Effect<Context.Context<Client>, E, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function* () {
    const mode = yield* CallerCredentials.Mode
    const identityKeys = yield* SignInAuth.IdentityKeys
    const configured = Context.make(Config.SvcConfig, yield* config(mode))
    // A caller key the service refused is not sent again within its failure window.
    const refusedKeys =
      mode === "per-request" || identityKeys
        ? yield* Effect.map(RefusedKeys.make, Option.some).pipe(
            Effect.provideService(Store.Store, yield* Parts.beneath(Store.Store, Option.none())),
          )
        : Option.none()
    const http = yield* HttpClient.HttpClient
    const beneath = Context.merge(configured, Context.make(HttpClient.HttpClient, http))
    const server = mode === "per-request" ? Auth.perRequest : yield* Effect.provide(Auth.make, beneath)
    // With sign-in, keys are minted for people whose entry asks, with the server's own credentials.
    const minting =
      mode !== "per-request" && identityKeys ? yield* mintingWith(server, beneath, refusedKeys) : Option.none()
    // With sign-in, an identity mapped to a key of its own sends that key, or the one minted for it.
    const auth = mode !== "per-request" && identityKeys ? SignInAuth.withIdentities(server, minting) : server
    const client = yield* Effect.provide(
      SvcClient.make,
      beneath.pipe(Context.add(Auth.Auth, auth), Context.add(RefusedKeys.RefusedKeys, refusedKeys)),
    )
    const withClient = Context.make(SvcClient.SvcClient, client)
    const page = yield* Effect.provide(Pages.make, withClient)
    const names = yield* Effect.provide(Names.make(), withClient)
    return configured.pipe(
      Context.add(Auth.Auth, auth),
      Context.add(RefusedKeys.RefusedKeys, refusedKeys),
      Context.add(SvcClient.SvcClient, client),
      Context.add(Pages.DefaultPage, page),
      Context.add(Names.Names, Option.some(names)),
      Context.add(CallerCredentials.Mode, mode),
      Context.add(SignInAuth.IdentityKeys, identityKeys),
      Context.add(Mint.Minting, minting),
    )
  })

/** Minting, over a client of its own that sends the server's credentials whoever's call it serves. */
const mintingWith = (
  server: Auth.AuthShape,
  beneath: Context.Context<Config.SvcConfig | HttpClient.HttpClient>,
  refusedKeys: Option.Option<RefusedKeys.RefusedKeysShape>,
) =>
  Effect.gen(function* () {
    const admin = yield* Effect.provide(
      SvcClient.make,
      beneath.pipe(Context.add(Auth.Auth, server), Context.add(RefusedKeys.RefusedKeys, refusedKeys)),
    )
    const store = yield* Parts.beneath(Store.Store, Option.none())
    const settings = yield* MintSettings.MintSettings
    const config = Context.get(beneath, Config.SvcConfig)
    const { make } = yield* Effect.promise(() => import("../Mint/Mint.js"))
    return Option.some(yield* make(admin, store, { ...settings, scope: config.url }))
  })

/** The client as the ConfigProvider says. */
export const layer: Layer.Layer<Client, Config.ConfigError, HttpClient.HttpClient> = layerWith()
