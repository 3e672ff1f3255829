/**
 * What `schema: true` answers of a selector, from the service's definitions (through the params
 * check): its params, its answer's type, the columns or labels `fields` takes, and what a
 * destructive execution removes; nothing is sent.
 */

import * as Tables from "./Catalog/Tables.js"
import type { Tool } from "./Catalog/Tool.js"
import { labelsOf } from "./FieldPaths.js"
import * as AnswerSchema from "./Params/AnswerSchema.js"
import type * as ParamsCheck from "./Params/ParamsCheck.js"

/**
 * A list's columns or a record's labels, for `schema: true`: `columns` as the answer's own (an array,
 * as the output schema says), and `paths`, the path each reads where it is not its name, which
 * `fields` takes the name for.
 */
const columnsOf = (tool: Tool, endpoint: string): Readonly<Record<string, unknown>> => {
  const byLabel = labelsOf(tool, endpoint)
  if (byLabel === undefined) return {}
  const paths = [...byLabel].flatMap(([label, read]) => (read[0] === label ? [] : [[label, read[0]] as const]))
  return { columns: [...byLabel.keys()], ...(paths.length === 0 ? {} : { paths: Object.fromEntries(paths) }) }
}

/** What an execution that loses data removes (Tables.ts), for `schema: true`. */
const removesOf = (tool: Tool, selector: string): Readonly<Record<string, string>> => {
  const removed =
    tool.name === "svc_execute" && Object.hasOwn(Tables.removes, selector)
      ? (Tables.removes as Record<string, string>)[selector]
      : undefined
  return removed === undefined ? {} : { removes: removed }
}

/** What `schema: true` answers: the selector's params, compact, from the service's definitions. */
export const of = (
  tool: Tool,
  invocation: { readonly selector: string; readonly endpoint: string },
  described: ParamsCheck.Described | undefined,
) => {
  return {
    tool: tool.name,
    [tool.selectorKey]: invocation.selector,
    endpoint: invocation.endpoint,
    params: described?.accepted ?? "unknown: the service's definitions are not installed",
    ...AnswerSchema.of(tool, described),
    ...columnsOf(tool, invocation.endpoint),
    ...removesOf(tool, invocation.selector),
    notation: "k?: optional; a|b: one of these keys; {...}: an object nested deeper",
    ...(described?.checked === false
      ? { note: "not in the service's published definitions: params are sent unchecked" }
      : {}),
    ...(tool.query === undefined ? {} : { query: "sent as params.terms = [query] unless params.terms is given" }),
    ...(tool.wait === undefined ? {} : { wait: "true: answer once the execution ends, with its outcome" }),
  }
}
