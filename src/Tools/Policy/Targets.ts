/**
 * What a call touches, for the patterns that name it after `@` (Settings/Touches.ts): resolved
 * from the call's params and from what it acts on: the resource a change names (by id or name),
 * the server an execution runs on, each match of a batch's pattern, each resource a procedure's
 * stages run on. Each resource is read once per call (the resolution is cached by its caller),
 * bounded in time and in count; one that cannot be read is kept as unread, and counts as matching.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Kinds from "../../Kinds/Kinds.js"
import type { Touch } from "../../Settings/Touches.js"
import * as NamePattern from "../../Shared/NamePattern.js"
import type { PatternReader } from "../../Shared/PatternReader.js"
import { quote } from "../../Shared/Quote.js"
import { SvcClient } from "../../SvcClient.js"

/** What of a call its targets are resolved from: its selector, its endpoint (`group/Endpoint`) and its params. */
export interface Named {
  readonly selector: string
  readonly endpoint: string
  readonly body: Readonly<Record<string, unknown>>
}

/** A resource the call touches: its type (its kind's word, Kinds/Kinds.ts: `sync`), name, tags' names, the server and swarm it is on, and the builder it builds on. */
interface Target {
  readonly type: string
  readonly name: string
  readonly tags: ReadonlyArray<string>
  readonly server?: string | undefined
  readonly swarm?: string | undefined
  readonly builder?: string | undefined
}

/** What a call touches: the resources read, and, in words, what could not be read (which counts as matching). */
export interface Resolved {
  readonly targets: ReadonlyArray<Target>
  readonly unread: ReadonlyArray<string>
}

/** A resource named by the call: its type and the id or name it is named by. */
interface Ref {
  readonly type: string
  readonly key: string
}

/** A selector's resource type, where the selector names one of the resources (`sync_resource` is a sync). */
const typeOf = (selector: string): string | undefined => {
  const kind = Kinds.kindOf(selector)
  return kind?.paged === true ? kind.names : undefined
}

/** The kind a batch endpoint runs on, by its word: `BatchDeployStackIfChanged` a stack, `BatchDeploy` a deployment. */
export const batchKind = (endpoint: string): string | undefined => Kinds.batchOf(endpoint)?.names

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)
const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []

/** The resources `body` names, as an endpoint's params name them. */
export const refsOf = (selector: string, body: Readonly<Record<string, unknown>>, endpoint: string): Array<Ref> => {
  const own = typeOf(selector)
  const refs: Array<Ref> = []
  // A change of a resource names it by `id` (a rename, an update, a delete).
  if (own !== undefined && text(body.id) !== undefined && !endpoint.startsWith("Create")) {
    refs.push({ type: own, key: body.id as string })
  }
  // Execute's operations name a resource by its get's key (`stack`, `sync`).
  for (const kind of Kinds.RESOURCES) {
    const value = text(body[kind.get.key])
    if (value !== undefined && !refs.some((r) => r.type === kind.names && r.key === value))
      refs.push({ type: kind.names, key: value })
  }
  const target = field(body, "target")
  const targetType = text(field(target, "type"))
  const targetId = text(field(target, "id"))
  if (targetType !== undefined && targetId !== undefined)
    refs.push({ type: Kinds.wordOf(targetType) ?? targetType.toLowerCase(), key: targetId })
  return refs
}

/** The most resources one call's resolution reads or lists: beyond it, the rest count as unread. */
const MOST = 500

/** How long one call's resolution may take, every read in it: beyond it, what is not read counts as unread. */
const WITHIN_MS = 10_000

const call = (endpoint: string, params: object) =>
  Effect.flatMap(SvcClient, (client) => client.call("read", endpoint, params)).pipe(
    Effect.mapError((error) => error.message),
  )

/** The names of tags, servers, swarms and builders by id, each list read once per call, when first needed. */
interface Lookups {
  readonly tags: Effect.Effect<ReadonlyMap<string, string>, never, SvcClient>
  readonly servers: Effect.Effect<ReadonlyMap<string, string>, never, SvcClient>
  readonly swarms: Effect.Effect<ReadonlyMap<string, string>, never, SvcClient>
  readonly builders: Effect.Effect<ReadonlyMap<string, string>, never, SvcClient>
}

const byId = (endpoint: string) =>
  Effect.map(Effect.either(call(endpoint, {})), (listed) => {
    const items = Either.isRight(listed) && Array.isArray(listed.right) ? listed.right : []
    return new Map(
      items.flatMap((item) => {
        const id = text(field(item, "id")) ?? text(field(field(item, "_id"), "$oid"))
        const name = text(field(item, "name"))
        return id === undefined || name === undefined ? [] : [[id, name] as const]
      }),
    )
  })

/**
 * The id or name of the server, swarm or builder a record or a config puts it on: a config's
 * `<place>_id`, or `<place>`, its alias in a partial config (a create's or an update's:
 * service-api.schema.json, _PartialDeploymentConfig), else a list item's `info`.
 */
const placeOf = (record: unknown, place: "server" | "swarm" | "builder"): string | undefined => {
  const config = field(record, "config")
  return (
    text(field(config, `${place}_id`)) ??
    text(field(config, place)) ??
    text(field(field(record, "info"), `${place}_id`))
  )
}

/** A record or a list item as a target: tags by name, its server by name (a tag or server given by name stays so). */
const targetOf = (type: string, record: unknown, lookups: Lookups, fallback: string) =>
  Effect.gen(function* () {
    const tagIds = strings(field(record, "tags"))
    const tags = tagIds.length === 0 ? new Map<string, string>() : yield* lookups.tags
    const serverId = type === "server" ? undefined : placeOf(record, "server")
    const servers = serverId === undefined ? new Map<string, string>() : yield* lookups.servers
    const swarmId = placeOf(record, "swarm")
    const swarms = swarmId === undefined ? new Map<string, string>() : yield* lookups.swarms
    // A build's or a repo's builder (BuildConfig, RepoConfig, and their list items' info).
    const builderId = placeOf(record, "builder")
    const builders = builderId === undefined ? new Map<string, string>() : yield* lookups.builders
    return {
      type,
      name: text(field(record, "name")) ?? fallback,
      tags: tagIds.map((id) => tags.get(id) ?? id),
      ...(serverId === undefined ? {} : { server: servers.get(serverId) ?? serverId }),
      ...(swarmId === undefined ? {} : { swarm: swarms.get(swarmId) ?? swarmId }),
      ...(builderId === undefined ? {} : { builder: builders.get(builderId) ?? builderId }),
    } satisfies Target
  })

/** Whether a change's config puts its resource somewhere: on a server, a swarm or a builder. */
const places = (config: unknown): boolean =>
  placeOf({ config }, "server") !== undefined ||
  placeOf({ config }, "swarm") !== undefined ||
  placeOf({ config }, "builder") !== undefined

/** One resource read with the get of its type; Left: why it could not be. */
const readRef = (ref: Ref, lookups: Lookups) => {
  const get = Kinds.resourceOf(ref.type)?.get
  if (get === undefined) return Effect.fail(`${ref.type} ${quote(ref.key)} has no read`)
  return call(get.endpoint, { [get.key]: ref.key }).pipe(
    Effect.mapError((why) => `${ref.type} ${quote(ref.key)} could not be read (${why})`),
    Effect.flatMap((record) => targetOf(ref.type, record, lookups, ref.key)),
  )
}

/** What a procedure's stages run on: each execution's params, as a call's (one level: no procedure within). */
const stagesOf = (record: unknown): Array<Ref> =>
  (Array.isArray(field(field(record, "config"), "stages")) ? (field(field(record, "config"), "stages") as []) : [])
    .flatMap((stage) => (Array.isArray(field(stage, "executions")) ? (field(stage, "executions") as []) : []))
    .flatMap((entry) => {
      const execution = field(entry, "execution")
      const type = text(field(execution, "type")) ?? ""
      const params = field(execution, "params")
      return typeof params === "object" && params !== null
        ? refsOf("", params as Record<string, unknown>, type).filter((r) => r.type !== "procedure")
        : []
    })

/** Each match of a batch's pattern (and tags), as the service's list names them. */
const matchesOf = (kind: Kinds.Resource, body: Readonly<Record<string, unknown>>, lookups: Lookups) =>
  Effect.gen(function* () {
    const pattern = text(body.pattern) ?? ""
    const tags = strings(body.tags)
    const items = yield* call(kind.list, { ...(tags.length === 0 ? {} : { query: { tags } }), limit: 0 })
    const listed = Array.isArray(items) ? (items as Array<unknown>) : []
    const names = listed.map((i) => text(field(i, "name")) ?? "")
    const selected = yield* NamePattern.select(pattern, names)
    if (selected._tag === "Refused") return yield* Effect.fail(`the pattern ${quote(pattern)} is refused`)
    const matched = selected.matched.flatMap((i) => (listed[i] === undefined ? [] : [listed[i]]))
    if (matched.length > MOST) {
      return yield* Effect.fail(`${matched.length} ${kind.names}s match, more than ${MOST}`)
    }
    return yield* Effect.forEach(matched, (item) => targetOf(kind.names, item, lookups, ""))
  }).pipe(Effect.mapError((why) => `the matches of the batch could not be read (${why})`))

/** What `invocation` touches: read now, bounded; the caller caches it for the call. */
export const resolve = (invocation: Named): Effect.Effect<Resolved, never, SvcClient | PatternReader> =>
  Effect.gen(function* () {
    const lookups: Lookups = {
      tags: yield* Effect.cached(byId(Kinds.KINDS.tag.list)),
      servers: yield* Effect.cached(byId(Kinds.KINDS.server.list)),
      swarms: yield* Effect.cached(byId(Kinds.KINDS.swarm.list)),
      builders: yield* Effect.cached(byId(Kinds.KINDS.builder.list)),
    }
    const endpoint = invocation.endpoint.slice(invocation.endpoint.indexOf("/") + 1)
    const refs = refsOf(invocation.selector, invocation.body, endpoint)
    const targets: Array<Target> = []
    const unread: Array<string> = []
    const kind = Kinds.batchOf(endpoint)
    if (kind !== undefined) {
      const matches = yield* Effect.either(matchesOf(kind, invocation.body, lookups))
      Either.match(matches, { onLeft: (why) => unread.push(why), onRight: (found) => targets.push(...found) })
    }
    const read = (refs: ReadonlyArray<Ref>) =>
      Effect.forEach(refs.slice(0, MOST), (ref) => Effect.either(readRef(ref, lookups)), { concurrency: 4 })
    for (const found of yield* read(refs)) {
      Either.match(found, { onLeft: (why) => unread.push(why), onRight: (target) => targets.push(target) })
    }
    // A procedure run runs its stages: what they name is touched too.
    if (endpoint === "RunProcedure" && typeof invocation.body.procedure === "string") {
      const record = yield* Effect.either(call("GetProcedure", { procedure: invocation.body.procedure }))
      const staged = Either.isRight(record) ? stagesOf(record.right) : []
      for (const found of yield* read(staged)) {
        Either.match(found, { onLeft: (why) => unread.push(why), onRight: (target) => targets.push(target) })
      }
    }
    // A new resource is touched as it will be: its name and the server its config puts it on.
    const type = typeOf(invocation.selector)
    if (endpoint.startsWith("Create") && type !== undefined) {
      targets.push(yield* targetOf(type, invocation.body, lookups, ""))
    }
    // A resource a change moves is touched where it will be, as well as where it is.
    if (endpoint.startsWith("Update") && type !== undefined && places(invocation.body.config)) {
      const name = targets.find((target) => target.type === type)?.name ?? text(invocation.body.id) ?? ""
      targets.push(yield* targetOf(type, { name, config: invocation.body.config }, lookups, name))
    }
    return { targets, unread } satisfies Resolved
  }).pipe(
    Effect.timeoutTo({
      duration: WITHIN_MS,
      onTimeout: () => ({
        targets: [],
        unread: [`what the call touches could not be read within ${WITHIN_MS / 1000} s`],
      }),
      onSuccess: (resolved: Resolved) => resolved,
    }),
  )

/** The word of what each place's `@` part names: itself, and what is on it. */
const PLACES = { Server: "server", Swarm: "swarm", Builder: "builder" } as const

/** How many of what a pattern matched its words name. */
const SAID = 5

/** What `target` is that `touch` names, in words; undefined: nothing it names. */
const saying = (touch: Touch, target: Target): string | undefined => {
  const named = `${target.type} ${quote(target.name)}`
  if (touch._tag === "Tag") {
    const tag = target.tags.find((t) => touch.name.test(t))
    return tag === undefined ? undefined : `${named} carries the tag ${quote(tag)}`
  }
  if (touch._tag === "Resource") {
    return target.type === touch.type && touch.name.test(target.name) ? `it acts on the ${named}` : undefined
  }
  // A server, a swarm or a builder: itself, or what is on it (built on it).
  const place = PLACES[touch._tag]
  if (target.type === place) {
    return touch.name.test(target.name) ? `it acts on the ${place} ${quote(target.name)}` : undefined
  }
  const on = target[place]
  const is = place === "builder" ? "builds on" : "is on"
  return on !== undefined && touch.name.test(on) ? `${named} ${is} the ${place} ${quote(on)}` : undefined
}

/**
 * What of `resolved` the `@` part `touch` names, in words (`"web" carries the tag "production"`);
 * what could not be read counts as matching, and says so. Empty: the call touches nothing it names.
 */
export const touched = (touch: Touch, resolved: Resolved): ReadonlyArray<string> => {
  const words = resolved.targets.flatMap((target) => {
    const said = saying(touch, target)
    return said === undefined ? [] : [said]
  })
  const all = [...words, ...resolved.unread.map((why) => `${why}: counted as matching`)]
  // A batch of hundreds: a few named, the rest counted.
  return all.length > SAID ? [...all.slice(0, SAID), `and ${all.length - SAID} more`] : all
}
