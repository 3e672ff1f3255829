/**
 * The service's client as one layer, needing only an HttpClient: its settings
 * from the ConfigProvider (SVC_URL, the credentials, SVC_TIMEOUT_MS), its auth,
 * the default page the tools learn once, and in per-request mode (when
 * `CallerCredentials.layerConfig` or `.layer("per-request")` is provided
 * beneath it) each caller's own key, with the refused-key guard, its memory in
 * the shared store when one is provided beneath (Store).
 *
 * The credentials mode and whether identities send keys of their own are read
 * once, as the layer is built, and provided with the client: what is above it
 * sees the very values the client was built with, wherever they were provided.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Auth from "../Auth.js"
import * as RefusedKeys from "../Callers/RefusedKeys.js"
import * as Config from "../Config.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as SignInAuth from "../SignIn/Auth.js"
import * as Store from "../Store/Store.js"
import * as SvcClient from "../SvcClient.js"
import * as Pages from "../Tools/Pages.js"
import * as Parts from "./Parts.js"

/** What the client bundle provides. */
export type Client =
  | Config.SvcConfig
  | Auth.Auth
  | SvcClient.SvcClient
  | Pages.DefaultPage
  | RefusedKeys.RefusedKeys
  | CallerCredentials.Mode
  | SignInAuth.IdentityKeys

/** How the bundle gets its configuration, for the credentials mode in force. */
export type ConfigFor<E = Config.ConfigError> = (mode: Config.CredentialsMode) => Layer.Layer<Config.SvcConfig, E>

/** The client over the configuration `config` gives (a value: `() => Config.layerValue(...)`). */
export const layerWith = <E = Config.ConfigError>(
  config: ConfigFor<E> = Config.layerFor as ConfigFor<E>,
): Layer.Layer<Client, E, HttpClient.HttpClient> =>
  Layer.unwrapEffect(
    Effect.map(Effect.zip(CallerCredentials.Mode, SignInAuth.IdentityKeys), ([mode, identityKeys]) =>
      Pages.layer.pipe(
        Layer.provideMerge(SvcClient.layer),
        Layer.provideMerge(
          mode === "per-request"
            ? Layer.succeed(Auth.Auth, Auth.perRequest)
            : // With sign-in, an identity mapped to a key of its own sends that key.
              identityKeys
              ? SignInAuth.layer.pipe(Layer.provide(Auth.layer))
              : Auth.layer,
        ),
        Layer.provideMerge(config(mode)),
        // A caller key the service refused is not sent again within its failure window.
        Layer.provideMerge(
          mode === "per-request" || identityKeys
            ? RefusedKeys.layer.pipe(Layer.provide(Parts.orElse(Store.Store, Store.layerOff)))
            : RefusedKeys.layerOff,
        ),
        Layer.provideMerge(Layer.succeed(CallerCredentials.Mode, mode)),
        Layer.provideMerge(Layer.succeed(SignInAuth.IdentityKeys, identityKeys)),
      ),
    ),
  )

/** The client as the ConfigProvider says. */
export const layer: Layer.Layer<Client, Config.ConfigError, HttpClient.HttpClient> = layerWith()
