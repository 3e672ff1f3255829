/**
 * How one answer is shown: what the call asks (`ask`: Call/Shown.ts, resolved once with the call),
 * then, once per answer, the view of what came (`choose`), from what its tool shows (Tool.ts
 * `shows`): rows of a list, a record or an execution at a glance, the paths `fields` kept, or the
 * answer whole. The names an answer needs are read by its view (Invoke.ts), and Render.ts writes
 * each view as given; neither asks which tool it is, and Render chooses nothing.
 */
import * as Data from "effect/Data"
import * as Shown from "../Call/Shown.js"
import { isObject } from "../Shared/JsonShape.js"
import * as Fields from "./Catalog/Fields.js"
import type { Tool } from "./Catalog/Tool.js"
import { fieldsOf } from "./FieldPaths.js"
import * as Glance from "./Lists/Glance.js"
import type { NameKind } from "./Names/Names.js"
import * as RecordGlance from "./RecordGlance.js"
import * as About from "./Records/About.js"
import * as Execution from "./Records/Execution.js"
import * as TomlSecrets from "./Sync/TomlSecrets.js"

export type View = Data.TaggedEnum<{
  /** A list at a glance: each item a row of the projection's columns. */
  Rows: { readonly projection: Glance.Compiled }
  /** One record at a glance, by its table (RecordGlance.ts). */
  Record: { readonly glance: RecordGlance.RecordGlance }
  /** An execution's Update, or a batch of them, at a glance (Execution.ts). */
  Execution: Record<never, never>
  /** An answer that says what it is about by name (About.ts). */
  Named: { readonly about: About.About }
  /** The paths `fields` kept; `named`: with the names of the resources' ids they kept beside them. */
  Shaped: { readonly fields: ReadonlyArray<string>; readonly named: boolean }
  /** The answer whole: `fields: ["*"]`, `schema: true`, or an answer no view fits. */
  Whole: Record<never, never>
}>

export const View = Data.taggedEnum<View>()

/** The `fields` path that keeps the whole answer, as the service gave it. */
const WHOLE = "*"

/**
 * How `tool`'s answer to `selector` is to be shown, resolved once with the call (Call/Shown.ts): whole
 * for a schema answer or `fields: ["*"]`, the paths `fields` names (as FieldPaths.ts resolves them),
 * else at a glance. An empty `fields` is taken as absent, as a null is.
 */
export const ask = (
  tool: Tool,
  selector: string,
  schema: boolean,
  fields: ReadonlyArray<string> | undefined,
): Shown.Shown => {
  if (schema) return Shown.Shown.Whole({ because: Shown.SCHEMA })
  if (fields === undefined || fields.length === 0) return GLANCE
  if (fields.includes(WHOLE)) return Shown.Shown.Whole({ because: Shown.ALL_FIELDS })
  return Shown.Shown.Shaped({ fields: fieldsOf(tool, selector, fields) })
}

const GLANCE = Shown.Shown.Glance()

/** What a view is chosen from: the call as resolved (Invoke.ts's Invocation). */
interface Asked {
  readonly endpoint: string
  readonly shown: Shown.Shown
}

/**
 * The view of `data`, `tool`'s answer to `asked`, chosen once per answer, by the tools' program
 * (Invoke.ts): rendering reads it and chooses nothing. `text`, the service's text, measures whether
 * a record's glance is worth it.
 */
export const choose = (tool: Tool, asked: Asked, data: unknown, text?: string): View => {
  const { shown } = asked
  if (shown._tag === "Whole") return View.Whole()
  const projection = Glance.projectionOf(tool.shows, asked.endpoint)
  if (shown._tag === "Shaped") {
    // The resources' answers: ids elsewhere (a Docker object's) are not the service's resources.
    return View.Shaped({ fields: shown.fields, named: tool.shows?.names === true || projection !== undefined })
  }
  if (projection !== undefined && Glance.itemsOf(projection, data) !== undefined) return View.Rows({ projection })
  const glance = RecordGlance.of(tool.shows, asked.endpoint)
  if (glance !== undefined && isObject(data))
    // A record sent in fewer characters than any glance of it is shown whole.
    return RecordGlance.worth(glance, text?.length) ? View.Record({ glance }) : View.Whole()
  if (tool.shows?.execution === true && Execution.isExecution(data)) return View.Execution()
  const about = About.ABOUT[asked.endpoint]
  if (about !== undefined) return View.Named({ about })
  return View.Whole()
}

/**
 * The kinds of names `view` shows of `data`, an answer to a call with `body`: read before it is
 * written. Whatever the view, a sync's plan or files that may hold variables asks which the service
 * holds secret (TomlSecrets.ts).
 */
export const kindsOf = (
  view: View,
  data: unknown,
  body: Readonly<Record<string, unknown>>,
): ReadonlyArray<NameKind> => [...kindsShown(view, data, body), ...TomlSecrets.kindsFor(data)]

const kindsShown = (view: View, data: unknown, body: Readonly<Record<string, unknown>>): ReadonlyArray<NameKind> =>
  View.$match(view, {
    Rows: ({ projection }) => Glance.kindsFor(projection, Glance.itemsOf(projection, data) ?? []),
    Record: ({ glance }) => (isObject(data) ? glance.kinds(data, body) : []),
    Execution: () => Execution.kindsFor(data, body),
    Named: ({ about }) => About.kindsFor(about, data, body),
    Shaped: ({ fields, named }) => (named ? Glance.idKindsIn(Fields.shape(data, fields).value) : []),
    Whole: () => [],
  })

/** Whether the answer is followed to its end before it is shown: an execution's, or a rename's Update, unless whole or shaped. */
export const glancesAtExecution = (tool: Tool, asked: Asked): boolean =>
  tool.shows?.execution === true && asked.shown._tag === "Glance"
