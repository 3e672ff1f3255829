/**
 * Names where the service gives ids: a server's, a tag's, a builder's. Each
 * kind is read from the service with the caller's own credentials (one list
 * call), kept for TTL_MS, and kept per caller: by the service the call is for
 * and the credentials it sends (the signed-in identity, the caller's key and
 * a digest of its secret), so that one caller's names never reach another who
 * may not see them. A failed read is kept as no names for as long, so that a
 * caller costs the service at most one extra read per kind in TTL_MS.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as CallContext from "../../Call/Context.js"
import * as Kinds from "../../Kinds/Kinds.js"
import * as ExpiringMap from "../../Shared/ExpiringMap.js"
import { isObject } from "../../Shared/JsonShape.js"
import { SvcClient, type SvcClientShape } from "../../SvcClient.js"

/**
 * A kind of names: the table's (Kinds/Kinds.ts: `sync`, `user_group`...; a variable's are not names but
 * whether the service holds it secret, `secret` or `plain`), and the servers that cannot be reached
 * (`NotOk`), id to name, kept as names are (Records/Stale.ts).
 */
export type NameKind = Kinds.Word | "unreachable"

/**
 * How long names are kept: 30 s (docs/tools.md says why). A rename shows
 * within it; an assistant's turn of several calls costs one read per kind.
 */
export const TTL_MS = 30_000

/**
 * Where each kind's names are read: every item (`limit: 0` where its list is paged), its id and its
 * name, from its kind's list (Kinds/Kinds.ts). A user's are read by admins only: another caller's
 * read fails, and ids are shown.
 */
const READS = {
  ...Object.fromEntries(
    Kinds.NAMED.map(([kind, { list, paged }]) => [kind, { endpoint: list, body: paged ? { limit: 0 } : {} }]),
  ),
  unreachable: { endpoint: Kinds.KINDS.server.list, body: { limit: 0 } },
} as Readonly<Record<NameKind, { readonly endpoint: string; readonly body: object }>>

type NameMap = ReadonlyMap<string, string>
export type NameMaps = Readonly<Partial<Record<NameKind, NameMap>>>

/** A list item's id: `id` (resources) or `_id.$oid` (tags, users, user groups). */
const idOf = (item: Readonly<Record<string, unknown>>): unknown =>
  typeof item.id === "string" ? item.id : isObject(item._id) ? item._id.$oid : undefined

/** Each variable by name, `secret` unless the service says `is_secret: false`. */
const secrecyOf = (answer: unknown): NameMap =>
  new Map(
    (Array.isArray(answer) ? answer : []).flatMap((item) =>
      isObject(item) && typeof item.name === "string"
        ? [[item.name, item.is_secret === false ? "plain" : "secret"] as const]
        : [],
    ),
  )

/** The servers of a list that cannot be reached: id to name. */
export const unreachableOf = (servers: unknown): NameMap =>
  new Map(
    (Array.isArray(servers) ? servers : []).flatMap((s) =>
      isObject(s) && isObject(s.info) && s.info.state === "NotOk" && typeof s.id === "string"
        ? [[s.id, String(s.name ?? s.id)] as const]
        : [],
    ),
  )

const namesOf = (answer: unknown): NameMap => {
  const names = new Map<string, string>()
  if (!Array.isArray(answer)) return names
  for (const item of answer) {
    if (!isObject(item)) continue
    const id = idOf(item)
    // A user's name is its username.
    const name = typeof item.name === "string" ? item.name : item.username
    if (typeof id === "string" && typeof name === "string") names.set(id, name)
  }
  return names
}

/** Whose names a call may see: the service, and the credentials the call sends. */
const callerKeyOf = (context: CallContext.CallContext): string => {
  const caller = CallContext.callerOf(context)
  const digest = Option.match(caller, {
    onNone: () => "",
    // Loaded when first needed: a start loads no node:crypto (test/e2e/StartModules.e2e.test.ts).
    onSome: (c) =>
      process
        .getBuiltinModule("node:crypto")
        .createHash("sha256")
        .update(`${c.key}\0${Redacted.value(c.secret)}`)
        .digest("hex"),
  })
  return JSON.stringify([Option.getOrElse(context.service, () => ""), CallContext.bindingPrincipalOf(context), digest])
}

export interface NamesShape {
  /** The names of each kind asked for, as the current call's caller may see them. */
  readonly lookup: (kinds: ReadonlyArray<NameKind>) => Effect.Effect<NameMaps>
  /** Forgets the current caller's names of these kinds, after a change of theirs: the next lookup reads them anew. */
  readonly renew: (kinds: ReadonlyArray<NameKind>) => Effect.Effect<void>
}

/**
 * The kinds of names a change of `selector` (svc_create, svc_update, svc_delete, svc_rename,
 * svc_copy) may change: the resource's own, and the tags a resource's meta may create.
 */
export const kindsChangedBy = (selector: string): ReadonlyArray<NameKind> => {
  if (selector === "resource_meta") return ["tag"]
  if (selector === "sync_resource") return ["sync"]
  if (selector.startsWith("user_group")) return ["user_group"]
  if (selector === "user" || selector === "local_user" || selector === "service_user") return ["user"]
  return Object.hasOwn(READS, selector) && !UNKEPT.has(selector as NameKind) ? [selector as NameKind] : []
}

/**
 * The names of ids, read per caller and kept briefly: state, so a Tag the
 * client's bundle provides (`layer`); None (`layerOff`) shows ids.
 */
export class Names extends Context.Tag("svc-mcp/Names")<Names, Option.Option<NamesShape>>() {}

/** Read anew for each answer, never kept: which variables are secret decides what a plan hides. */
const UNKEPT: ReadonlySet<NameKind> = new Set(["variable"])

/** The most entries (a caller's names of a kind) held: beyond it the oldest is forgotten first. */
const MOST_ENTRIES = 4096

interface Entry {
  readonly names: Effect.Effect<NameMap>
  /** The names once read: a call that finds them reads them without a step of its own. */
  read?: NameMap
}

const read = (client: SvcClientShape, kind: NameKind): Effect.Effect<NameMap> =>
  client.call("read", READS[kind].endpoint, READS[kind].body).pipe(
    // A read the user did not ask for: its failure shows as ids, not as a warning.
    Logger.withMinimumLogLevel(LogLevel.Error),
    Effect.map(kind === "variable" ? secrecyOf : kind === "unreachable" ? unreachableOf : namesOf),
    Effect.catchAll((error) =>
      Effect.as(Effect.logDebug(`${kind} names could not be read (${error.message}); ids shown`), new Map()),
    ),
  )

export const make = (ttlMs: number = TTL_MS): Effect.Effect<NamesShape, never, SvcClient> =>
  Effect.gen(function* () {
    const client = yield* SvcClient
    // Read and written in synchronous steps only; a miss is settled under the lock, so that
    // concurrent calls of one caller share one read.
    const entries = ExpiringMap.make<string, Entry>({ ttlMs, most: MOST_ENTRIES })
    const lock = yield* Effect.makeSemaphore(1)
    const fresh = (key: string, now: number): Entry | undefined => entries.get(key, now)
    const miss = (key: string, kind: NameKind, now: number): Effect.Effect<NameMap> =>
      Effect.flatten(
        lock.withPermits(1)(
          Effect.suspend(() => {
            const found = fresh(key, now)
            if (found !== undefined) return Effect.succeed(found.names)
            return Effect.map(Effect.cached(Effect.suspend(() => read(client, kind))), (names) => {
              const entry: Entry = {
                names: Effect.tap(names, (map) => {
                  entry.read = map
                }),
              }
              entries.set(key, entry, now)
              return entry.names
            })
          }),
        ),
      )
    return {
      renew: (kinds) =>
        Effect.flatMap(CallContext.get, (context) =>
          Effect.sync(() => {
            const caller = callerKeyOf(context)
            for (const kind of kinds) entries.delete(`${caller} ${kind}`)
          }),
        ),
      lookup: (kinds) =>
        Effect.flatMap(CallContext.get, (context) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const caller = callerKeyOf(context)
            const maps: Partial<Record<NameKind, NameMap>> = {}
            const missing: Array<NameKind> = []
            for (const kind of kinds) {
              const found = UNKEPT.has(kind) ? undefined : fresh(`${caller} ${kind}`, now)?.read
              if (found === undefined) missing.push(kind)
              else maps[kind] = found
            }
            if (missing.length === 0) return Effect.succeed(maps as NameMaps)
            return Effect.map(
              Effect.forEach(
                missing,
                (kind) =>
                  Effect.map(UNKEPT.has(kind) ? read(client, kind) : miss(`${caller} ${kind}`, kind, now), (map) => [
                    kind,
                    map,
                  ]),
                { concurrency: "unbounded" },
              ),
              (read) => ({ ...maps, ...Object.fromEntries(read) }) as NameMaps,
            )
          }),
        ),
    }
  })

export const layer: Layer.Layer<Names, never, SvcClient> = Layer.effect(Names, Effect.map(make(), Option.some))

/** No names: ids are shown as the service gave them. */
export const layerOff: Layer.Layer<Names> = Layer.succeed(Names, Option.none())
