/**
 * The service's client as a command has it: `check` and `people` with the server's own
 * credentials, nothing traced; a server with the parts the environment turns on beneath it.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ClientBundle from "../Bundle/Client.js"
import * as Config from "../Config.js"
import * as Telemetry from "../Operations/Telemetry.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as SvcTransport from "../Service/Transport.js"
import * as MintSettings from "../Settings/Mint.js"
import * as SignInSettings from "../Settings/SignIn.js"
import * as Parts from "../Shared/Parts.js"
import * as SignInAuth from "../SignIn/SignedInAuth.js"

/** The service's client as `check` uses it: the server's own credentials, nothing traced. */
export const checkingClient = (config: Layer.Layer<Config.SvcConfig, Config.ConfigError>) =>
  ClientBundle.layerWith(() => config).pipe(Layer.provideMerge(SvcTransport.layer))

/**
 * The service's client as served: the client's bundle, with beneath it the
 * parts the environment turns on: telemetry (as OTEL_* say) and, in
 * per-request mode (SVC_MCP_CREDENTIALS), each caller's own credentials
 * instead of the server's.
 */
export const servingClient = (config: ClientBundle.LoadConfigFor = Config.loadFor) =>
  Parts.provideScoped(
    Effect.gen(function* () {
      // With sign-in (SVC_MCP_OAUTH_ISSUER), an identity's mapped key.
      const identityKeys = yield* SignInSettings.enabled
      const mode = yield* Config.loadCredentialsMode
      const beneath = (yield* Telemetry.contextConfig).pipe(
        Context.add(HttpClient.HttpClient, yield* SvcTransport.make),
        Context.add(CallerCredentials.Mode, mode),
        Context.add(SignInAuth.IdentityKeys, identityKeys),
        Context.add(MintSettings.MintSettings, yield* MintSettings.loadWhen(identityKeys)),
      )
      return Context.merge(beneath, yield* Effect.provide(ClientBundle.contextWith(config), beneath))
    }),
  )
