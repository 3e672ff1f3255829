/**
 * How a refused params object is put in words: each problem with its path
 * below params and what would be accepted there (with a "did you mean" for a
 * misspelt field), and the endpoint's params as a compact type.
 */
import type { ErrorObject } from "ajv"
import { closest } from "../../Shared/Closest.js"
import { describe } from "../../Shared/JsonShape.js"
import type { Problem } from "../Catalog/ToolError.js"
import { aliasesOf, definitionName, isTagged, type Json, type Node } from "./ParamsDefinitions.js"

/** The definitions by name, as prepared for ajv. */
export type Definitions = Readonly<Record<string, Node>>

const describeValue = (value: unknown): string =>
  typeof value === "object" ? describe(value) : `${describe(value)} (${JSON.stringify(value).slice(0, 40)})`

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A JSON pointer below params, as `params.config.links[0]`. */
const pathOf = (pointer: string, extra?: string): string => {
  const parts = pointer === "" ? [] : pointer.slice(1).split("/")
  if (extra !== undefined) parts.push(extra.replace(/~/g, "~0").replace(/\//g, "~1"))
  let path = "params"
  for (const raw of parts) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    path += /^\d+$/.test(part) ? `[${part}]` : IDENTIFIER.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`
  }
  return path
}

const list = (values: ReadonlyArray<unknown>) => values.map((v) => JSON.stringify(v)).join(", ")

/**
 * Deep enough for a config's nested objects; deeper ones (a procedure's stages) show by their
 * definition's name, which `schema: "Name"` answers (`shapeType`), or as `{...}` where they have none.
 */
const MAX_DEPTH = 4

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`)

/** What ajv found, in words: where in params, and what to do. */
export const problems = (definitions: Definitions, errors: ReadonlyArray<ErrorObject>): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const aliased = new Set<string>()
  for (const error of errors) {
    if (error.keyword !== "anyOf") continue
    const aliases = aliasesOf(error.parentSchema as Node)
    if (aliases === undefined) continue
    for (const key of aliases) aliased.add(`${error.instancePath}/${key}`)
    problems.push({ path: pathOf(error.instancePath), message: `one of ${aliases.join(", ")} is required` })
  }
  for (const error of errors) {
    const found = wordOne(definitions, error, aliased)
    if (found !== undefined) problems.push(found)
  }
  return problems
}

const wordOne = (definitions: Definitions, error: ErrorObject, aliased: ReadonlySet<string>): Problem | undefined => {
  const parent = error.parentSchema as Node | undefined
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case "required": {
      const missing = String(params.missingProperty)
      if (aliased.has(`${error.instancePath}/${missing}`)) return undefined
      const type = render(definitions, parent?.properties?.[missing], 1, new Set())
      return { path: pathOf(error.instancePath, missing), message: `is required (${type})` }
    }
    case "additionalProperties": {
      const unknown = String(params.additionalProperty)
      const fields = Object.keys(parent?.properties ?? {})
      const guess = closest(unknown, fields)
      const where = pathOf(error.instancePath)
      // A long list of fields is in `accepted` already; a short one is said here.
      const takes =
        fields.length === 0
          ? `: ${where} takes no fields`
          : guess !== undefined
            ? ` (did you mean ${JSON.stringify(guess)}?)`
            : fields.length <= 12
              ? `: ${where} takes ${fields.join(", ")}`
              : ""
      return {
        path: pathOf(error.instancePath, unknown),
        message: `unknown field of ${where}${takes}; the service would ignore it`,
      }
    }
    case "type":
      return {
        path: pathOf(error.instancePath),
        message: `must be ${article(String(params.type))}, got ${describeValue(error.data)}`,
      }
    case "enum":
      return {
        path: pathOf(error.instancePath),
        message: `must be one of ${list(params.allowedValues as ReadonlyArray<unknown>)}; got ${JSON.stringify(error.data)}`,
      }
    case "const":
      return { path: pathOf(error.instancePath), message: `must be ${JSON.stringify(params.allowedValue)}` }
    case "discriminator": {
      const tags = ((parent?.oneOf ?? []) as ReadonlyArray<Node>).map((b) => b.properties?.type?.const)
      const given = (error.data as Json | undefined)?.type
      return {
        path: pathOf(error.instancePath, "type"),
        message:
          given === undefined
            ? `is required: one of ${list(tags)}, with params for that type`
            : `must be one of ${list(tags)}; got ${JSON.stringify(given)}`,
      }
    }
    case "anyOf":
      return aliasesOf(parent as Node) === undefined
        ? { path: pathOf(error.instancePath), message: "matches none of the forms the endpoint accepts" }
        : undefined
    default:
      return { path: pathOf(error.instancePath), message: error.message ?? error.keyword }
  }
}

/** The longest a type is written: a schema answer holds its params' and its answer's, in under 4,000 characters. */
const MOST_CHARS = 1_600

/**
 * A type within MOST_CHARS where it can be: written from a deeper start (`render`'s depth), so that
 * it spells out fewer levels, the deeper shapes shown as `{...}`, until it fits or only its own
 * fields are left.
 */
const shortest = (written: (start: number) => string): string => {
  let text = written(0)
  for (let start = 1; text.length > MOST_CHARS && start < MAX_DEPTH; start++) text = written(start)
  return text
}

/** The endpoint's params as a compact TypeScript-like type, e.g. `{stack|id|name: string, services: string[], tail?: number}`. */
export const accepted = (definitions: Definitions, request: string | undefined): string => {
  return request === undefined
    ? "any object (no published definition)"
    : shortest((start) => render(definitions, { $ref: `#/${request}` }, start, new Set()))
}

/** A named shape, compact as an endpoint's params are, or undefined where the definitions have no such name. */
export const shapeType = (definitions: Definitions, name: string): string | undefined => {
  const target = Object.hasOwn(definitions, name) ? definitions[name] : undefined
  return target === undefined ? undefined : shortest((start) => render(definitions, target, start, new Set([name])))
}

/** A value written in JSON (a tag, a constant), or a name outside one, generic ones whole (`ResourceToml<_PartialStackConfig>`). */
const TOKENS = /"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*(?:<[A-Za-z0-9_<>,]*>)?/g

/** The shapes a rendering names (outside its quoted tags), each once, in order: those `shapeType` answers. */
export const namedIn = (definitions: Definitions, rendering: string): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const [token] of rendering.matchAll(TOKENS))
    if (!token.startsWith('"') && /^[A-Z]/.test(token) && Object.hasOwn(definitions, token)) names.add(token)
  return [...names]
}

/** An endpoint's answer, compact as its params are, or undefined when the definitions do not have it. */
export const answerType = (definitions: Definitions, response: string | null | undefined): string | undefined =>
  typeof response === "string" && definitions[response] !== undefined
    ? shortest((start) => render(definitions, { $ref: `#/${response}` }, start, new Set()))
    : undefined

/**
 * The fields of a tagged union's members beside `type`: each required where every member requires
 * it, its type where every member's is the same, else `{...}` (it depends on the tag).
 */
const besideTags = (
  definitions: Definitions,
  branches: ReadonlyArray<Node>,
  depth: number,
  seen: ReadonlySet<string>,
): string => {
  const keys = [...new Set(branches.flatMap((b) => Object.keys(b.properties ?? {})))].filter((key) => key !== "type")
  return keys
    .map((key) => {
      const required = branches.every((b) => b.required?.includes(key) === true)
      const types = new Set(
        branches.map((b) =>
          b.properties?.[key] === undefined ? "" : render(definitions, b.properties[key], depth + 1, seen),
        ),
      )
      const [only] = types
      return `, ${key}${required ? "" : "?"}: ${types.size === 1 && only !== undefined && only !== "" ? only : "{...}"}`
    })
    .join("")
}

const render = (
  definitions: Definitions,
  schema: Node | undefined,
  depth: number,
  seen: ReadonlySet<string>,
): string => {
  if (schema === undefined) return "any"
  if (schema.$ref !== undefined) {
    const name = definitionName(schema.$ref)
    const target = definitions[name]
    // A definition inside itself (recursive types) is shown by name.
    if (target === undefined || seen.has(name)) return name
    // Deeper than a schema answer spells out: the shape by its name, which `schema: "Name"` answers.
    if (depth >= MAX_DEPTH && target.properties !== undefined) return name
    return render(definitions, target, depth, new Set([...seen, name]))
  }
  if (schema.enum !== undefined) return schema.enum.map((v) => JSON.stringify(v)).join(" | ")
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  const branches = schema.oneOf ?? (aliasesOf(schema) === undefined ? schema.anyOf : undefined)
  // A tagged union too deep or too wide to spell out: its tags, and the fields its members have
  // beside them, as the service takes them (a ResourceTarget's `{type, id}`, an execution's `{type, params}`).
  if (branches !== undefined && isTagged(branches) && (depth >= MAX_DEPTH || branches.length > 8)) {
    const tags = branches.map((b) => JSON.stringify(b.properties?.type?.const)).join(" | ")
    return `{type: ${tags}${besideTags(definitions, branches, depth, seen)}}`
  }
  if (branches !== undefined) return branches.map((b) => render(definitions, b, depth, seen)).join(" | ")
  if (schema.type === "array") {
    const item = render(definitions, schema.items, depth, seen)
    return item.includes(" | ") && !item.startsWith("{") ? `(${item})[]` : `${item}[]`
  }
  if (schema.type === "object" || schema.properties !== undefined) {
    const properties = schema.properties
    if (properties === undefined) {
      const values = schema.additionalProperties
      return typeof values === "object" ? `{[key: string]: ${render(definitions, values, depth + 1, seen)}}` : "{}"
    }
    if (depth >= MAX_DEPTH) return "{...}"
    const required = new Set(schema.required ?? [])
    const aliases = aliasesOf(schema) ?? []
    const fields: Array<string> = []
    for (const [key, field] of Object.entries(properties)) {
      if (aliases.includes(key) && key !== aliases[0]) continue
      const type = render(definitions, field, depth + 1, seen)
      if (key === aliases[0]) fields.push(`${aliases.join("|")}: ${type}`)
      else fields.push(`${key}${required.has(key) ? "" : "?"}: ${type}`)
    }
    return `{${fields.join(", ")}}`
  }
  return schema.type ?? "any"
}
