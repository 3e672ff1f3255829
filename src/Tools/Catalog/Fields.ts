/**
 * Answers shaped to the question: `fields` names the dotted paths of the
 * answer to keep (of each item, for a list), so that a question about a whole
 * fleet costs the fields it needs rather than every field of every item.
 *
 * Arrays on the way are passed through: `info.services.service` keeps the
 * `service` of each of an item's services. Only a value's own fields are read,
 * so a shaped answer holds nothing that the answer did not.
 */
import * as Schema from "effect/Schema"
import { describe, isObject } from "../../Shared/JsonShape.js"

/** More would be no shaping at all, and each path costs a walk of the answer. */
const MAX_PATHS = 64
const MAX_PATH_LENGTH = 200

/** One or more non-empty names joined by dots: `name`, `info.state`. */
const PATH = /^[^.]+(\.[^.]+)*$/

const isPath = (value: string) => value.length <= MAX_PATH_LENGTH && PATH.test(value)

/**
 * The argument's schema. Published as an array of strings: the rules on each
 * path are said by the error a bad one gets, not in tools/list.
 */
export const Paths = Schema.Array(Schema.String).pipe(
  Schema.filter((paths) => paths.length <= MAX_PATHS && paths.every(isPath), {
    jsonSchema: {},
  }),
)

/** The one sentence an invalid `fields` gets, saying what is accepted. */
export const problemOf = (given: unknown): string => {
  const accepted = `a list of dotted paths, e.g. ["name", "info.state"]`
  if (!Array.isArray(given)) return `fields must be ${accepted}, got ${describe(given)}`
  if (given.length > MAX_PATHS) return `fields takes at most ${MAX_PATHS} paths, got ${given.length}`
  const index = given.findIndex((path) => typeof path !== "string" || !isPath(path))
  const bad = given[index]
  if (typeof bad !== "string") return `fields[${index}] must be a string (a dotted path), got ${describe(bad)}`
  return bad.length > MAX_PATH_LENGTH
    ? `fields[${index}] is longer than ${MAX_PATH_LENGTH} characters`
    : `fields[${index}] ${JSON.stringify(bad)} is not a dotted path: names joined by single dots, e.g. "info.state"`
}

/** The paths as a tree of names, in the order given; `true` keeps the whole value there. */
type Tree = Map<string, Tree | true>

const treeOf = (paths: ReadonlyArray<string>): Tree => {
  const root: Tree = new Map()
  for (const path of paths) {
    const names = path.split(".")
    let node = root
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string
      const next = node.get(name)
      // A whole value asked for takes in any of its paths asked for too, before or after it.
      if (next === true) break
      if (i === names.length - 1) {
        node.set(name, true)
        break
      }
      const child: Tree = next ?? new Map()
      node.set(name, child)
      node = child
    }
  }
  return root
}

/**
 * The fields of `value` that `tree` names, or undefined when it has none of
 * them (so that the field holding it is left out rather than shown empty).
 * An array is shaped item by item, and keeps those items that have any of the
 * fields; an empty array stays, as it says something true.
 */
const project = (value: unknown, tree: Tree): unknown => {
  if (Array.isArray(value)) {
    if (value.length === 0) return value
    const items = value.map((item) => project(item, tree)).filter((item) => item !== undefined)
    return items.length === 0 ? undefined : items
  }
  if (!isObject(value)) return undefined
  const kept: Array<[string, unknown]> = []
  for (const [name, below] of tree) {
    if (!Object.hasOwn(value, name)) continue
    const shaped = below === true ? value[name] : project(value[name], below)
    if (shaped !== undefined) kept.push([name, shaped])
  }
  // fromEntries, not assignment: a field named "__proto__" stays a field.
  return kept.length === 0 ? undefined : Object.fromEntries(kept)
}

/**
 * Whether `value` (or, through arrays, any value in it) has `names` as a path. An empty array on
 * the way lacks nothing (a page past the last one): it has no item to lack the rest.
 */
const has = (value: unknown, names: ReadonlyArray<string>, at: number): boolean => {
  if (at === names.length) return true
  if (Array.isArray(value)) return value.length === 0 || value.some((item) => has(item, names, at))
  const name = names[at] as string
  return isObject(value) && Object.hasOwn(value, name) && has(value[name], names, at + 1)
}

/** Field names in the order they first appear, at most `max` of them. */
const topLevel = (records: ReadonlyArray<unknown>, max = 40): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const record of records) {
    if (!isObject(record)) continue
    for (const name of Object.keys(record)) {
      names.add(name)
      if (names.size >= max) return [...names]
    }
  }
  return [...names]
}

export interface Shaped {
  readonly value: unknown
  /** What the assistant should know: paths that matched nothing, or why nothing was shaped. */
  readonly note?: string
}

const quoted = (values: ReadonlyArray<string>) => values.map((v) => JSON.stringify(v)).join(", ")

/**
 * Keeps the `paths` of the record, or of each item of a list, in the order
 * given. An answer that is neither is returned as it is, with a note.
 */
export const shape = (answer: unknown, paths: ReadonlyArray<string>): Shaped => {
  const list = Array.isArray(answer)
  if (!list && !isObject(answer)) {
    return { value: answer, note: `fields not applied: the answer is ${describe(answer)}, not an object or a list` }
  }
  const records = list ? answer : [answer]
  const tree = treeOf(paths)
  // Each item stays, even one with none of the paths, so that the list still says how many there are;
  // an item that is not an object has no paths, and is shown as it is.
  const value = list
    ? answer.map((item) => (isObject(item) ? (project(item, tree) ?? {}) : item))
    : (project(answer, tree) ?? {})
  // An empty list has no item to lack a path: nothing to say.
  const missing = records.length === 0 ? [] : paths.filter((path) => !has(records, path.split("."), 0))
  if (missing.length === 0) return { value }
  const whose = list ? "no item has" : "the answer has no"
  const fields = topLevel(records)
  return {
    value,
    note: `${whose} ${missing.length === 1 ? "field" : "fields"} ${quoted(missing)}; ${list ? "the items'" : "its"} fields: ${fields.join(", ")} (schema: true lists them all)`,
  }
}
