/**
 * The layers of several services (SVC_SERVICES): each service's own (its
 * configuration, auth, client, policy, params check) built per name by the registry, beside
 * what they share (the HTTP transport, telemetry, the credentials mode). The
 * first service also stands as "the" service where one is expected.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Config from "../Config.js"
import * as Telemetry from "../Operations/Telemetry.js"
import * as Registry from "../Registry/Registry.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as ServiceCallers from "../Service/ServiceCallers.js"
import * as SvcTransport from "../Service/Transport.js"
import * as PolicySettings from "../Settings/ToolSettings.js"
import * as SignInAuth from "../SignIn/SignedInAuth.js"
import * as ParamsCheck from "../Tools/Params/ParamsCheck.js"
import * as ClientBundle from "./Client.js"
import * as ToolsBundle from "./Tools.js"

/**
 * One service's own layers, the same bundles as a single service's (each
 * remembers the caller keys it refused, apart from the others); its params
 * check against its own definitions.
 */
const perService = (name: string, config: Layer.Layer<Config.SvcConfig, Config.ConfigError>) =>
  Layer.merge(
    ClientBundle.layerWith(() => config),
    ToolsBundle.layerWith(PolicySettings.layer, ParamsCheck.layerFor(name)),
  )

/**
 * The services, each as its variables say (or at the address `config` gives,
 * as the sandboxes do), and the first one's own services.
 */
export const serving = (
  names: ReadonlyArray<string>,
  config: (name: string, mode: Config.CredentialsMode) => Layer.Layer<Config.SvcConfig, Config.ConfigError> = (
    _name,
    mode,
  ) => Config.layerFor(mode),
) =>
  Layer.unwrapEffect(
    Effect.map(Config.loadCredentialsMode, (mode) => {
      const registry = Layer.scoped(
        Registry.Services,
        Registry.make(names, (name) => perService(name, config(name, mode))),
      )
      const first = Layer.effectContext(
        Effect.map(Registry.Services, (services) => (services[0] as Registry.Service).context),
      )
      return first.pipe(
        Layer.provideMerge(registry),
        Layer.provideMerge(SvcTransport.layer),
        Layer.provideMerge(Telemetry.layerConfig),
        Layer.provideMerge(CallerCredentials.layer(mode)),
        // With sign-in, each service's Auth sends an identity's key mapped for that service.
        Layer.provideMerge(SignInAuth.layerConfig),
        Layer.provideMerge(Layer.succeed(ServiceCallers.Named, names)),
      )
    }),
  )

/** The start-up line's part about the services: each one's URL, auth, policy and params check. */
export const describe = (services: ReadonlyArray<Registry.Service>): string =>
  services
    .map((service) => {
      const config = Registry.configOf(service)
      const auth = Registry.authOf(service)
      const params = Registry.paramsOf(service).inForce
      return `${service.name} at ${config.url} (${auth.method} auth; ${Registry.policyOf(service).summary}; ${params})`
    })
    .join("; ")
