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
        const maps: Array<string> = []
        mapsBelow(document, below, [...path, field], seen, maps)
        for (const at of [[...path, field].join("."), ...maps]) found.set(at, rule.definition)
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
