/**
 * What refers to a resource a delete removes, for its question: each procedure whose stages run
 * something on it (by its id or its name), each action whose script or arguments name it as a
 * string, each alerter whose targets name it, each sync whose pending changes touch it, read just
 * before asking from their full records; and what it carries:
 * a stack's services, their containers going with it. Bounded: the first LISTED named, the rest
 * counted; what cannot be read is said so, and the question is asked all the same.
 */
import * as Effect from "effect/Effect"
import * as Kinds from "../Kinds/Kinds.js"
import { oneLine, quote } from "../Shared/Quote.js"
import { SvcClient } from "../SvcClient.js"
import type { Preview } from "./PlanShape.js"

/** The kinds a procedure's stage may run something on, by the param that names them. */
const KINDS = ["stack", "deployment", "build", "repo", "procedure", "action", "server", "sync_resource"]

/** How many referring procedures the question names. */
const LISTED = 10

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
const array = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/** The stages of `procedure` that name the resource (`key`, one of `names`), by stage name. */
const stagesNaming = (procedure: unknown, key: string, names: ReadonlySet<string>) =>
  array(field(field(procedure, "config"), "stages")).flatMap((stage) =>
    array(field(stage, "executions")).some((entry) => {
      const value = text(field(field(field(entry, "execution"), "params"), key))
      return value !== undefined && names.has(value)
    })
      ? [text(field(stage, "name")) ?? "a stage"]
      : [],
  )

/** Whether a ResourceTarget names the resource: its type, and its id or name. */
const targets = (target: unknown, type: string, names: ReadonlySet<string>) => {
  const id = text(field(target, "id"))
  return field(target, "type") === type && id !== undefined && names.has(id)
}

const named = (record: unknown) => quote(text(field(record, "name")) ?? "")

/** Each alerter whose targets name it, or that names it among those it leaves out. */
const alerters = (list: unknown, type: string, names: ReadonlySet<string>) =>
  array(list).flatMap((alerter) => {
    const config = field(alerter, "config")
    if (array(field(config, "resources")).some((t) => targets(t, type, names)))
      return [`the alerter ${named(alerter)} (its targets)`]
    return array(field(config, "except_resources")).some((t) => targets(t, type, names))
      ? [`the alerter ${named(alerter)} (it leaves it out)`]
      : []
  })

/** The quotes a script's string may stand in: an action's script is TypeScript. */
const QUOTES = ["'", '"', "`"]

/**
 * Each action whose script (`file_contents`) or arguments hold its id or name as a whole string,
 * as `{ server: 'prod-01' }` does: run, it would act on what is gone. An action's config holds no
 * field naming a resource; its script is where it names one.
 */
const actions = (list: unknown, names: ReadonlySet<string>) =>
  array(list).flatMap((action) => {
    const config = field(action, "config")
    const texts = [text(field(config, "file_contents")), text(field(config, "arguments"))]
    const quoted = [...names].flatMap((name) => QUOTES.map((q) => `${q}${name}${q}`))
    return texts.some((t) => t !== undefined && quoted.some((q) => t.includes(q)))
      ? [`the action ${named(action)} (its script names it)`]
      : []
  })

/** Each sync whose pending changes, or deploys, touch it: its next run would act on it. */
const syncs = (list: unknown, type: string, names: ReadonlySet<string>) =>
  array(list).flatMap((sync) => {
    const info = field(sync, "info")
    const updates = array(field(info, "resource_updates")).filter((u) => targets(field(u, "target"), type, names))
    const deploys = array(field(info, "pending_deploys")).some((d) => targets(field(d, "target"), type, names))
    if (updates.length === 0 && !deploys) return []
    const what = [
      ...updates.map((u) => String(field(field(u, "data"), "type") ?? "a change")),
      ...(deploys ? ["Deploy"] : []),
    ]
    return [`the sync ${named(sync)} (its pending ${what.map((w) => quote(w)).join(", ")})`]
  })

/** What a stack carries: its services, each with its container's state; they go with it. */
const carried = (services: unknown): ReadonlyArray<string> => {
  const all = array(services)
  if (all.length === 0) return []
  const each = all.slice(0, LISTED).map((s) => {
    const state = text(field(field(s, "container"), "state")) ?? text(field(s, "state"))
    return `${quote(String(field(s, "service") ?? ""))}${state === undefined ? "" : ` (${state})`}`
  })
  const more = all.length > LISTED ? `, and ${all.length - LISTED} more` : ""
  return [`Its services go with it, their containers removed: ${each.join(", ")}${more}.`]
}

/** The lines a delete's question says of what refers to it; none for a kind a procedure cannot name. */
const make = (
  kind: string,
  body: Readonly<Record<string, unknown>>,
): Effect.Effect<ReadonlyArray<string>, never, SvcClient> => {
  const given = text(body.id)
  // Its get's key is the param a stage names it by too (`sync` for a sync); its type, a target's.
  const of = KINDS.includes(kind) ? Kinds.kindOf(kind) : undefined
  if (of?.get === undefined || given === undefined) return Effect.succeed([])
  const { endpoint: get, key } = of.get
  const type = of.type ?? ""
  return Effect.gen(function* () {
    const client = yield* SvcClient
    const record = yield* Effect.either(client.call("read", get, { [key]: given }))
    const names = new Set([given])
    if (record._tag === "Right") {
      for (const name of [text(field(record.right, "name")), text(field(field(record.right, "_id"), "$oid"))]) {
        if (name !== undefined) names.add(name)
      }
    }
    const procedures = yield* client.call("read", "ListFullProcedures", {})
    const referring = [
      ...array(procedures).flatMap((procedure) => {
        const stages = stagesNaming(procedure, key, names)
        return stages.length === 0
          ? []
          : [`the procedure ${named(procedure)} (its stage ${stages.map((s) => quote(s)).join(", ")})`]
      }),
      ...actions(yield* client.call("read", "ListFullActions", {}), names),
      ...alerters(yield* client.call("read", "ListFullAlerters", {}), type, names),
      ...syncs(yield* client.call("read", "ListFullResourceSyncs", {}), type, names),
    ]
    // A stack that could not be read has no services to say; one whose services cannot be read says so.
    const listed =
      kind === "stack" && record._tag === "Right"
        ? yield* Effect.either(client.call("read", "ListStackServices", { stack: given }))
        : undefined
    const services =
      listed === undefined
        ? []
        : listed._tag === "Right"
          ? carried(listed.right)
          : [`Its services could not be read (${oneLine(listed.left.message)}).`]
    if (referring.length === 0) return [`No procedure's stage, action, alerter or sync refers to it.`, ...services]
    return [
      `Referring to it, which would fail once it is gone: ${referring.slice(0, LISTED).join("; ")}${referring.length > LISTED ? `; and ${referring.length - LISTED} more` : ""}.`,
      ...services,
    ]
  }).pipe(
    Effect.catchAll((error) => Effect.succeed([`What refers to it could not be read (${oneLine(error.message)}).`])),
  )
}

/** After a delete's plan (Plan.ts), what refers to what it deletes, and what goes with it. */
export const REFERRERS: NonNullable<Preview["lines"]> = ({ invocation }) => make(invocation.selector, invocation.body)
