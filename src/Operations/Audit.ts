/**
 * The audit log (SVC_AUDIT_LOG): a change's intent is on the device before
 * anything is sent, its outcome after; a refused, declined or held call is a
 * record alone. Every line is chained to the one before (Audit/Chain.ts) and
 * flushed with the lines that came with it (Audit/Writer.ts); a checkpoint,
 * signed with SVC_AUDIT_KEY when it is given, is written every minute that saw
 * lines and at a clean stop. `svc-mcp audit verify` reads it back.
 *
 * An intent that cannot be written stops its change unsent; an outcome or a
 * record that cannot be written fails its call's answer no more: the change
 * was made, and the intent with no outcome says so. A log that cannot be
 * opened stops the start; SIGHUP reopens it, for logrotate, and the chain goes
 * on in the new file. With the replicas' shared store (SVC_MCP_STORE), each
 * line also goes to a Redis stream, so that a replica's lost disk loses none.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Settings from "../Settings/Audit.js"
import type { ConfigError } from "../Settings/Read.js"
import * as Parts from "../Shared/Parts.js"
import { Store } from "../Store/Store.js"
import { Audit, type AuditError, type AuditLog, type OpenOptions } from "./AuditLog.js"

export {
  Audit,
  type AuditEntry,
  AuditError,
  type AuditLog,
  type IntentEntry,
  type OpenOptions,
  STREAM_CAP,
} from "./AuditLog.js"
/**
 * The audit line of each revocation a reload of SVC_MCP_IDENTITIES makes; its writer imported by the
 * first, so that a start does not load it.
 */
export const revokedOnReload = (revoked: Parameters<typeof import("./AuditPeople.js").onReload>[0]) =>
  Effect.flatMap(
    Effect.promise(() => import("./AuditPeople.js")),
    (people) => people.onReload(revoked),
  )

/** The writer, imported when a log is kept. */
const loadOpen = Effect.promise(() => import("./AuditOpen.js"))

/** Opens `destination` (a path, or `-` for stderr) for the length of the scope; closed with a last checkpoint. */
export const open = (
  destination: string,
  options: OpenOptions = {},
): Effect.Effect<AuditLog, AuditError, Scope.Scope> =>
  Effect.flatMap(loadOpen, (opening) => opening.open(destination, options))

/**
 * The audit log as its settings say, opened now: a log that cannot be opened
 * stops the start, with the fix. With the shared store, its lines go to its stream too.
 */
export const layer = (settings: Settings.AuditSettings): Layer.Layer<Audit, ConfigError, Store> =>
  Layer.unwrapEffect(Effect.map(loadOpen, (opening) => opening.layer(settings)))

/** No audit log: nothing is audited. */
export const layerOff: Layer.Layer<Audit> = Layer.succeed(Audit, Option.none())

/** What `layerConfig` provides, made in the current scope: the command line's start builds no layer for it. */
export const contextConfig: Effect.Effect<Context.Context<Audit>, ConfigError, Scope.Scope> = Effect.flatMap(
  Settings.load,
  Option.match({
    onNone: () => Effect.succeed(Context.make(Audit, Option.none())),
    onSome: (settings) =>
      Effect.flatMap(Parts.beneath(Store, Option.none()), (store) =>
        Effect.provideService(Layer.build(layer(settings)), Store, store),
      ),
  }),
)

/** The audit log as SVC_AUDIT_LOG and SVC_AUDIT_KEY say (Settings/Audit.ts): `layer` when it is set, else `layerOff`. */
export const layerConfig: Layer.Layer<Audit, ConfigError> = Layer.scopedContext(contextConfig)
