/**
 * Where an answer's untrusted text is: the strings at the paths PATHS names for
 * its endpoint (compiled into a trie per endpoint on first use), found in
 * document order, and replaced along those paths with the rest of the answer
 * shared.
 */
import { isObject } from "../Shared/JsonShape.js"
import type { Pattern } from "./Derive.js"
import { PATHS } from "./Paths.js"

/** One untrusted string of an answer: where it is, which rule made it untrusted, and the rule's path. */
export interface Found {
  readonly path: ReadonlyArray<string | number>
  readonly definition: string
  /** The path of the table that matched, as the first line names it: `logs[].stdout`. */
  readonly field: string
  /** The string is the key the path ends at (a label's name), not the value there. */
  readonly key?: true
}

/** Paths one segment a level, with what a path that ends at a node carries. */
interface Trie<K, A> {
  readonly below: Map<K, Trie<K, A>>
  here?: A
}

/** The node of `root` at `path`, made where it is not yet. */
const nodeAt = <K, N extends { readonly below: Map<K, N> }>(root: N, path: Iterable<K>): N => {
  let node = root
  for (const segment of path) {
    let next = node.below.get(segment)
    if (next === undefined) {
      next = { below: new Map() } as unknown as N
      node.below.set(segment, next)
    }
    node = next
  }
  return node
}

/** `root` with `path` in it, ending at `value`. */
const insert = <K, A>(root: Trie<K, A>, path: Iterable<K>, value: A): void => {
  nodeAt(root, path).here = value
}

interface Rule {
  readonly definition: string
  readonly field: string
}

/** An endpoint's paths, each ending at the rule that names it. */
type Rules = Trie<string, Rule>

const compile = (patterns: ReadonlyArray<Pattern>): Rules => {
  const root: Rules = { below: new Map() }
  for (const [path, definition] of patterns) {
    const field = path
      .replace(/\.\{\}$/, "")
      .replaceAll(".[]", "[]")
      .replaceAll(".*", "[*]")
    insert(root, path.split("."), { definition, field })
  }
  return root
}

// A memo of constant data (PATHS, compiled per endpoint on first use so that a start compiles none):
// the same for every caller and every layer, so it holds no state of the program's.
const tries = new Map<string, Rules>()
// The same for the tables of the answers at a glance, by the table itself.
const given = new WeakMap<ReadonlyArray<Pattern>, Rules>()

/** The compiled paths of `endpoint` (`group/Endpoint`), or undefined when its answer has none. */
const trieOf = (endpoint: string): Rules | undefined => {
  const known = tries.get(endpoint)
  if (known !== undefined) return known
  const patterns = PATHS[endpoint]
  if (patterns === undefined) return undefined
  const trie = compile(patterns)
  tries.set(endpoint, trie)
  return trie
}

/** Whether `endpoint`'s answers can carry untrusted text at all. */
export const carries = (endpoint: string): boolean => PATHS[endpoint] !== undefined

const strings = (value: unknown, path: Array<string | number>, rule: Rule, out: Array<Found>) => {
  if (typeof value === "string") {
    if (value !== "") out.push({ path: [...path], definition: rule.definition, field: rule.field })
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      path.push(index)
      strings(item, path, rule, out)
      path.pop()
    })
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      path.push(key)
      strings(item, path, rule, out)
      path.pop()
    }
  }
}

/** The keys of the map `value`, each one found (the empty key is no text). */
const keys = (value: unknown, path: Array<string | number>, rule: Rule, out: Array<Found>) => {
  if (!isObject(value)) return
  for (const key of Object.keys(value)) {
    if (key !== "") out.push({ path: [...path, key], definition: rule.definition, field: rule.field, key: true })
  }
}

const walk = (value: unknown, node: Rules, path: Array<string | number>, out: Array<Found>) => {
  // Below an untrusted field only its maps' keys are left to find: `strings` found every value.
  if (node.here !== undefined && node.below.size === 0) {
    strings(value, path, node.here, out)
    return
  }
  if (node.here !== undefined) strings(value, path, node.here, out)
  for (const [segment, child] of node.below) {
    if (segment === "{}") {
      if (child.here !== undefined) keys(value, path, child.here, out)
    } else if (segment === "[]") {
      if (!Array.isArray(value)) continue
      value.forEach((item, index) => {
        path.push(index)
        walk(item, child, path, out)
        path.pop()
      })
    } else if (segment === "*") {
      if (!isObject(value)) continue
      for (const [key, item] of Object.entries(value)) {
        path.push(key)
        walk(item, child, path, out)
        path.pop()
      }
    } else if (isObject(value) && Object.hasOwn(value, segment)) {
      path.push(segment)
      walk(value[segment], child, path, out)
      path.pop()
    }
  }
}

/**
 * Every non-empty untrusted string of an answer of `endpoint`, in document
 * order of the paths. Works on a shaped answer too: shaping keeps the names
 * on the way, so the same paths find what it kept.
 */
export const find = (endpoint: string, data: unknown): ReadonlyArray<Found> => {
  const trie = trieOf(endpoint)
  if (trie === undefined) return []
  const out: Array<Found> = []
  walk(data, trie, [], out)
  return out
}

/** The same, at the paths `patterns` gives: an answer at a glance, whose shape is its own. */
export const findWith = (patterns: ReadonlyArray<Pattern>, data: unknown): ReadonlyArray<Found> => {
  let trie = given.get(patterns)
  if (trie === undefined) {
    trie = compile(patterns)
    given.set(patterns, trie)
  }
  const out: Array<Found> = []
  walk(data, trie, [], out)
  return out
}

/** The places of `found`, each ending at its string's place: the value there (`here`), or its key (`name`). */
interface Places {
  readonly below: Map<string | number, Places>
  here?: Found
  name?: Found
}

/**
 * The entries of an object rebuilt, its keys replaced where `name` says: a replaced key that
 * meets another (two labels masked alike) is told apart by a count after it, so that no entry
 * is lost.
 */
const entriesOf = (
  entries: ReadonlyArray<readonly [key: string, value: unknown, renamed: boolean]>,
): ReadonlyArray<readonly [string, unknown]> => {
  const taken = new Set(entries.filter(([, , renamed]) => !renamed).map(([key]) => key))
  // The next count to try for each key, so that many keys masked alike cost one pass, not one each.
  const next = new Map<string, number>()
  return entries.map(([key, value, renamed]) => {
    if (!renamed) return [key, value] as const
    let unique = key
    let count = next.get(key) ?? 2
    while (taken.has(unique)) unique = `${key} (${count++})`
    next.set(key, count)
    taken.add(unique)
    return [unique, value] as const
  })
}

/**
 * `value` with the string at each of `found` replaced by `replace(text, found)` (a key, where
 * `found` is one): copied along those paths, the rest shared.
 */
export const replaceAt = (
  value: unknown,
  found: ReadonlyArray<Found>,
  replace: (text: string, at: Found) => string,
): unknown => {
  if (found.length === 0) return value
  const root: Places = { below: new Map() }
  for (const at of found) {
    const node = nodeAt(root, at.path)
    if (at.key === true) node.name = at
    else node.here = at
  }
  const rebuild = (item: unknown, node: Places): unknown => {
    if (node.here !== undefined && typeof item === "string") return replace(item, node.here)
    if (node.here === undefined && node.below.size === 0) return item
    if (Array.isArray(item))
      return item.map((x, index) => {
        const below = node.below.get(index)
        return below === undefined ? x : rebuild(x, below)
      })
    if (!isObject(item)) return item
    const entries = Object.entries(item).map(([key, x]) => {
      const below = node.below.get(key)
      if (below === undefined) return [key, x, false] as const
      const renamed = below.name === undefined ? key : replace(key, below.name)
      return [renamed, rebuild(x, below), renamed !== key] as const
    })
    // fromEntries, not assignment: a field named "__proto__" stays a field.
    return Object.fromEntries(entries.some(([, , renamed]) => renamed) ? entriesOf(entries) : entries)
  }
  return rebuild(value, root)
}

/** A JSON Pointer (RFC 6901) to a found value, under `prefix` (`/result` when the answer was wrapped). */
export const pointer = (path: ReadonlyArray<string | number>, prefix = ""): string =>
  `${prefix}${path.map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")}`
