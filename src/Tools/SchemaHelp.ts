/**
 * What `schema: true` answers of a selector, from the service's definitions (through the params
 * check): its params, its answer's type, the columns or labels `fields` takes, what a
 * destructive execution removes and what its question shows; nothing is sent.
 */

import * as Tables from "./Catalog/Tables.js"
import type { Tool } from "./Catalog/Tool.js"
import { labelsOf } from "./FieldPaths.js"
import * as AnswerSchema from "./Params/AnswerSchema.js"
import type * as ParamsCheck from "./Params/ParamsCheck.js"
import { readsBeside } from "./Records/ReadsBeside.js"

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

/** What a call that loses data removes, or stops (Tables.ts), for `schema: true`. */
const removesOf = (tool: Tool, selector: string): Readonly<Record<string, string>> => {
  const table = Tables.removes[tool.name] ?? {}
  const removed = Object.hasOwn(table, selector) ? table[selector] : undefined
  return removed === undefined ? {} : { removes: removed }
}

/** What the confirmation's question shows of the call, read just before asking (Records/Previewed.ts), for `schema: true`. */
const previewOf = (endpoint: string): Readonly<Record<string, string>> => {
  const shown = readsBeside(endpoint).preview
  return shown === undefined ? {} : { preview: `if asked (SVC_CONFIRM), the question shows ${shown}` }
}

/** How a schema answer writes its types. */
const NOTATION =
  'k?: optional; a|b: one of these keys; Name: a shape nested deeper, schema: "Name" answers it; {...}: an object nested deeper'

/** The shapes a schema answer names, each answered by `schema: "Name"`. */
const namedOf = (named: ReadonlyArray<string> | undefined): Readonly<Record<string, unknown>> =>
  named === undefined || named.length === 0 ? {} : { shapes: named }

/** What `schema: "Name"` answers: the shape of that name, as compact as the selector's params. */
const shapeOf = (
  tool: Tool,
  invocation: { readonly selector: string; readonly endpoint: string },
  name: string,
  described: ParamsCheck.Described | undefined,
) => {
  const found = described?.shape(name)
  return {
    tool: tool.name,
    [tool.selectorKey]: invocation.selector,
    shape: name,
    ...(described === undefined
      ? { type: "unknown: the service's definitions are not installed" }
      : found === undefined
        ? {
            type: `unknown: the service's definitions have no shape named ${JSON.stringify(name.slice(0, 60))}; the selector's names: ${described.named.join(", ") || "none"}`,
          }
        : { type: found.type, ...namedOf(found.named) }),
    notation: NOTATION,
  }
}

/**
 * What `schema: true` answers: the selector's params, compact, from the service's definitions;
 * `schema: "Name"`, a shape the first answer named.
 */
export const of = (
  tool: Tool,
  invocation: { readonly selector: string; readonly endpoint: string; readonly shape?: string | undefined },
  described: ParamsCheck.Described | undefined,
) => {
  if (invocation.shape !== undefined) return shapeOf(tool, invocation, invocation.shape, described)
  return {
    tool: tool.name,
    [tool.selectorKey]: invocation.selector,
    endpoint: invocation.endpoint,
    params: described?.accepted ?? "unknown: the service's definitions are not installed",
    ...AnswerSchema.of(tool, described),
    ...columnsOf(tool, invocation.endpoint),
    ...removesOf(tool, invocation.selector),
    ...previewOf(invocation.endpoint),
    ...namedOf(described?.named),
    notation: NOTATION,
    ...(described?.checked === false
      ? { note: "not in the service's published definitions: params are sent unchecked" }
      : {}),
    ...(tool.query === undefined ? {} : { query: "sent as params.terms = [query] unless params.terms is given" }),
    ...(tool.wait === undefined ? {} : { wait: "true: answer once the execution ends, with its outcome" }),
  }
}
