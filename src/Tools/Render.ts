/**
 * How a tool's outcome is shown: text for the assistant, and for failures the
 * same facts as a structured object a program can read.
 */
import type { SvcError } from "../Service/Errors.js"
import { isObject } from "../Shared/JsonShape.js"
import * as Untrusted from "../Untrusted/Answer.js"
import { mayHoldSecrets, note, pageNote, redact, withinBudget } from "./AnswerBounds.js"
import * as Execution from "./Execution.js"
import { shape } from "./Fields.js"
import * as Glance from "./Glance.js"
import type { ToolSuccess } from "./Invoke.js"
import * as RecordGlance from "./RecordGlance.js"
import type { Glimpse } from "./Records.js"
import * as TomlSecrets from "./TomlSecrets.js"
import type { Tool } from "./Tool.js"
import { type ErrorKind, kindOf, type Problem, type ToolCallError, type ToolError } from "./ToolError.js"

export type { ErrorKind } from "./ToolError.js"

export interface StructuredError {
  readonly kind: ErrorKind
  readonly tool: string
  readonly message: string
  readonly selector?: string
  readonly endpoint?: string
  readonly status?: number
  readonly reason?: string
  readonly error?: string
  readonly trace?: ReadonlyArray<string>
  /** Strings for invalid_arguments; for invalid_params, each with the path of the field it is about. */
  readonly problems?: ReadonlyArray<string> | ReadonlyArray<Problem>
  /** invalid_params: the fields the endpoint takes, with their types. */
  readonly accepted?: string
  readonly retryAfter?: string
}

export interface Rendered {
  readonly isError: boolean
  readonly text: string
  readonly structured?: { readonly error: StructuredError }
  /**
   * A success's answer as an object, for clients that read structured results:
   * an answer that is not an object is wrapped as `{ result }`; when the output
   * budget cut the text, only the whole list items shown, and `truncated: true`.
   */
  readonly structuredData?: Readonly<Record<string, unknown>>
  /** The result's `_meta`: where the answer's untrusted values are (Untrusted/Answer.ts). */
  readonly meta?: Readonly<Record<string, unknown>>
  /** What untrusted text the answer carried, in words, for the guard: "the logs of stack web". */
  readonly untrusted?: string | undefined
}

/**
 * A cut list's text is its JSON (which holds no raw newline) and then the note: the items
 * it shows, as they are (the text's may be fenced).
 */
const shownOf = (data: unknown, fitted: string): Readonly<Record<string, unknown>> =>
  Array.isArray(data)
    ? {
        result: data.slice(0, (JSON.parse(fitted.slice(0, fitted.indexOf("\n"))) as Array<unknown>).length),
        truncated: true,
      }
    : { truncated: true }

/** The note a non-list cut ends with, after which nothing of the answer follows. */
const CUT_NOTE = "\n[svc-mcp: output cut"

export interface OutputSettings {
  readonly maxOutputChars: number
  readonly revealSecrets: boolean
}

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
  const { text, endpoint } = outcome
  // An answer that can carry untrusted text is always written anew: its values are fenced.
  const untrusted = Untrusted.carries(endpoint)
  const projection = glanceOf(tool, outcome)
  // Rows read only their columns from the records as they came, redacted cell by cell: the whole
  // answer is neither scanned for secrets nor copied to redact it.
  const plain = projection === undefined || untrusted ? undefined : Glance.itemsOf(projection, outcome.data)
  if (projection !== undefined && plain !== undefined) return atGlance(tool, outcome, settings, projection, plain)
  const asSent = !untrusted && text !== undefined && (settings.revealSecrets || !mayHoldSecrets(text))
  const redacted = asSent || settings.revealSecrets ? outcome.data : redact(outcome.data)
  // Untrusted text is cut to a bound before it is masked and fenced, whatever the service sent.
  const bounded = untrusted
    ? Untrusted.capped(endpoint, redacted, settings.maxOutputChars * Untrusted.CAP_TIMES)
    : undefined
  const kept = bounded === undefined ? redacted : bounded.data
  const shown = untrusted && !settings.revealSecrets ? Untrusted.masked(endpoint, kept, TomlSecrets.hidden) : kept
  // A list at a glance whose columns held untrusted text would be shown as records, fenced
  // (none does: a test holds the table to it).
  const fenced =
    projection !== undefined &&
    untrusted &&
    Untrusted.fences(endpoint, shape(shown, projection.paths).value, outcome.body) !== undefined
  // Every list with a projection is shown as rows, however short: one shape, names for ids, the way to more.
  const items = projection === undefined || fenced ? undefined : Glance.itemsOf(projection, shown)
  if (projection !== undefined && items !== undefined) return atGlance(tool, outcome, settings, projection, items)
  const record = projection === undefined ? recordOf(outcome, shown) : undefined
  if (record !== undefined) {
    const fences = Untrusted.fencesWith(record.untrusted, record.value, outcome.body, endpoint)
    return written(tool, outcome, settings, {
      data: record.value,
      fences,
      line: record.line ?? "",
      sent: fences === undefined ? record.json : undefined,
      cap: capNote(bounded),
    })
  }
  const fields = fenced && projection !== undefined ? projection.paths : outcome.fields
  // Shaped after redaction, so that a kept path shows only what the whole answer would;
  // and before the budget, so that a shaped list fits where the whole one was cut.
  const shaped = fields === undefined ? undefined : shape(shown, fields)
  const data =
    shaped === undefined
      ? shown
      : outcome.names === undefined
        ? shaped.value
        : Glance.withNames(shaped.value, outcome.names)
  const fences = untrusted ? Untrusted.fences(endpoint, data, outcome.body) : undefined
  // The service's own text when nothing in it is to be hidden: it is compact JSON already.
  const sent = shaped === undefined && asSent && text !== undefined ? text : undefined
  return written(tool, outcome, settings, { data, fences, line: "", sent, note: shaped?.note, cap: capNote(bounded) })
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
  const notes = `${outcome.page === undefined ? "" : pageNote(data, outcome.page)}${shown.note === undefined ? "" : note(shown.note)}${shown.cap}`
  const room = settings.maxOutputChars - lead.length - notes.length
  const cut = withinBudget(
    written,
    json,
    room - head.length - (fences?.reserve ?? 0),
    tool.narrow,
    settings.maxOutputChars,
  )
  const fitted = fences === undefined || cut === json ? cut : closeFences(cut, fences)
  const structuredData = fitted !== json ? shownOf(data, fitted) : isObject(data) ? data : { result: data }
  const rendered: Rendered = { isError: false, text: `${head}${lead}${fitted}${notes}`, structuredData }
  if (fences === undefined) return rendered
  const paths =
    fitted === json
      ? fences.paths(isObject(data) ? "" : "/result")
      : Array.isArray(data)
        ? fences.paths("/result", (structuredData.result as Array<unknown>).length)
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
 * A record at a glance, where the answer has one: an execution's result (Execution.ts), a
 * resource or a Docker object (RecordGlance.ts), a sync's plan (SyncPlan.ts, also for a refresh).
 */
const recordOf = (outcome: ToolSuccess, shown: unknown): (Glimpse & { readonly json?: string }) | undefined => {
  if (outcome.fields !== undefined || outcome.whole === true || outcome.schema) return undefined
  if (outcome.tool !== "svc_execute" || RecordGlance.of(outcome.tool, outcome.endpoint) !== undefined) {
    const sent = outcome.text?.length
    const glimpse = RecordGlance.glanceOf(
      outcome.tool,
      outcome.endpoint,
      shown,
      outcome.names ?? {},
      outcome.body,
      sent,
    )
    if (glimpse === undefined || sent === undefined) return glimpse
    // A glance of a record no longer than it (a small one) saves nothing: the record is shown whole.
    const json = JSON.stringify(glimpse.value)
    return `${glimpse.line ?? ""}${json}`.length < sent ? { ...glimpse, json } : undefined
  }
  if (!Execution.isExecution(shown)) return undefined
  return Execution.glance(shown, outcome.names ?? {}, Execution.givenName(shown, outcome.body))
}

/** The projection a list is shown by: without `fields`, when the table has one and the answer is a list. */
const glanceOf = (tool: Tool, outcome: ToolSuccess): Glance.Compiled | undefined => {
  if (outcome.fields !== undefined || outcome.whole === true) return undefined
  const projection = Glance.projectionOf(tool.name, outcome.endpoint)
  return projection !== undefined && Glance.itemsOf(projection, outcome.data) !== undefined ? projection : undefined
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
  const { columns, rows: read } = Glance.rows(projection, items, outcome.names ?? {})
  // No column reads a credential (a test holds the table to it); a cell that holds objects is redacted as the record would be.
  const rows =
    settings.revealSecrets || !read.some(holdsObject)
      ? read
      : read.map((row) => (holdsObject(row) ? (redact(row) as typeof row) : row))
  const head = `${Glance.headline(projection, items.length)}\n`
  const lead = outcome.summary === undefined ? "" : `${outcome.summary}\n`
  const notes = `${outcome.page === undefined ? "" : pageNote(rows, outcome.page)}${nextPage(projection, outcome.data)}`
  const json = JSON.stringify(rows)
  const whole = settings.maxOutputChars - head.length - lead.length - notes.length
  // Cut, the first line says how many rows it shows of how many: room for those few characters more.
  const room = json.length <= whole ? whole : whole - ` of ${items.length}`.length
  const fitted = withinBudget(rows, json, room, tool.narrow, settings.maxOutputChars)
  if (fitted === json)
    return { isError: false, text: `${head}${lead}${fitted}${notes}`, structuredData: { columns, result: rows } }
  const shown = shownOf(rows, fitted)
  const line = `${Glance.headline(projection, items.length, (shown.result as ReadonlyArray<unknown>).length)}\n`
  return { isError: false, text: `${line}${lead}${fitted}${notes}`, structuredData: { columns, ...shown } }
}

/** Where the answer holds its items in a field and says its next page (`{alerts, next_page}`), how to read it. */
const nextPage = (projection: Glance.Compiled, answer: unknown): string => {
  if (projection.projection.items === undefined || !isObject(answer)) return ""
  const next = answer.next_page
  return typeof next === "number" ? note(`more ${projection.projection.noun}: params.page ${next}`) : ""
}

/** A cut answer's fences made whole: a list is cut between whole items, anything else wherever the budget fell. */
const closeFences = (cut: string, fences: Untrusted.Fenced): string => {
  const at = cut.lastIndexOf(CUT_NOTE)
  return at < 0 ? cut : `${fences.closeCut(cut.slice(0, at))}${cut.slice(at)}`
}

const detailsOf = (error: SvcError): Partial<StructuredError> => {
  switch (error._tag) {
    case "SvcTimeoutError":
      return {}
    case "SvcUnreachableError":
      return { reason: error.reason }
    case "SvcServiceError":
      return {
        status: error.status,
        error: error.error,
        trace: error.trace,
        ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      }
    case "SvcResponseError":
      return { status: error.status }
    case "SvcAuthError":
      return error.status === undefined ? { reason: error.reason } : { reason: error.reason, status: error.status }
  }
}

const callFailure = (error: ToolCallError): Rendered => {
  const cause = error.error
  const structured: StructuredError = {
    kind: kindOf(error),
    tool: error.tool,
    selector: error.selector,
    endpoint: error.endpoint,
    message: error.message,
    ...detailsOf(cause),
  }
  const trace =
    structured.trace !== undefined && structured.trace.length > 0
      ? `\ntrace:\n${structured.trace.map((line) => `  - ${line}`).join("\n")}`
      : ""
  return { isError: true, text: `${error.message}${trace}`, structured: { error: structured } }
}

const refused = (text: string, structured: StructuredError): Rendered => ({
  isError: true,
  text,
  structured: { error: structured },
})

export const failure = (error: ToolError): Rendered => {
  switch (error._tag) {
    case "ToolInputError":
      return refused(`${error.message}. Nothing was sent.`, {
        kind: "invalid_arguments",
        tool: error.tool,
        message: error.message,
        problems: error.problems,
      })
    case "ToolParamsError":
      return refused(
        [
          `${error.tool} ${error.selectorKey} ${JSON.stringify(error.selector)} -> ${error.endpoint}: invalid params, nothing was sent:`,
          ...error.problems.map((p) => `- ${p.path}: ${p.message}`),
          `${error.endpoint} takes params ${error.accepted}`,
        ].join("\n"),
        {
          kind: "invalid_params",
          tool: error.tool,
          selector: error.selector,
          endpoint: error.endpoint,
          message: error.message,
          problems: error.problems,
          accepted: error.accepted,
        },
      )
    case "ToolDeniedError":
      return refused(error.message, {
        kind: "denied",
        tool: error.tool,
        message: error.message,
        reason: error.reason,
        ...(error.selector === undefined ? {} : { selector: error.selector }),
      })
    case "ToolNotConfirmedError":
      return refused(error.message, {
        kind: "not_confirmed",
        tool: error.tool,
        selector: error.selector,
        endpoint: error.endpoint,
        reason: error.reason,
        message: error.message,
      })
    case "ToolCallError":
      return callFailure(error)
    default:
      return absurd(error)
  }
}

/**
 * The result of a call whose audit line could not be written (`error` is the
 * audit log's error): a change whose intent could not be written was not sent,
 * and a refusal that could not be recorded is answered as refused.
 */
export const unrecorded = (error: { readonly message: string; readonly unsent?: boolean | undefined }): Rendered => ({
  isError: true,
  text:
    error.unsent === true
      ? `${error.message}. Nothing was sent to the service: this server writes down every change before it makes it. Tell the user the change was not made; it can be made once the audit log can be written again (the operator fixes it, then sends SIGHUP). Reads go on.`
      : `${error.message}. This server records every call it refuses; the call was refused, and nothing was sent.`,
})

/** Reached only if a kind of ToolError is not handled above: then `error` is not `never`, and this does not compile. */
const absurd = (error: never): never => {
  throw new Error(`unrendered tool error ${JSON.stringify(error)}`)
}
