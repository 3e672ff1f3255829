/**
 * How a tool's outcome is shown: text for the assistant, and for failures the
 * same facts as a structured object a program can read.
 */

import { isObject } from "../Shared/JsonShape.js"
import * as Untrusted from "../Untrusted/Answer.js"
import { type Fitted, fitInBudget, mayHoldSecrets, note, pageNote, redact } from "./Bounds/AnswerBounds.js"
import { shape } from "./Catalog/Fields.js"
import type { Tool } from "./Catalog/Tool.js"
import * as Hints from "./Hints.js"
import type { ToolSuccess } from "./Invoke.js"
import * as Glance from "./Lists/Glance.js"
import * as About from "./Records/About.js"
import * as Execution from "./Records/Execution.js"
import { readsBeside } from "./Records/ReadsBeside.js"
import type { Glimpse } from "./Records/Records.js"
import * as StackDrift from "./Records/StackDrift.js"
import type { Rendered } from "./Rendered.js"
import * as TomlSecrets from "./Sync/TomlSecrets.js"
import type * as View from "./View.js"

export type { ErrorKind } from "./Catalog/ToolError.js"
export { failure, unrecorded } from "./Failure.js"
export type { Rendered, StructuredError } from "./Rendered.js"

/** What the budget kept of an answer, as structuredContent holds it: a cut list's whole items shown, else only that it was cut. */
const shownOf = (data: unknown, fitted: Fitted): Readonly<Record<string, unknown>> =>
  Array.isArray(data) && fitted.items !== undefined
    ? { result: data.slice(0, fitted.items), truncated: true }
    : { truncated: true }

/** The note a non-list cut ends with, after which nothing of the answer follows. */
const CUT_NOTE = "\n[svc-mcp: output cut"

export interface OutputSettings extends Hints.Offering {
  readonly maxOutputChars: number
  readonly revealSecrets: boolean
}

/** The service's answer made ready to show: credentials redacted, untrusted text capped and masked. */
interface Prepared {
  readonly shown: unknown
  /** The service's own text, where nothing in it is to be hidden: it is compact JSON already. */
  readonly asSent: string | undefined
  /** The cap's note, when it cut the service's answer. */
  readonly cap: string
}

const prepare = (outcome: ToolSuccess, settings: OutputSettings): Prepared => {
  const { text, endpoint } = outcome
  // An answer that can carry untrusted text is always written anew: its values are fenced.
  const untrusted = Untrusted.carries(endpoint)
  const asSent = !untrusted && text !== undefined && (settings.revealSecrets || !mayHoldSecrets(text))
  const redacted = asSent || settings.revealSecrets ? outcome.data : redact(outcome.data)
  // Untrusted text is cut to a bound before it is masked and fenced, whatever the service sent.
  const bounded = untrusted
    ? Untrusted.capped(endpoint, redacted, settings.maxOutputChars * Untrusted.CAP_TIMES)
    : undefined
  const kept = bounded === undefined ? redacted : bounded.data
  return {
    shown:
      untrusted && !settings.revealSecrets
        ? Untrusted.masked(endpoint, TomlSecrets.hidePlans(kept, outcome.names?.variable), TomlSecrets.hidden)
        : kept,
    asSent: asSent ? text : undefined,
    cap: capNote(bounded),
  }
}

/**
 * An answer as its view shows it (View.ts), chosen once: a list's rows, a record or an execution
 * at a glance, the paths `fields` kept, or the answer whole.
 */
/** What an answer cut at the byte cap ends with: where, and how to ask for less. */
const cutNote = (tool: Tool, cut: number) =>
  note(
    `the service's answer passed ${cut} bytes (SVC_MAX_ANSWER_BYTES) and was cut there: shown is what arrived of it (a list's last item, or a text's last line, may be incomplete); narrow the request: ${tool.narrow}`,
  )

/** A success's text and structured answer; one cut at the byte cap says so in both, within the budget. */
export const success = (tool: Tool, outcome: ToolSuccess, settings: OutputSettings): Rendered => {
  if (outcome.cut === undefined) return successOf(tool, outcome, settings)
  const said = cutNote(tool, outcome.cut)
  const rendered = successOf(tool, outcome, { ...settings, maxOutputChars: settings.maxOutputChars - said.length })
  const structuredData = { ...rendered.structuredData, truncated: true, cut_at_bytes: outcome.cut }
  return { ...rendered, text: `${rendered.text}${said}`, structuredData }
}

const successOf = (tool: Tool, outcome: ToolSuccess, settings: OutputSettings): Rendered => {
  // Chosen once by the tools' program (View.ts): written as given, never chosen again here.
  const { view } = outcome
  // Rows read only their columns from the records as they came, redacted cell by cell: the whole
  // answer is neither scanned for secrets nor copied to redact it.
  if (view._tag === "Rows" && !Untrusted.carries(outcome.endpoint))
    return atGlance(tool, outcome, settings, view.projection, Glance.itemsOf(view.projection, outcome.data) ?? [])
  const prepared = prepare(outcome, settings)
  const { shown, cap } = prepared
  switch (view._tag) {
    case "Rows": {
      // A list whose columns held untrusted text is shown as records of its columns' paths, fenced
      // (none does: a test holds the table to it).
      const { projection } = view
      const columns = shape(shown, projection.paths).value
      if (Untrusted.fences(outcome.endpoint, columns, outcome.body) === undefined)
        return atGlance(tool, outcome, settings, projection, Glance.itemsOf(projection, shown) ?? [])
      return written(tool, outcome, settings, shaped(outcome, shown, projection.paths, cap))
    }
    case "Record":
    case "Execution":
    case "Named": {
      const record = recordOf(view, outcome, shown)
      if (record === undefined) return written(tool, outcome, settings, whole(outcome, prepared))
      const fences = Untrusted.fencesWith(record.untrusted, record.value, outcome.body, outcome.endpoint)
      const sent = fences === undefined ? record.json : undefined
      // A step the record points to, unless this call is it: as this caller is offered it.
      const { next } = record
      const step =
        next === undefined || (next.tool === tool.name && next.selector === outcome.selector)
          ? ""
          : Hints.stepLine(next, settings)
      const line = `${record.line ?? ""}${step}`
      return written(tool, outcome, settings, { data: record.value, fences, line, sent, cap })
    }
    case "Shaped":
      return written(tool, outcome, settings, shaped(outcome, shown, view.fields, cap))
    case "Whole":
      return written(tool, outcome, settings, whole(outcome, prepared))
  }
}

/** The answer whole, its untrusted text fenced; the service's own text where nothing in it is hidden. */
const whole = (outcome: ToolSuccess, { shown, asSent, cap }: Prepared): Shown => {
  const fences = Untrusted.carries(outcome.endpoint)
    ? Untrusted.fences(outcome.endpoint, shown, outcome.body)
    : undefined
  return { data: shown, fences, line: "", sent: asSent, cap }
}

/**
 * The paths `fields` kept, with the names of the ids kept beside them: shaped after redaction, so
 * that a kept path shows only what the whole answer would; and before the budget, so that a shaped
 * list fits where the whole one was cut.
 */
const shaped = (outcome: ToolSuccess, shown: unknown, fields: ReadonlyArray<string>, cap: string): Shown => {
  const kept = shape(shown, fields)
  const data = outcome.names === undefined ? kept.value : Glance.withNames(kept.value, outcome.names)
  // A stack's drift, made beside its record when `fields` asked for it, holds the repository's text too.
  const also = readsBeside(outcome.endpoint).drift && StackDrift.asks(fields) ? StackDrift.UNTRUSTED_ASKED : []
  const fences = Untrusted.carries(outcome.endpoint)
    ? Untrusted.fencesAlso(outcome.endpoint, also, data, outcome.body)
    : undefined
  return { data, fences, line: "", note: kept.note, cap }
}

/** What an answer shows, before it is written: its value, its fences, a first line of its own. */
interface Shown {
  readonly data: unknown
  readonly fences: Untrusted.Fenced | undefined
  readonly line: string
  /** `data`'s JSON, where it is made already: the service's own text, or a glance's, measured against it. */
  readonly sent?: string | undefined
  readonly note?: string | undefined
  /** The cap's note, when it cut the service's answer. */
  readonly cap: string
}

/** An answer written: its fences' first line, its own, the summary, the JSON within the budget, the notes. */
const written = (tool: Tool, outcome: ToolSuccess, settings: OutputSettings, shown: Shown): Rendered => {
  const { data, fences, sent } = shown
  const written = fences === undefined ? data : fences.data
  // Compact JSON: an assistant reads it as well as indented JSON, at a third fewer tokens.
  const json = sent ?? JSON.stringify(written) ?? "null"
  const head = `${fences === undefined ? "" : fences.header}${shown.line}`
  const lead = outcome.summary === undefined ? "" : `${outcome.summary}\n`
  const notes = `${outcome.page === undefined ? "" : pageNote(data, outcome.page)}${shown.note === undefined ? "" : note(shown.note)}${pagesNote(tool, outcome)}${shown.cap}`
  const room = settings.maxOutputChars - lead.length - notes.length
  const cut = fitInBudget(
    written,
    json,
    room - head.length - (fences?.reserve ?? 0),
    tool.narrow,
    settings.maxOutputChars,
  )
  const fitted = fences === undefined || cut.text === json ? cut.text : closeFences(cut.text, fences)
  const structuredData = cut.text !== json ? shownOf(data, cut) : isObject(data) ? data : { result: data }
  const rendered: Rendered = { isError: false, text: `${head}${lead}${fitted}${notes}`, structuredData }
  if (fences === undefined) return rendered
  const paths =
    cut.text === json
      ? fences.paths(isObject(data) ? "" : "/result")
      : Array.isArray(data)
        ? fences.paths("/result", cut.items ?? 0)
        : []
  return { ...rendered, meta: Untrusted.metaOf(paths), untrusted: fences.read }
}

/** What the cap left out of the service's answer, when it cut it. */
const capNote = (bounded: Untrusted.Capped | undefined): string =>
  bounded?.cap === undefined
    ? ""
    : note(
        `the service's answer held ${bounded.total} characters of text from the infrastructure: only its first ${bounded.cap} were read (${Untrusted.CAP_TIMES} times the output budget)`,
      )

/**
 * A record at a glance: a resource or a Docker object (RecordGlance.ts), a sync's plan (SyncPlan.ts,
 * also for a refresh), an execution's result (Execution.ts). A glance no shorter than the record as
 * sent saves nothing: the record is then shown whole.
 */
const recordOf = (
  view: View.View,
  outcome: ToolSuccess,
  shown: unknown,
): (Glimpse & { readonly json?: string }) | undefined => {
  if (view._tag === "Named") return About.glance(view.about, shown, outcome.body, outcome.names ?? {})
  if (view._tag === "Execution")
    return Execution.isExecution(shown)
      ? Execution.glance(shown, outcome.names ?? {}, Execution.givenName(shown, outcome.body), outcome.listed)
      : undefined
  if (view._tag !== "Record" || !isObject(shown)) return undefined
  const glimpse = view.glance.glance(shown, outcome.names ?? {}, outcome.body, outcome.listed)
  const sent = outcome.text?.length
  if (glimpse === undefined || sent === undefined) return glimpse
  const json = JSON.stringify(glimpse.value)
  return `${glimpse.line ?? ""}${json}`.length < sent ? { ...glimpse, json } : undefined
}

/** Whether a row holds an object, at any depth below it: only such a cell can hold a credential's field. */
const holdsObject = (row: ReadonlyArray<unknown>): boolean => {
  for (const cell of row) {
    if (typeof cell !== "object" || cell === null) continue
    if (!Array.isArray(cell) || cell.some((item) => typeof item === "object" && item !== null)) return true
  }
  return false
}

/**
 * A list at a glance: its first line says what each row holds and how to see
 * more; then the rows, as JSON, cut between whole rows to fit the budget.
 */
const atGlance = (
  tool: Tool,
  outcome: ToolSuccess,
  settings: OutputSettings,
  projection: Glance.Compiled,
  items: ReadonlyArray<unknown>,
): Rendered => {
  const folded = Glance.rows(projection, items, outcome.names ?? {})
  const { columns, rows: read } = folded
  // The columns said once in the first line, said once here too.
  const once = {
    ...(folded.same === undefined ? {} : { same: folded.same }),
    ...(folded.steps === undefined ? {} : { steps: folded.steps }),
  }
  // No column reads a credential (a test holds the table to it); a cell that holds objects is redacted as the record would be.
  const rows =
    settings.revealSecrets || !read.some(holdsObject)
      ? read
      : read.map((row) => (holdsObject(row) ? (redact(row) as typeof row) : row))
  const head = `${Glance.headline(projection, items.length, items.length, folded)}\n`
  const lead = outcome.summary === undefined ? "" : `${outcome.summary}\n`
  const notes = `${outcome.page === undefined ? "" : pageNote(rows, outcome.page)}${pagesNote(tool, outcome)}`
  const json = JSON.stringify(rows)
  const whole = settings.maxOutputChars - head.length - lead.length - notes.length
  // Cut, the first line says how many rows it shows of how many: room for those few characters more.
  const room = json.length <= whole ? whole : whole - ` of ${items.length}`.length
  const fitted = fitInBudget(rows, json, room, tool.narrow, settings.maxOutputChars)
  if (fitted.text === json)
    return {
      isError: false,
      text: `${head}${lead}${fitted.text}${notes}`,
      structuredData: { columns, result: rows, ...once },
    }
  const shown = shownOf(rows, fitted)
  const line = `${Glance.headline(projection, items.length, (shown.result as ReadonlyArray<unknown>).length, folded)}\n`
  return {
    isError: false,
    text: `${line}${lead}${fitted.text}${notes}`,
    structuredData: { columns, ...shown, ...once },
  }
}

/**
 * What the answer says of its pages, however it is shown: its next page where it gives one
 * (`{alerts, next_page}`), or that a page asked for is past the last one.
 */
const pagesNote = (tool: Tool, outcome: ToolSuccess): string => {
  const projection = Glance.projectionOf(tool.shows, outcome.endpoint)
  const noun = projection?.projection.noun ?? "items"
  const answer = outcome.data
  if (isObject(answer) && typeof answer.next_page === "number")
    return note(`more ${noun}: params.page ${answer.next_page}`)
  const page = outcome.body.page
  const items =
    projection === undefined ? (Array.isArray(answer) ? answer : undefined) : Glance.itemsOf(projection, answer)
  return typeof page === "number" && page > 0 && items?.length === 0
    ? note(`no more ${noun}: params.page ${page} is past the last page`)
    : ""
}

/** A cut answer's fences made whole: a list is cut between whole items, anything else wherever the budget fell. */
const closeFences = (cut: string, fences: Untrusted.Fenced): string => {
  const at = cut.lastIndexOf(CUT_NOTE)
  return at < 0 ? cut : `${fences.closeCut(cut.slice(0, at))}${cut.slice(at)}`
}
