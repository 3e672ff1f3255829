/**
 * What a confirmation question shows: what the call will do, read from the
 * service just before asking. A delete names the record it removes, a batch
 * the names its pattern matches now, a sync run the changes it applies. A read
 * that fails is said in the plan, never guessed around.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Kinds from "../Kinds/Kinds.js"
import * as NamePattern from "../Shared/NamePattern.js"
import type { PatternReader } from "../Shared/PatternReader.js"
import type { SvcClient } from "../SvcClient.js"
import * as Tables from "../Tools/Catalog/Tables.js"
import type { NamesShape } from "../Tools/Names/Names.js"
import { syncChanges } from "../Tools/Sync/SyncChanges.js"
import { accessPlan, hasAccessPlan } from "./AccessPlan.js"
import { field, read, text } from "./PlanRead.js"
import type { BatchPlan, DeletePlan, Plan, Planned, SyncPlan } from "./PlanShape.js"
import { render } from "./PlanText.js"
import { filePlan, isFileWrite, metaPlan } from "./ResourcePlan.js"

export type { BatchPlan, Planned } from "./PlanShape.js"

/** The kind each batch endpoint runs on. */
const BATCH_KINDS: Readonly<Record<string, Kinds.KindName>> = {
  BatchRunBuild: "build",
  BatchDeployStack: "stack",
  BatchDeployStackIfChanged: "stack",
  BatchPullStack: "stack",
  BatchDestroyStack: "stack",
  BatchDeploy: "deployment",
  BatchDestroyDeployment: "deployment",
  BatchPullRepo: "repo",
  BatchBuildRepo: "repo",
  BatchCloneRepo: "repo",
  BatchRunProcedure: "procedure",
  BatchRunAction: "action",
}

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
    const kind = BATCH_KINDS[endpoint] ?? "stack"
    const pattern = typeof params.pattern === "string" ? params.pattern : ""
    const tags = Array.isArray(params.tags) ? params.tags.filter((t): t is string => typeof t === "string") : []
    // A tag given by id is shown by its name, as the question shows ids everywhere.
    const tagNames = tags.length === 0 || Option.isNone(names) ? undefined : (yield* names.value.lookup(["tag"])).tag
    const shownTags = tags.map((t) => tagNames?.get(t) ?? t)
    const matches = yield* Effect.either(
      Effect.gen(function* () {
        // The service's own tag rule (every tag, by name or id) through its list query; limit 0 is every page.
        const query = tags.length === 0 ? {} : { query: { tags } }
        const items = yield* read("read", Kinds.KINDS[kind].list, { ...query, limit: 0 })
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

/**
 * The plan of a call the user is asked to confirm, where there is one to show:
 * svc_delete, svc_execute's batch operations and run_sync; with SVC_REACH=all a
 * resource's meta, a file write, and who gets what (AccessPlan.ts). `params`
 * are the call's params as they will be sent; `names` shows tags given by id by
 * their names. Another update's question shows its changes (Question.ts).
 */
export const make = (
  tool: string,
  selector: string,
  params: Params,
  names: Option.Option<NamesShape> = Option.none(),
  revealSecrets = false,
): Effect.Effect<Option.Option<Planned>, never, SvcClient | PatternReader> => {
  const planned = (plan: Effect.Effect<Plan, never, SvcClient | PatternReader>) =>
    Effect.map(plan, (p) => Option.some({ plan: p, text: render(p) }))
  if (hasAccessPlan(tool, selector)) return planned(accessPlan(tool, selector, params))
  if (tool === "svc_update" && selector === "resource_meta") return planned(metaPlan(params))
  if (tool === "svc_update" && isFileWrite(selector)) return planned(filePlan(selector, params, revealSecrets))
  if (tool === "svc_delete") return planned(deletePlan(selector, params))
  if (tool === "svc_execute") {
    const endpoint = Tables.execute[selector as keyof typeof Tables.execute] as string | undefined
    if (endpoint !== undefined && endpoint in BATCH_KINDS) return planned(batchPlan(endpoint, params, names))
    if (selector === "run_sync") return planned(syncPlan(params))
  }
  return Effect.succeed(Option.none())
}
