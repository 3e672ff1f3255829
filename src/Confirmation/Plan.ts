/**
 * The plans of a delete, a batch and a sync run, read from the service just
 * before asking (Previews.ts says which endpoint shows which): a delete names
 * the record it removes, a batch the names its pattern matches now, a sync run
 * the changes it applies. A read that fails is said in the plan, never guessed
 * around.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Kinds from "../Kinds/Kinds.js"
import * as NamePattern from "../Shared/NamePattern.js"
import type { NamesShape } from "../Tools/Names/Names.js"
import { syncChanges } from "../Tools/Sync/SyncChanges.js"
import { field, read, text } from "./PlanRead.js"
import type { BatchPlan, DeletePlan, Preview, SyncPlan } from "./PlanShape.js"

export type { BatchPlan } from "./PlanShape.js"

/** How many of a batch's matches its question names. */
const LISTED = 30

type Params = Readonly<Record<string, unknown>>

/** The state and server of a stack or deployment: from its list item, where its state is (Kinds/Kinds.ts). */
const placement = (kind: "stack" | "deployment", id: string, name: string) =>
  Effect.gen(function* () {
    const of = Kinds.KINDS[kind]
    const items = yield* read("read", of.list, { query: { names: [name] }, limit: 0 })
    const item = Array.isArray(items) ? items.find((i) => field(i, "id") === id) : undefined
    const info = field(item, "info")
    const state = text(Kinds.stateIn(of, item))
    let server = text(field(info, "server_name"))
    const serverId = text(field(info, "server_id"))
    if (server === undefined && serverId !== undefined) {
      server = text(field(yield* read("read", "GetServer", { server: serverId }), "name")) ?? serverId
    }
    return { state, server }
  })

const deletePlan = (kind: string, params: Params) =>
  Effect.gen(function* () {
    // A user is named under `user` (SVC_REACH=all), every other kind under `id` (a variable: `name`).
    const target = text(params.id) ?? text(params.name) ?? text(params.user) ?? ""
    const of = Kinds.kindOf(kind)
    const get = of?.get ?? of?.find
    const record = yield* Effect.either(
      Effect.gen(function* () {
        if (get === undefined) return yield* Effect.fail(`no read of a ${kind} is known`)
        const found = yield* read("read", get.endpoint, { [get.key]: target })
        const name =
          text(field(found, "name")) ??
          [text(field(found, "username")), text(field(found, "domain"))].filter((p) => p !== undefined).join("@")
        if (kind !== "stack" && kind !== "deployment") return { name: name === "" ? target : name }
        const id = text(field(field(found, "_id"), "$oid")) ?? text(field(found, "id")) ?? target
        const where = yield* placement(kind, id, name)
        return {
          name,
          ...(where.server === undefined ? {} : { server: where.server }),
          ...(where.state === undefined ? {} : { state: where.state }),
        }
      }),
    )
    return { _tag: "Delete", kind, target, record } satisfies DeletePlan
  })

const batchPlan = (endpoint: string, params: Params, names: Option.Option<NamesShape>) =>
  Effect.gen(function* () {
    // The kind it runs on, as the table of kinds says (Kinds/Kinds.ts `batches`).
    const of = Kinds.batchOf(endpoint) ?? Kinds.KINDS.stack
    const kind = of.names
    const pattern = typeof params.pattern === "string" ? params.pattern : ""
    const tags = Array.isArray(params.tags) ? params.tags.filter((t): t is string => typeof t === "string") : []
    // A tag given by id is shown by its name, as the question shows ids everywhere.
    const tagNames = tags.length === 0 || Option.isNone(names) ? undefined : (yield* names.value.lookup(["tag"])).tag
    const shownTags = tags.map((t) => tagNames?.get(t) ?? t)
    const matches = yield* Effect.either(
      Effect.gen(function* () {
        // The service's own tag rule (every tag, by name or id) through its list query; limit 0 is every page.
        const query = tags.length === 0 ? {} : { query: { tags } }
        const items = yield* read("read", of.list, { ...query, limit: 0 })
        const names = (Array.isArray(items) ? items.map((i) => text(field(i, "name"))) : []).filter(
          (n): n is string => n !== undefined,
        )
        // Read off the event loop, within its budget. A pattern past a limit, or one its engine refuses,
        // was refused before any question (Tools/Params/BatchPattern.ts): what is left here is the budget.
        const selected = yield* NamePattern.select(pattern, names)
        if (selected._tag === "Refused") return yield* Effect.fail(NamePattern.said(selected))
        return selected.matched.flatMap((i) => names[i] ?? [])
      }),
    )
    // The question names a few; the rest it counts.
    const listed = Either.map(matches, (names) => names.slice(0, LISTED))
    const more = Either.match(matches, { onLeft: () => 0, onRight: (names) => Math.max(0, names.length - LISTED) })
    return { _tag: "Batch", endpoint, kind, pattern, tags: shownTags, matches: listed, more } satisfies BatchPlan
  })

const syncPlan = (params: Params) =>
  Effect.gen(function* () {
    const sync = text(params.sync) ?? ""
    const changes = yield* Effect.either(
      Effect.flatMap(read("read", "GetResourceSync", { sync }), (record) =>
        syncChanges(field(record, "info"), (type, id) =>
          read("read", `Get${type}`, { id }).pipe(Effect.map((r) => text(field(r, "name")))),
        ),
      ),
    )
    const type = text(params.resource_type)
    const resources = Array.isArray(params.resources)
      ? params.resources.filter((r): r is string => typeof r === "string")
      : []
    const only = type === undefined ? undefined : { type, resources }
    return { _tag: "Sync", sync, only, changes } satisfies SyncPlan
  })

/** A delete: the record it removes, by the selector's kind (its referrers are References.ts'). */
export const DELETED_RECORD: Preview = { plan: ({ invocation }) => deletePlan(invocation.selector, invocation.body) }

/** A batch: the names its pattern (and tags) match now, each tag given by id shown by its name. */
export const BATCH: Preview = {
  plan: ({ invocation, names }) =>
    batchPlan(invocation.endpoint.slice(invocation.endpoint.indexOf("/") + 1), invocation.body, names ?? Option.none()),
}

/** A sync's run: the changes it applies, as of its last refresh. */
export const SYNC: Preview = { plan: ({ invocation }) => syncPlan(invocation.body) }
