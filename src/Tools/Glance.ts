/**
 * A list at a glance: each item as one row of the columns its projection
 * names (Projections.ts), ids shown as names (Names.ts). The column names are
 * said once, in the answer's first line, rather than once per item: a list of
 * 300 stacks fits the output budget this way. And ids kept by `fields` get
 * their names beside them.
 */
import { isObject } from "../Shared/JsonShape.js"
import { REDACTED } from "../Shared/Secrets.js"
import type { NameKind, NameMaps } from "./Names.js"
import { type Column, ID_FIELDS, PROJECTIONS, type Projection } from "./Projections.js"

/** The tools whose lists have projections: svc_list's, and svc_list_detail's full lists. */
const LISTS = new Set(["svc_list", "svc_list_detail"])

/** The projection of a list `tool` answers from `endpoint`, if the table has one. */
export const projectionOf = (tool: string, endpoint: string): Projection | undefined =>
  LISTS.has(tool) ? PROJECTIONS[endpoint] : undefined

/** The value at `path`, read through arrays as `fields` reads it; undefined where there is none. */
const valueAt = (value: unknown, names: ReadonlyArray<string>, at = 0): unknown => {
  if (at === names.length) return value
  if (Array.isArray(value)) {
    return value.map((item) => valueAt(item, names, at)).filter((item) => item !== undefined)
  }
  const name = names[at] as string
  return isObject(value) && Object.hasOwn(value, name) ? valueAt(value[name], names, at + 1) : undefined
}

const at = (record: unknown, path: string) => valueAt(record, path.split("."))

const nameOf = (maps: NameMaps, kind: NameKind, id: unknown): unknown =>
  typeof id === "string" ? (maps[kind]?.get(id) ?? id) : id

/** One cell: the record's value at the column's path, an id as its name; null where the record has none. */
const cell = (column: Column, record: unknown, maps: NameMaps): unknown => {
  if (column.hidden !== undefined && at(record, column.hidden) === true) return REDACTED
  const value = at(record, column.path)
  if (column.key !== undefined && column.when !== undefined) {
    const { key, when } = column
    return Array.isArray(value)
      ? value.filter((item) => isObject(item) && item[when] === true).map((item) => item[key])
      : []
  }
  if (column.name !== undefined) {
    const given = column.given === undefined ? undefined : at(record, column.given)
    if (typeof given === "string" && given !== "") return given
    const kind = column.name
    if (Array.isArray(value)) return value.map((id) => nameOf(maps, kind, id))
    return value === undefined ? null : nameOf(maps, kind, value)
  }
  return value === undefined ? null : value
}

/**
 * The kinds of names the rows of `items` need read: those of name columns
 * where some item has an id but not the name the service gave beside it.
 */
export const kindsFor = (projection: Projection, items: ReadonlyArray<unknown>): ReadonlyArray<NameKind> => {
  const kinds = new Set<NameKind>()
  for (const column of projection.columns) {
    const kind = column.name
    if (kind === undefined || kinds.has(kind)) continue
    const lacking = items.some((item) => {
      const id = at(item, column.path)
      const hasId = Array.isArray(id) ? id.length > 0 : typeof id === "string" && id !== ""
      if (!hasId) return false
      const given = column.given === undefined ? undefined : at(item, column.given)
      return !(typeof given === "string" && given !== "")
    })
    if (lacking) kinds.add(kind)
  }
  return [...kinds]
}

export interface Rows {
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
}

export const rows = (projection: Projection, items: ReadonlyArray<unknown>, maps: NameMaps): Rows => ({
  columns: projection.columns.map((column) => column.label),
  rows: items.map((item) => projection.columns.map((column) => cell(column, item, maps))),
})

/** The record paths a projection reads (for the fences' check, which works on records). */
export const pathsOf = (projection: Projection): ReadonlyArray<string> => [
  ...new Set(
    projection.columns.flatMap((column) => (column.given === undefined ? [column.path] : [column.path, column.given])),
  ),
]

/**
 * The first line of a list at a glance: what the rows hold, and how to see
 * more, with a field the rows leave out as the example. Short, since a list of
 * one item pays for it whole.
 */
export const headline = (projection: Projection, count: number): string => {
  const [first, second] = projection.columns.map((column) => column.path)
  const example = [first, projection.more ?? second]
  // Every noun of the table is a plural in -s.
  const noun = count === 1 ? projection.noun.slice(0, -1) : projection.noun
  const labels = JSON.stringify(projection.columns.map((column) => column.label))
  return `[svc-mcp: ${count} ${noun} as rows of ${labels}; for more, fields: ["*"] or ${JSON.stringify(example)}]`
}

// ---- names beside ids kept by `fields`

/** The id fields `value` holds, for the name kinds to read. */
export const idKindsIn = (value: unknown): ReadonlyArray<NameKind> => {
  const records = Array.isArray(value) ? value : [value]
  const kinds = new Set<NameKind>()
  for (const field of ID_FIELDS) {
    if (kinds.has(field.name)) continue
    const found = records.some((record) => {
      const id = at(record, field.path)
      return Array.isArray(id) ? id.some((x) => typeof x === "string" || Array.isArray(x)) : typeof id === "string"
    })
    if (found) kinds.add(field.name)
  }
  return [...kinds]
}

/** `record` with a name beside each id field it has (the record copied where it changes). */
const besideOne = (record: unknown, maps: NameMaps): unknown => {
  if (!isObject(record)) return record
  let out: Readonly<Record<string, unknown>> = record
  for (const field of ID_FIELDS) {
    const names = maps[field.name]
    if (names === undefined) continue
    const path = field.path.split(".")
    const leaf = path.pop() as string
    const parent = valueAt(out, path)
    if (!isObject(parent) || !Object.hasOwn(parent, leaf) || Object.hasOwn(parent, field.beside)) continue
    const id = parent[leaf]
    const name = Array.isArray(id) ? id.map((x) => nameOf(maps, field.name, x)) : nameOf(maps, field.name, id)
    if (name === undefined || (typeof id !== "string" && !Array.isArray(id))) continue
    out = setAt(out, path, { ...parent, [field.beside]: name })
  }
  return out
}

const setAt = (
  record: Readonly<Record<string, unknown>>,
  path: ReadonlyArray<string>,
  value: unknown,
): Readonly<Record<string, unknown>> => {
  const [first, ...rest] = path
  if (first === undefined) return value as Readonly<Record<string, unknown>>
  // The path exists (the parent was found along it): each object on the way is copied, its keys in order.
  return Object.fromEntries(
    Object.entries(record).map(([key, inner]) => [
      key,
      key === first && isObject(inner) ? setAt(inner, rest, value) : inner,
    ]),
  )
}

/** An answer shaped by `fields`, with the names of the ids it kept beside them. */
export const withNames = (value: unknown, maps: NameMaps): unknown =>
  Array.isArray(value) ? value.map((item) => besideOne(item, maps)) : besideOne(value, maps)
