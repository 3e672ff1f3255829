/**
 * What `fields` names, as paths of the service's answer: a list's column names (`state`) and a
 * record's labels (`server`) taken for the paths they read (`info.state`, `config.server_id`), and
 * a path of each item of a list the service answers inside an object (`operation` of the updates)
 * taken for the answer's path (`updates.operation`), as the tools say: "of each item, for a list".
 */

import { pathOf, type Tool } from "./Catalog/Tool.js"
import * as Glance from "./Lists/Glance.js"
import { PROJECTIONS } from "./Lists/Projections.js"
import * as RecordGlance from "./RecordGlance.js"

/**
 * The lists the service answers inside an object, beside their next page (`{updates, next_page}`),
 * by the field that holds the items: those Projections.ts shows as rows, and the updates, shown as
 * they come.
 */
const WRAPPED: Readonly<Record<string, string>> = {
  "read/ListUpdates": "updates",
  ...Object.fromEntries(
    Object.entries(PROJECTIONS).flatMap(([endpoint, { items }]) => (items === undefined ? [] : [[endpoint, items]])),
  ),
}

/** The answer's own fields beside the items, which `fields` reads as they are. */
const BESIDE_ITEMS: ReadonlySet<string> = new Set(["next_page"])

/** The paths each name of a list's column or a record's label reads, where the answer has them. */
export const labelsOf = (tool: Tool, endpoint: string): ReadonlyMap<string, ReadonlyArray<string>> | undefined =>
  Glance.projectionOf(tool.shows, endpoint)?.byLabel ?? RecordGlance.of(tool.shows, endpoint)?.byLabel

/** `fields` as paths of the answer of `tool`'s `selector`. */
export const fieldsOf = (tool: Tool, selector: string, fields: ReadonlyArray<string>): ReadonlyArray<string> => {
  const endpoint = pathOf(tool, selector)
  const byLabel = labelsOf(tool, endpoint)
  const paths = byLabel === undefined ? fields : fields.flatMap((field) => byLabel.get(field) ?? [field])
  const items = WRAPPED[endpoint]
  if (items === undefined) return paths
  return paths.map((path) => {
    const first = path.split(".", 1)[0] as string
    return first === items || BESIDE_ITEMS.has(first) ? path : `${items}.${path}`
  })
}
