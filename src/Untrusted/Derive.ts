/**
 * From the service's definitions and the rules (Fields.ts) to the untrusted
 * paths of each endpoint's answer: a walk of each answer's definition that
 * notes where a rule's field is reached. `Paths.ts` is its output, kept as data
 * so that a start never reads the definitions; a test derives it again and
 * holds the two equal.
 */
import { ruleOf } from "./Fields.js"

interface Node {
  readonly $ref?: string
  readonly type?: string | ReadonlyArray<string>
  readonly const?: unknown
  readonly enum?: ReadonlyArray<unknown>
  readonly properties?: Readonly<Record<string, Node>>
  readonly additionalProperties?: boolean | Node
  readonly items?: Node
  readonly anyOf?: ReadonlyArray<Node>
  readonly oneOf?: ReadonlyArray<Node>
  readonly allOf?: ReadonlyArray<Node>
}

export interface Definitions {
  readonly notInDefinitions: ReadonlyArray<string>
  readonly endpoints: Readonly<Record<string, { readonly request: string | null; readonly response?: string | null }>>
  readonly definitions: Readonly<Record<string, Node>>
}

/**
 * A path's segments joined by dots: a field's name, `[]` for each item of an array, `*` for each value
 * of a map, and, last, `{}` for the keys of a map at or below an untrusted field (its labels' names).
 */
export type Pattern = readonly [path: string, definition: string]

// Generic definitions are named with their parameters, percent-encoded in the reference: Resource%3CStackConfig%2CStackInfo%3E.
const refName = (ref: string) => decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1))

/**
 * The maps at or below `node` (an untrusted field's definition): where the definitions give an
 * object `additionalProperties`, its keys are text whoever wrote its values wrote too (a label's
 * name, an environment variable's), so they are untrusted as the values are.
 */
const mapsBelow = (
  document: Definitions,
  node: Node | boolean | undefined,
  path: ReadonlyArray<string>,
  seen: ReadonlySet<string>,
  out: Array<string>,
): void => {
  if (node === undefined || typeof node === "boolean") return
  if (node.$ref !== undefined) {
    const name = refName(node.$ref)
    if (!seen.has(name)) mapsBelow(document, document.definitions[name], path, new Set([...seen, name]), out)
    return
  }
  for (const member of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    mapsBelow(document, member, path, seen, out)
  for (const [field, below] of Object.entries(node.properties ?? {}))
    mapsBelow(document, below, [...path, field], seen, out)
  if (node.items !== undefined) mapsBelow(document, node.items, [...path, "[]"], seen, out)
  if (node.additionalProperties === true || typeof node.additionalProperties === "object") {
    out.push([...path, "{}"].join("."))
    mapsBelow(document, node.additionalProperties, [...path, "*"], seen, out)
  }
}

/** `node` with its references followed, or undefined where one leads back into itself. */
const resolved = (document: Definitions, node: Node | undefined, seen: ReadonlySet<string>) => {
  let at = node
  const passed = new Set(seen)
  while (at?.$ref !== undefined) {
    const name = refName(at.$ref)
    if (passed.has(name)) return undefined
    passed.add(name)
    at = document.definitions[name]
  }
  return at === undefined ? undefined : { node: at, seen: passed }
}

/** A field the service types itself: an enum's tag, a constant, a number, a boolean. */
const isTyped = (node: Node): boolean =>
  node.const !== undefined ||
  node.enum !== undefined ||
  node.type === "number" ||
  node.type === "integer" ||
  node.type === "boolean"

/** An id: the service's own, never text from outside. */
const isId = (field: string): boolean => field === "id" || field.endsWith("_id")

/** The members of a union, the fields of an object, the items of a list and the values of a map, each with its segment. */
const partsOf = (node: Node): ReadonlyArray<readonly [segment: string | undefined, node: Node]> => [
  ...[...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])].map(
    (member) => [undefined, member] as const,
  ),
  ...Object.entries(node.properties ?? {}),
  ...(node.items === undefined ? [] : [["[]", node.items] as const]),
  ...(typeof node.additionalProperties === "object" ? [["*", node.additionalProperties] as const] : []),
]

/**
 * Whether an untrusted field's value holds, at any depth, a value the service types itself (a
 * tagged union's tag, an enum, an id, a number): then only its other fields are untrusted, and
 * those are named.
 */
const holdsTyped = (document: Definitions, node: Node | undefined, seen: ReadonlySet<string>): boolean => {
  const at = resolved(document, node, seen)
  if (at === undefined) return false
  if (isTyped(at.node)) return true
  return partsOf(at.node).some(
    ([segment, below]) =>
      (segment !== undefined && segment !== "[]" && segment !== "*" && isId(segment)) ||
      holdsTyped(document, below, at.seen),
  )
}

/** The paths below an untrusted field that hold text from outside: all but the typed fields and the ids. */
const within = (
  document: Definitions,
  node: Node | undefined,
  path: ReadonlyArray<string>,
  definition: string,
  seen: ReadonlySet<string>,
  found: Map<string, string>,
): void => {
  const at = resolved(document, node, seen)
  if (at === undefined || isTyped(at.node)) return
  // An object is named field by field: a union's members share their paths, and another member's may hold an id there.
  if (!holdsTyped(document, at.node, seen) && at.node.properties === undefined) {
    // An object that can hold no field holds no text; text, a list or a map of it, or anything: every string in it is.
    const closed = at.node.type === "object" && at.node.additionalProperties === false
    if (!closed) found.set(path.join("."), definition)
    return
  }
  for (const [segment, below] of partsOf(at.node)) {
    if (segment === undefined) within(document, below, path, definition, at.seen, found)
    else if (segment === "[]" || segment === "*" || !isId(segment))
      within(document, below, [...path, segment], definition, at.seen, found)
  }
}

/** The untrusted paths of an answer of definition `root`. */
const pathsOf = (document: Definitions, root: string): ReadonlyArray<Pattern> => {
  const found = new Map<string, string>()
  const walk = (
    node: Node | boolean | undefined,
    path: ReadonlyArray<string>,
    named: string | undefined,
    seen: ReadonlySet<string>,
  ) => {
    if (node === undefined || typeof node === "boolean") return
    if (node.$ref !== undefined) {
      const name = refName(node.$ref)
      // A definition that holds itself (a tree of resources) adds no path the first pass did not.
      if (seen.has(name)) return
      walk(document.definitions[name], path, name, new Set([...seen, name]))
      return
    }
    for (const member of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
      walk(member, path, named, seen)
    for (const [field, below] of Object.entries(node.properties ?? {})) {
      const rule = named === undefined ? undefined : ruleOf(named, field)
      if (rule === undefined) walk(below, [...path, field], undefined, seen)
      else {
        if (holdsTyped(document, below, seen)) within(document, below, [...path, field], rule.definition, seen, found)
        else found.set([...path, field].join("."), rule.definition)
        const maps: Array<string> = []
        mapsBelow(document, below, [...path, field], seen, maps)
        for (const at of maps) found.set(at, rule.definition)
      }
    }
    if (node.items !== undefined) walk(node.items, [...path, "[]"], undefined, seen)
    if (typeof node.additionalProperties === "object") walk(node.additionalProperties, [...path, "*"], undefined, seen)
  }
  walk({ $ref: `#/definitions/${root}` }, [], undefined, new Set())
  return [...found]
    .map(([path, definition]) => [path, definition] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

/**
 * Every endpoint whose answer has untrusted paths. An execution that the
 * definitions do not describe (`notInDefinitions`) answers an Update, as every
 * other execution does.
 */
export const derive = (document: Definitions): Readonly<Record<string, ReadonlyArray<Pattern>>> => {
  const table: Record<string, ReadonlyArray<Pattern>> = {}
  const endpoints = Object.entries(document.endpoints).map(
    ([endpoint, { response }]) =>
      [
        endpoint,
        response ?? (document.notInDefinitions.includes(endpoint) && endpoint.startsWith("execute/") ? "Update" : null),
      ] as const,
  )
  for (const [endpoint, response] of endpoints.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (response === null) continue
    const paths = pathsOf(document, response)
    if (paths.length > 0) table[endpoint] = paths
  }
  return table
}
