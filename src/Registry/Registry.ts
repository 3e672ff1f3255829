/**
 * The services SVC_SERVICES names, each with its own state: its configuration,
 * its auth (its own login and token), its client, its policy and settings,
 * its params check.
 * Each is built from the same layers as a single service, reading its own
 * variables (Settings/Registry.ts), so nothing of one can reach another.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { Auth } from "../Auth.js"
import { SvcConfig } from "../Config.js"
import { Named } from "../Service/ServiceCallers.js"
import { Naming, naming } from "../Settings/Naming.js"
import type { ConfigError } from "../Settings/Read.js"
import { reading } from "../Settings/Registry.js"
import { ServerSettings } from "../Settings/ToolSettings.js"
import { SvcClient } from "../SvcClient.js"
import { Names } from "../Tools/Names/Names.js"
import { ParamsCheck } from "../Tools/Params/ParamsCheck.js"
import { Policy } from "../Tools/Policy/Policy.js"

/** What each service has of its own; its params check, against the definitions of its own version. */
export type PerService = SvcConfig | Auth | SvcClient | Policy | ServerSettings | ParamsCheck | Names

export interface Service {
  readonly name: string
  readonly context: Context.Context<PerService>
}

/** The services SVC_SERVICES names, in its order; none, the default, when one unnamed service is served. */
export class Services extends Context.Reference<Services>()("svc-mcp/Services", {
  defaultValue: (): ReadonlyArray<Service> => [],
}) {}

/**
 * One unnamed service, as without SVC_SERVICES: no services named, calls
 * not routed, each request's credentials in the single pair of headers.
 */
export const layerOne: Layer.Layer<Services | Named> = Layer.mergeAll(
  Layer.succeed(Services, []),
  Layer.succeed(Named, []),
)

const ownOf = Context.pick(SvcConfig, Auth, SvcClient, Policy, ServerSettings, ParamsCheck, Names)

/**
 * Builds each name's `layer`, each reading its own variables; the services
 * live as long as the scope. The first refusal stops the start.
 */
export const make = <R>(
  names: ReadonlyArray<string>,
  layer: (name: string) => Layer.Layer<PerService, ConfigError, R>,
): Effect.Effect<ReadonlyArray<Service>, ConfigError, R | Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    return yield* Effect.forEach(names, (name) =>
      Layer.buildWithScope(layer(name), scope).pipe(
        reading(name),
        // Only what is the service's own: what its bundles hold of the server's (the confirmations'
        // memory, the guard) stays the server's. Its calls make their messages with its naming too
        // (SVC_STAGING_CONFIRM, not SVC_CONFIRM).
        Effect.map((context) => ({ name, context: Context.add(ownOf(context), Naming, naming(name)) })),
      ),
    )
  })

export const settingsOf = (service: Service) => Context.get(service.context, ServerSettings)
export const policyOf = (service: Service) => Context.get(service.context, Policy)
export const configOf = (service: Service) => Context.get(service.context, SvcConfig)
export const authOf = (service: Service) => Context.get(service.context, Auth)
export const paramsOf = (service: Service) => Context.get(service.context, ParamsCheck)
