/**
 * One record at a glance: what svc_get and svc_inspect answer without
 * `fields`, in place of the service's whole record. A record of a type in
 * RecordViews.ts is shown as one object of its labels, each the value at its
 * path, ids as names (Names.ts), a field the record leaves empty left out; a
 * type whose glance is not a set of fields has a function of its own here
 * (`OWN`). The first line says it is a glance and how to see the whole record,
 * which `fields: ["*"]` gives as the service sent it.
 */
import { isObject } from "../Shared/JsonShape.js"
import * as Tables from "./Catalog/Tables.js"
import type { Shows } from "./Catalog/Tool.js"
import * as Glance from "./Lists/Glance.js"
import type { NameKind, NameMaps } from "./Names/Names.js"
import * as Answers from "./Records/Answers.js"
import * as Execution from "./Records/Execution.js"
import { QUESTIONS } from "./Records/Questions.js"
import type { Glimpse } from "./Records/Records.js"
import { RECORD_VIEWS, type RecordView } from "./Records/RecordViews.js"
import * as StackDrift from "./Records/StackDrift.js"
import * as SyncPlan from "./Sync/SyncPlan.js"

type Json = Readonly<Record<string, unknown>>

/** How one endpoint's record is shown at a glance. */
export interface RecordGlance {
  /** The record at a glance; undefined where the answer is not one to glance at (it is then shown whole). */
  readonly glance: (record: Json, names: NameMaps, body: Json, listed?: Json) => Glimpse | undefined
  /** The kinds of names the glance of `record` shows, read before it is made. */
  readonly kinds: (record: Json, body: Json) => ReadonlyArray<NameKind>
  /** Each label's record paths: what `fields` takes a label for, and `schema: true` lists. */
  readonly byLabel?: ReadonlyMap<string, ReadonlyArray<string>>
  /**
   * The fewest characters any glance of it is written in (its first line and an empty object),
   * where that is known: a record the service sent in no more is shown whole, and no glance of it
   * (nor the names it would show) is made.
   */
  readonly floor?: number
}

/** A name in the first line: a long one clipped, as the fences' first line clips what the call named. */
const clip = (text: string): string => (text.length > 60 ? `${text.slice(0, 57)}...` : text)

/** A cell the record leaves empty: absent, null, an empty text (the service's "not set") or list. */
const isEmpty = (cell: unknown): boolean => cell === null || cell === "" || (Array.isArray(cell) && cell.length === 0)

/**
 * Each label's record paths: the view's, and those of the questions of `endpoint` (Questions.ts)
 * that read the record, `fields` their own where they say so (a stack's `files` reads its contents too).
 */
const labelsOf = (compiled: Glance.Compiled, endpoint: string): ReadonlyMap<string, ReadonlyArray<string>> => {
  const byLabel = new Map(compiled.byLabel)
  for (const question of QUESTIONS[endpoint]?.questions ?? []) {
    if (question.from !== undefined) continue
    if (question.fields !== undefined) byLabel.set(question.label, question.fields)
    else if (question.reads !== undefined) byLabel.set(question.label, question.paths)
  }
  return byLabel
}

/**
 * The glance of a record of `view`'s type, the record of `endpoint`: its labels and their values,
 * then the answers its questions read of their own (Questions.ts), a state from its list item
 * (`listed`) beside its name; and a first line naming it and saying how to see the whole record
 * (`via`: the call that takes `fields`, where this one does not).
 */
const fromView = (view: RecordView, endpoint: string, via = ""): RecordGlance => {
  const compiled = Glance.compile(view)
  const { more: pointer, quiet = [] } = QUESTIONS[endpoint] ?? {}
  const example = view.more === undefined ? "" : `, or e.g. ${JSON.stringify([view.more])}`
  const after = `at a glance; ${via}fields: ["*"] for all${pointer === undefined ? example : `, or ${pointer}`}]\n`
  return {
    floor: `[svc-mcp: ${view.noun} ${after}{}`.length,
    glance: (record, names, _body, listed) => {
      const row = compiled.row(record, names)
      const value: Record<string, unknown> = {}
      compiled.labels.forEach((label, i) => {
        if (!isEmpty(row[i]) && !(row[i] === false && quiet.includes(label))) value[label] = row[i]
      })
      // An answer that holds none of the labels' fields is not such a record: it is shown whole.
      if (Object.keys(value).length === 0) return undefined
      // The record's name, where its first label is one: "stack web", "container /web-web-1".
      const name = typeof row[0] === "string" && row[0] !== "" ? ` ${clip(row[0])}` : ""
      const line = `[svc-mcp: ${view.noun}${name} ${after}`
      return { value: withAnswers(value, Answers.answersOf(endpoint, record, names, listed)), untrusted: [], line }
    },
    kinds: (record) => [...Glance.kindsFor(compiled, [record]), ...Answers.kindsOf(endpoint, record)],
    byLabel: labelsOf(compiled, endpoint),
  }
}

/** The glance's labels with the answers added: a state after the name and id, the rest in place of a label's or after. */
const withAnswers = (
  value: Readonly<Record<string, unknown>>,
  answers: ReadonlyArray<readonly [string, unknown]>,
): Readonly<Record<string, unknown>> => {
  if (answers.length === 0) return value
  const state = answers.filter(([label]) => label === "state")
  const others = new Map(answers.filter(([label]) => label !== "state"))
  const kept = Object.entries(value).map(
    ([label, cell]) => [label, others.has(label) ? others.get(label) : cell] as const,
  )
  const lead = kept.findIndex(([label]) => label !== "name" && label !== "id")
  const at = lead === -1 ? kept.length : lead
  const added = [...others].filter(([label]) => !Object.hasOwn(value, label))
  return Object.fromEntries([...kept.slice(0, at), ...state, ...kept.slice(at), ...added])
}

const UPDATE_LINE = ' at a glance; fields: ["*"] for the whole record, or paths such as ["logs"]]\n'

/** An Update (SVC_REACH=all's `update`) as an execution's result at a glance (Execution.ts), with a first line. */
const UPDATE: RecordGlance = {
  glance: (record, names) => {
    if (!Execution.isExecution(record)) return undefined
    const glimpse = Execution.glance(record, names, undefined)
    const value = glimpse.value as Json
    const id = typeof value.update === "string" ? ` ${value.update}` : ""
    return { ...glimpse, line: `[svc-mcp: update${id}${UPDATE_LINE}` }
  },
  kinds: (record, body) => Execution.kindsFor(record, body),
  floor: `[svc-mcp: update${UPDATE_LINE}{}`.length,
}

/** A sync: the plan of its pending changes (SyncPlan.ts). */
const SYNC: RecordGlance = {
  glance: (record, names) => (isObject(record.info) ? SyncPlan.glance(record, names) : undefined),
  kinds: (record) => SyncPlan.kindsFor(record),
}

/**
 * The glances that are not a record's fields, by endpoint: a function each,
 * whichever tool reaches the endpoint (a refresh of a sync's pending changes is
 * svc_execute's, and answers the sync). An endpoint in neither table is answered whole.
 */
const OWN: Readonly<Record<string, RecordGlance>> = {
  "read/GetUpdate": UPDATE,
  "read/GetResourceSync": SYNC,
  "write/RefreshResourceSyncPending": SYNC,
}

/** A stack's glance, with its drift from its repository where it has any (StackDrift.ts). */
const withDrift = (base: RecordGlance): RecordGlance => ({
  ...base,
  glance: (record, names, body, listed) => {
    const glimpse = base.glance(record, names, body, listed)
    const drift = glimpse === undefined ? undefined : StackDrift.of(record)
    return glimpse === undefined || drift === undefined
      ? glimpse
      : {
          ...glimpse,
          value: { ...(glimpse.value as Json), drift },
          untrusted: [...glimpse.untrusted, ...StackDrift.UNTRUSTED],
        }
  },
})

const GLANCES: ReadonlyMap<string, RecordGlance> = new Map([
  ...Object.entries(RECORD_VIEWS).map(
    ([endpoint, view]) =>
      [
        endpoint,
        endpoint === "read/GetStack" ? withDrift(fromView(view, endpoint)) : fromView(view, endpoint),
      ] as const,
  ),
  ...Object.entries(OWN),
])

/**
 * svc_update's changes that answer the changed resource (`write/UpdateDeployment`): shown at the
 * glance svc_get shows it at, names for ids; the whole record is svc_get's, as svc_update takes no `fields`.
 */
const CHANGED: ReadonlyMap<string, RecordGlance> = new Map(
  Object.entries(Tables.update).flatMap(([type, endpoint]) => {
    const get = `read/${(Tables.get as Readonly<Record<string, string>>)[type]}`
    const view = RECORD_VIEWS[get]
    // A type whose glance is its own (a sync's plan) is shown at that glance.
    const glance = view === undefined ? OWN[get] : fromView(view, get, "svc_get with ")
    return glance === undefined ? [] : [[`write/${endpoint}`, glance] as const]
  }),
)

/** How the answer from `endpoint` of a tool that `shows` so is shown at a glance, if it is. */
export const of = (shows: Shows | undefined, endpoint: string): RecordGlance | undefined =>
  shows?.record === true
    ? GLANCES.get(endpoint)
    : ((shows?.changed === true ? CHANGED.get(endpoint) : undefined) ?? OWN[endpoint])

/** Whether a glance could be shorter than the record as the service sent it (`sent` characters, if known). */
export const worth = (glance: RecordGlance, sent: number | undefined): boolean =>
  sent === undefined || glance.floor === undefined || sent > glance.floor

/**
 * `answer` at a glance, where `tool`'s answers from `endpoint` are glanced at, it is a record,
 * and the service sent it in more than the glance's floor (`sent` characters, if known).
 */
export const glanceOf = (
  shows: Shows | undefined,
  endpoint: string,
  answer: unknown,
  names: NameMaps,
  body: Json,
  sent?: number,
): Glimpse | undefined => {
  const glance = of(shows, endpoint)
  return glance === undefined || !isObject(answer) || !worth(glance, sent)
    ? undefined
    : glance.glance(answer, names, body)
}
