/**
 * The shared store: what replicas behind a balancer must agree on (a
 * confirmation's single use, the caller keys the service refused) kept in
 * Redis, or Valkey, which speaks the same protocol. Off by default: without it
 * each part keeps its own memory, for one process, as a server run alone needs.
 *
 * Only single-key commands (SET with NX/XX/GET/PX, GET, DEL, XADD, PING), so that
 * Redis Cluster and Sentinel deployments serve it as they are. Through Sentinel
 * (a redis+sentinel:// URL) the Sentinels name the primary, and name it again
 * when they fail it over: the client follows with no restart. Commands time out
 * fast and are never queued while the connection is down: a caller gets a
 * StoreError at once and decides (a confirmation fails closed, the refused-key
 * memory falls back to the process's own). The connection comes back by itself.
 *
 * The client, node-redis, is imported only when SVC_MCP_STORE is set: a start
 * without it loads none of it.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { ConfigError } from "../Settings/Read.js"
import * as Settings from "../Settings/Store.js"
import type { StoreShape } from "./Shape.js"
import { Store } from "./Shape.js"

export {
  backoff,
  CACHE_ENTRIES,
  COMMAND_TIMEOUT_MS,
  CONNECT_TIMEOUT_MS,
  MAX_BACKOFF_MS,
  START_WAIT_MS,
} from "./Clients.js"
export { Store, StoreError, type StoreShape, type StoreStatus } from "./Shape.js"

/** The client over node-redis, imported when a store is configured. */
const loadRedis = Effect.promise(() => import("./Redis.js"))

/** The store over node-redis, connected in the background: the server starts whether it answers or not. */
export const make = (settings: Settings.StoreSettings): Effect.Effect<StoreShape, never, Scope.Scope> =>
  Effect.flatMap(loadRedis, (Redis) => Redis.make(settings))

/** The store as SVC_MCP_STORE says (from the current ConfigProvider); unset, none. */
export const makeConfig: Effect.Effect<Option.Option<StoreShape>, ConfigError, Scope.Scope> = Effect.flatMap(
  Settings.load,
  Option.match({
    onNone: () => Effect.succeed(Option.none<StoreShape>()),
    onSome: (settings) => Effect.map(make(settings), Option.some),
  }),
)

/** `makeConfig` as a layer. */
export const layer: Layer.Layer<Store, ConfigError> = Layer.scoped(Store, makeConfig)

/** A store of these settings, whatever the environment says. */
export const layerValue = (settings: Settings.StoreSettings): Layer.Layer<Store> =>
  Layer.scoped(Store, Effect.map(make(settings), Option.some))

/** No shared store: each part keeps its own memory (the bundles' default). */
export const layerOff: Layer.Layer<Store> = Layer.succeed(Store, Option.none())
