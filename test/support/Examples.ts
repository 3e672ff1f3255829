/**
 * Params for tests, from the service's definitions read directly (not through
 * the client's check): the least body each endpoint accepts, and the params
 * examples written in the tools' descriptions, taken out of them mechanically.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import type { Tool } from "../../src/Tools/Catalog/Tool.js"

type Node = Record<string, unknown> & {
  $ref?: string
  type?: string
  properties?: Record<string, Node>
  required?: Array<string>
  items?: Node
  enum?: Array<unknown>
  const?: unknown
  anyOf?: Array<Node>
}

export const DOCUMENT = JSON.parse(
  Fs.readFileSync(Path.resolve(import.meta.dirname, "../../spec/service-api.schema.json"), "utf8"),
) as {
  serviceVersion: string
  notInDefinitions: Array<string>
  endpoints: Record<string, { request: string | null }>
  definitions: Record<string, Node>
}

const resolve = (node: Node | undefined): Node | undefined => {
  let current = node
  while (current?.$ref !== undefined) {
    current = DOCUMENT.definitions[decodeURIComponent(current.$ref.slice(current.$ref.lastIndexOf("/") + 1))]
  }
  return current
}

/** The request definition of `group/Endpoint`, or undefined when it has none. */
export const requestOf = (endpoint: string): Node | undefined => {
  const name = DOCUMENT.endpoints[endpoint]?.request
  return name === null || name === undefined ? undefined : DOCUMENT.definitions[name]
}

const aliases = (node: Node): Array<string> | undefined =>
  node.anyOf?.every((b) => Object.keys(b).length === 1 && b.required?.length === 1)
    ? node.anyOf.map((b) => b.required?.[0] as string)
    : undefined

/** The least value `schema` accepts: required fields only, the first of each choice. */
export const least = (schema: Node | undefined): unknown => {
  const node = resolve(schema)
  if (node === undefined) return {}
  if (node.enum !== undefined) return node.enum[0]
  if (node.const !== undefined) return node.const
  const alias = aliases(node)
  if (node.anyOf !== undefined && alias === undefined) return least(node.anyOf[0])
  if (node.type === "array") return []
  if (node.type === "string") return "x"
  if (node.type === "number") return 1
  if (node.type === "boolean") return true
  if (node.type === "object" || node.properties !== undefined) {
    const keys = [...(node.required ?? []), ...(alias === undefined ? [] : [alias[0] as string])]
    return Object.fromEntries(keys.map((key) => [key, least(node.properties?.[key])]))
  }
  return {}
}

/** Splits at `separator` outside braces, brackets, parentheses and strings. */
const splitTop = (text: string, separator: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (c === '"') quoted = !quoted
    if (quoted) continue
    if ("{[(".includes(c)) depth++
    if ("}])".includes(c)) depth--
    if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i))
      start = i + separator.length
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** The top-level `{...}` groups of `text`, each with the text before it. */
const groups = (text: string): Array<{ before: string; body: string }> => {
  const found: Array<{ before: string; body: string }> = []
  let depth = 0
  let quoted = false
  let open = -1
  let end = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (c === '"') quoted = !quoted
    if (quoted) continue
    if (c === "{") {
      if (depth === 0) open = i
      depth++
    } else if (c === "}") {
      depth--
      if (depth === 0 && open >= 0) {
        found.push({ before: text.slice(end, open), body: text.slice(open, i + 1) })
        end = i + 1
        open = -1
      }
    }
  }
  return found
}

/** An example such as `{stack, services: [], tail?}` as a body, values filled from the definitions. */
const bodyOf = (example: string, schema: Node | undefined): Record<string, unknown> | undefined => {
  const inner = example.trim().slice(1, -1).trim()
  const node = resolve(schema)
  const body: Record<string, unknown> = {}
  if (inner === "") return body
  for (const field of splitTop(inner, ",")) {
    const [rawKey, ...rest] = splitTop(field, ":")
    const key = (rawKey ?? "").trim().replace(/\?$/, "")
    // A placeholder such as <object> says the example is a pattern, not a body.
    if (key.startsWith("<")) return undefined
    const propSchema = node?.properties?.[key]
    const value = rest.join(":").trim()
    let parsed: unknown
    try {
      parsed = value === "" ? undefined : JSON.parse(value)
    } catch {
      parsed = value.startsWith("{") ? bodyOf(value, propSchema) : undefined
    }
    body[key] = parsed !== undefined ? parsed : least(propSchema)
  }
  return body
}

const wildcard = (pattern: string) => new RegExp(`^${pattern.replace(/\*/g, "[a-z_]*")}$`)

export interface Example {
  readonly selector: string
  readonly endpoint: string
  readonly text: string
  readonly params: Record<string, unknown>
}

/**
 * Every params example of a tool's description. An example applies to the
 * selectors named before it: by name first, then by a prefix pattern
 * (`batch_*`), then by a suffix pattern (`*_stack`); one that names none applies
 * to the selectors no other example names.
 */
export const examplesOf = (tool: Tool, all: ReadonlyArray<Tool>): Array<Example> => {
  const reference = /params as (svc_[a-z_]+)/.exec(tool.description)?.[1]
  const source = reference === undefined ? tool : (all.find((t) => t.name === reference) as Tool)
  const start = source.description.indexOf("params:")
  if (start < 0) return []
  const found: Array<{ names: Array<string>; body: string }> = []
  for (const segment of splitTop(source.description.slice(start + "params:".length), ";")) {
    for (const { before, body } of groups(segment)) {
      const names = (before.match(/[a-z*][a-z_*]*/g) ?? []).filter(
        (word) => word.includes("*") || tool.selectors.includes(word),
      )
      found.push({ names, body })
    }
  }
  const rank = (name: string, selector: string) =>
    name === selector
      ? 3
      : name.endsWith("*") && wildcard(name).test(selector)
        ? 2
        : wildcard(name).test(selector)
          ? 1
          : 0
  const examples: Array<Example> = []
  for (const selector of tool.selectors) {
    let best: { score: number; body: string } | undefined
    for (const { names, body } of found) {
      const score = names.length === 0 ? 0.5 : Math.max(0, ...names.map((n) => rank(n, selector)))
      if (score > 0 && (best === undefined || score > best.score)) best = { score, body }
    }
    if (best === undefined) continue
    const endpoint = `${tool.group}/${tool.endpoints[selector]}`
    const params = bodyOf(best.body, requestOf(endpoint))
    if (params === undefined) continue
    // The search tools' text goes in as terms, as the tool sends it.
    if (tool.query !== undefined) params.terms = ["q"]
    examples.push({ selector, endpoint, text: best.body, params })
  }
  return examples
}
