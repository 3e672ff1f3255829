/**
 * A list at a glance: each item as one row of the columns its projection
 * names (Projections.ts), ids shown as names (Names.ts). The column names are
 * said once, in the answer's first line, rather than once per item: a list of
 * 300 stacks fits the output budget this way. And ids kept by `fields` get
 * their names beside them.
 */
import { wordOf } from "../../Kinds/Kinds.js"
import { isObject } from "../../Shared/JsonShape.js"
import { REDACTED } from "../../Shared/Secrets.js"
import type { Shows } from "../Catalog/Tool.js"
import type { NameKind, NameMaps } from "../Names/Names.js"
import * as PathReader from "./PathReader.js"
import { type Column, ID_FIELDS, PROJECTIONS, type Projection } from "./Projections.js"

/**
 * A projection made ready once, when this module loads: each column's paths read by a
 * function made for them, the labels and the first line's words made, so that a call
 * looks nothing up and splits no path, row after row.
 */
export interface Compiled {
  readonly projection: Projection
  /** The columns' labels, as the answer's `columns`. */
  readonly labels: ReadonlyArray<string>
  /** One item's row. */
  readonly row: (record: unknown, maps: NameMaps) => Array<unknown>
  /** The name columns: the kind of each, its id's reader and the reader of the name the service gave. */
  readonly named: ReadonlyArray<{
    readonly kind: NameKind
    readonly id: PathReader.Reader
    readonly given: PathReader.Reader | undefined
  }>
  /** The readers of the target columns' ResourceTargets, whose kind each item's type says. */
  readonly targets: ReadonlyArray<PathReader.Reader>
  /** The record paths the projection reads (for the fences' check, which works on records). */
  readonly paths: ReadonlyArray<string>
  /** Each column's record paths, by its label: what `fields` takes a column's name for. */
  readonly byLabel: ReadonlyMap<string, ReadonlyArray<string>>
  /** The first line's words before and after the count, for one item and for several. */
  readonly one: readonly [string, string]
  readonly many: readonly [string, string]
}

type Cell = (record: unknown, maps: NameMaps) => unknown

const nameOf = (maps: NameMaps, kind: NameKind, id: unknown): unknown =>
  typeof id === "string" ? (maps[kind]?.get(id) ?? id) : id

const isGiven = (given: unknown): given is string => typeof given === "string" && given !== ""

/** A name column's cell: the name the service gave, else each id as its name. */
const nameCell = (kind: NameKind, read: PathReader.Reader, given: PathReader.Reader | undefined): Cell => {
  return (record, maps) => {
    if (given !== undefined) {
      const name = given(record)
      if (isGiven(name)) return name
    }
    const value = read(record)
    if (Array.isArray(value)) {
      const names = new Array<unknown>(value.length)
      for (let i = 0; i < value.length; i++) names[i] = nameOf(maps, kind, value[i])
      return names
    }
    return value === undefined ? null : nameOf(maps, kind, value)
  }
}

/** Of the objects at the column's path, the `key` of those whose `when` is true. */
const pickCell = (read: PathReader.Reader, key: string, when: string): Cell => {
  return (record) => {
    const value = read(record)
    const out: Array<unknown> = []
    if (!Array.isArray(value)) return out
    for (const item of value) if (isObject(item) && item[when] === true) out.push(item[key])
    return out
  }
}

/** A ResourceTarget as its type and name (`Server prod-02`); `System` alone. */
const targetCell = (read: PathReader.Reader): Cell => {
  return (record, maps) => {
    const target = read(record)
    if (!isObject(target) || typeof target.type !== "string") return null
    const kind = wordOf(target.type)
    const id = target.id
    if (typeof id !== "string" || id === "") return target.type
    return `${target.type} ${kind === undefined ? id : nameOf(maps, kind, id)}`
  }
}

/** The value when it is one of the table's words, else null. */
const ofCell = (read: PathReader.Reader, of: ReadonlyArray<string>): Cell => {
  const words = new Set(of)
  return (record) => {
    const value = read(record)
    return typeof value === "string" && words.has(value) ? value : null
  }
}

/** One cell of `column`: the record's value at its path, an id as its name; null where the record has none. */
const cellOf = (column: Column): Cell => {
  const read = PathReader.of(column.path)
  const cell: Cell = column.target
    ? targetCell(read)
    : column.of !== undefined
      ? ofCell(read, column.of)
      : column.key !== undefined && column.when !== undefined
        ? pickCell(read, column.key, column.when)
        : column.name !== undefined
          ? nameCell(column.name, read, column.given === undefined ? undefined : PathReader.of(column.given))
          : (record) => {
              const value = read(record)
              return value === undefined ? null : value
            }
  if (column.hidden === undefined) return cell
  const hidden = PathReader.of(column.hidden)
  return (record, maps) => (hidden(record) === true ? REDACTED : cell(record, maps))
}

/** A record's path as `fields` reads it from the answer: under the field that holds the items, if any. */
const answerPath = (projection: Projection, path: string): string =>
  projection.items === undefined ? path : `${projection.items}.${path}`

/** Every noun of the table is a plural in -s. */
const words = (projection: Projection, labels: ReadonlyArray<string>) => {
  const [first, second] = projection.columns.map((column) => answerPath(projection, column.path))
  const example = JSON.stringify([
    first,
    projection.more === undefined ? second : answerPath(projection, projection.more),
  ])
  const after = ` as rows of ${JSON.stringify(labels)}; for more, fields: ["*"] or ${example}]`
  return {
    one: ["[svc-mcp: ", ` ${projection.noun.slice(0, -1)}${after}`] as const,
    many: ["[svc-mcp: ", ` ${projection.noun}${after}`] as const,
  }
}

export const compile = (projection: Projection): Compiled => {
  const cells = projection.columns.map(cellOf)
  const width = cells.length
  const labels = projection.columns.map((column) => column.label)
  const named = projection.columns.flatMap((column) =>
    column.name === undefined
      ? []
      : [
          {
            kind: column.name,
            id: PathReader.of(column.path),
            given: column.given === undefined ? undefined : PathReader.of(column.given),
          },
        ],
  )
  const pathsOf = (column: Column) =>
    (column.given === undefined ? [column.path] : [column.path, column.given]).map((path) =>
      answerPath(projection, path),
    )
  // A column of the table's own words shows nothing of the field it reads: the fences' check skips it.
  const paths = [...new Set(projection.columns.flatMap((column) => (column.of === undefined ? pathsOf(column) : [])))]
  return {
    projection,
    labels,
    row: (record, maps) => {
      const row = new Array<unknown>(width)
      for (let i = 0; i < width; i++) row[i] = (cells[i] as Cell)(record, maps)
      return row
    },
    named,
    targets: projection.columns.flatMap((column) => (column.target ? [PathReader.of(column.path)] : [])),
    paths,
    byLabel: new Map(projection.columns.map((column) => [column.label, pathsOf(column)])),
    ...words(projection, labels),
  }
}

const COMPILED: ReadonlyMap<string, Compiled> = new Map(
  Object.entries(PROJECTIONS).map(([endpoint, projection]) => [endpoint, compile(projection)]),
)

/** The projection of a list a tool that `shows` rows answers from `endpoint`, if the table has one. */
export const projectionOf = (shows: Shows | undefined, endpoint: string): Compiled | undefined =>
  shows?.rows === true ? COMPILED.get(endpoint) : undefined

/** The items of a list answer: the answer itself, or its field that holds them; undefined if it has none. */
export const itemsOf = (compiled: Compiled, answer: unknown): ReadonlyArray<unknown> | undefined => {
  const items = compiled.projection.items
  const list = items === undefined ? answer : isObject(answer) ? answer[items] : undefined
  return Array.isArray(list) ? list : undefined
}

/**
 * The kinds of names the rows of `items` need read: those of name columns
 * where some item has an id but not the name the service gave beside it.
 */
export const kindsFor = (compiled: Compiled, items: ReadonlyArray<unknown>): ReadonlyArray<NameKind> => {
  const kinds: Array<NameKind> = []
  for (const { kind, id, given } of compiled.named) {
    if (kinds.includes(kind)) continue
    for (const item of items) {
      const value = id(item)
      const hasId = Array.isArray(value) ? value.length > 0 : typeof value === "string" && value !== ""
      if (hasId && !(given !== undefined && isGiven(given(item)))) {
        kinds.push(kind)
        break
      }
    }
  }
  for (const read of compiled.targets) {
    for (const item of items) {
      const target = read(item)
      const kind = isObject(target) && typeof target.type === "string" ? wordOf(target.type) : undefined
      if (kind !== undefined && !kinds.includes(kind)) kinds.push(kind)
    }
  }
  return kinds
}

export interface Rows {
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  /** The columns said once (the projection's `once`), by label: the value every row has. */
  readonly same?: Readonly<Record<string, unknown>>
  /** The column said as its first value and its step (the projection's `step`), by label. */
  readonly steps?: Readonly<Record<string, { readonly first: number; readonly by: number }>>
}

const isScalar = (value: unknown): boolean => value === null || typeof value !== "object"

/** The step by which `values` move, each from the one before, where it is one and the same (rows of 3 or more). */
const stepOf = (values: ReadonlyArray<unknown>): number | undefined => {
  if (values.length < 3 || typeof values[0] !== "number" || typeof values[1] !== "number") return undefined
  const by = values[1] - values[0]
  for (let i = 1; i < values.length; i++) {
    const [before, value] = [values[i - 1], values[i]]
    if (typeof value !== "number" || typeof before !== "number" || value - before !== by) return undefined
  }
  return by
}

/**
 * `rows` with the projection's `once` columns left out where every row has the same value, and its
 * `step` column where it moves by one step: each said once, in the first line. Of 2 rows or more.
 */
const fold = (compiled: Compiled, rows: Rows): Rows => {
  const { once = [], step } = compiled.projection
  if (rows.rows.length < 2 || (once.length === 0 && step === undefined)) return rows
  const column = (i: number) => rows.rows.map((row) => row[i])
  const same: Record<string, unknown> = {}
  const steps: Record<string, { first: number; by: number }> = {}
  const kept: Array<number> = []
  rows.columns.forEach((label, i) => {
    const values = column(i)
    const by = label === step ? stepOf(values) : undefined
    if (by !== undefined) steps[label] = { first: values[0] as number, by }
    else if (once.includes(label) && isScalar(values[0]) && values.every((value) => value === values[0]))
      same[label] = values[0]
    else kept.push(i)
  })
  if (kept.length === rows.columns.length) return rows
  return {
    columns: kept.map((i) => rows.columns[i] as string),
    rows: rows.rows.map((row) => kept.map((i) => row[i])),
    ...(Object.keys(same).length === 0 ? {} : { same }),
    ...(Object.keys(steps).length === 0 ? {} : { steps }),
  }
}

export const rows = (compiled: Compiled, items: ReadonlyArray<unknown>, maps: NameMaps): Rows => {
  const out = new Array<ReadonlyArray<unknown>>(items.length)
  for (let i = 0; i < items.length; i++) out[i] = compiled.row(items[i], maps)
  return fold(compiled, { columns: compiled.labels, rows: out })
}

/** What the first line says of the columns said once: `, in each mem_total_gb 16, ts 1795953000000 in the first, 300000 less in each next`. */
const saidOnce = (rows: Rows): string => {
  const same = Object.entries(rows.same ?? {}).map(([label, value]) => `${label} ${JSON.stringify(value)}`)
  const steps = Object.entries(rows.steps ?? {}).map(
    ([label, { first, by }]) =>
      `, ${label} ${first} in the first, ${Math.abs(by)} ${by < 0 ? "less" : "more"} in each next`,
  )
  return `${same.length === 0 ? "" : `, in each ${same.join(", ")}`}${steps.join("")}`
}

/**
 * The first line of a list at a glance: how many rows (`shown` of `count`, where
 * the budget cut them), what they hold, and how to see more, with a field the
 * rows leave out as the example. Short, since a list of
 * one item pays for it whole.
 */
export const headline = (compiled: Compiled, count: number, shown = count, folded?: Rows): string => {
  const [before, after] = count === 1 ? compiled.one : compiled.many
  // Cut by the output budget, the line says how many rows follow, of how many.
  const many = shown === count ? count : `${shown} of ${count}`
  if (folded === undefined || folded.columns.length === compiled.labels.length) return `${before}${many}${after}`
  // Columns said once: the rows' own, then the values said once, then how to see more.
  const [, more] = after.split(`as rows of ${JSON.stringify(compiled.labels)}`)
  return `${before}${many} ${compiled.projection.noun} as rows of ${JSON.stringify(folded.columns)}${saidOnce(folded)}${more}`
}

// ---- names beside ids kept by `fields`

/** The id fields, each with its paths' readers made once. */
const IDS = ID_FIELDS.map((field) => {
  const path = field.path.split(".")
  const leaf = path.pop() as string
  return { ...field, read: PathReader.of(field.path), parent: PathReader.compile(path), path, leaf }
})

/** The id fields `value` holds, for the name kinds to read. */
export const idKindsIn = (value: unknown): ReadonlyArray<NameKind> => {
  const records = Array.isArray(value) ? value : [value]
  const kinds = new Set<NameKind>()
  for (const field of IDS) {
    if (kinds.has(field.name)) continue
    const found = records.some((record) => {
      const id = field.read(record)
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
  for (const field of IDS) {
    const names = maps[field.name]
    if (names === undefined) continue
    const { path, leaf } = field
    const parent = field.parent(out)
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
