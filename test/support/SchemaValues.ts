/**
 * The service's definitions as the property tests read them: a definition by its reference, the
 * schema at a dotted path of a record, and any value a schema allows, for answers the service may give.
 */
import * as FastCheck from "fast-check"
import { document } from "./Definitions.js"

export type Schema = Readonly<Record<string, unknown>>

const definitions = document.definitions as unknown as Readonly<Record<string, Schema>>

/** `schema` with its `$ref` followed, as often as it takes. */
export const resolve = (schema: Schema): Schema => {
  const ref = schema.$ref
  if (typeof ref !== "string") return schema
  return resolve(definitions[decodeURIComponent(ref.replace("#/definitions/", ""))] ?? {})
}

/** The definition an endpoint answers with. */
export const answerSchema = (endpoint: string): Schema =>
  resolve(definitions[document.endpoints[endpoint]?.response ?? ""] ?? {})

const choicesOf = (schema: Schema) => [
  ...((schema.anyOf as Array<Schema>) ?? []),
  ...((schema.oneOf as Array<Schema>) ?? []),
]

/** The schema at a dotted path, through arrays, choices and maps (`*`); undefined where the definitions have no such field. */
export const schemaAt = (schema: Schema, names: ReadonlyArray<string>): Schema | undefined => {
  const here = resolve(schema)
  if (names.length === 0) return here
  if (here.type === "array") return schemaAt((here.items as Schema) ?? {}, names)
  for (const choice of choicesOf(here)) {
    const found = schemaAt(choice, names)
    if (found !== undefined) return found
  }
  const [first, ...rest] = names
  const property = (here.properties as Record<string, Schema> | undefined)?.[first as string]
  if (property !== undefined) return schemaAt(property, rest)
  const map = here.additionalProperties
  return typeof map === "object" && map !== null && first === "*" ? schemaAt(map as Schema, rest) : undefined
}

/** An id in the service's form: a string some records hold where another names a resource. */
export const ID = "6b0741480000000000000008"

export interface Draw {
  /** The strings drawn: any, an empty one or an id, unless said. */
  readonly strings?: FastCheck.Arbitrary<string>
  /** The numbers drawn for `number`: any finite double, unless said. */
  readonly numbers?: FastCheck.Arbitrary<number>
  /** Below this depth, arrays are empty and records hold nothing. */
  readonly depth?: number
}

/** Any value `schema` allows, bounded in depth: what the service may answer. */
export const arbitrary = (schema: Schema, draw: Draw = {}, depth = 0): FastCheck.Arbitrary<unknown> => {
  const here = resolve(schema)
  const deepest = draw.depth ?? 5
  const deeper = (inner: Schema) => arbitrary(inner, draw, depth + 1)
  const choices = choicesOf(here)
  if (choices.length > 0) return FastCheck.oneof(...choices.map(deeper))
  if (here.const !== undefined) return FastCheck.constant(here.const)
  if (Array.isArray(here.enum)) return FastCheck.constantFrom(...(here.enum as Array<unknown>))
  const types = Array.isArray(here.type) ? (here.type as Array<string>) : [here.type]
  const one = (type: unknown): FastCheck.Arbitrary<unknown> => {
    switch (type) {
      case "string":
        return draw.strings ?? FastCheck.oneof(FastCheck.string(), FastCheck.constantFrom("", ID))
      case "number":
        return draw.numbers ?? FastCheck.double({ noNaN: true, noDefaultInfinity: true })
      case "integer":
        return FastCheck.integer()
      case "boolean":
        return FastCheck.boolean()
      case "null":
        return FastCheck.constant(null)
      case "array":
        return depth > deepest
          ? FastCheck.constant([])
          : FastCheck.array(deeper((here.items as Schema) ?? {}), { maxLength: 3 })
      default: {
        const properties = (here.properties as Record<string, Schema> | undefined) ?? {}
        const map = here.additionalProperties
        if (depth <= deepest && Object.keys(properties).length === 0 && typeof map === "object" && map !== null)
          return FastCheck.dictionary(FastCheck.string({ maxLength: 8 }), deeper(map as Schema), { maxKeys: 2 })
        if (depth > deepest || Object.keys(properties).length === 0) return FastCheck.constant({})
        const required = (here.required as Array<string> | undefined) ?? []
        return FastCheck.record(Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, deeper(s)])), {
          requiredKeys: required.filter((name) => name in properties),
        })
      }
    }
  }
  return FastCheck.oneof(...types.map(one))
}

/** The values at a dotted path, through arrays (written here apart from the code under test). */
export const valuesAt = (value: unknown, names: ReadonlyArray<string>): ReadonlyArray<unknown> => {
  if (names.length === 0) return [value]
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, names))
  const [first, ...rest] = names
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, first as string)) return []
  return valuesAt((value as Record<string, unknown>)[first as string], rest)
}

/**
 * The value at a path as `fields` and the list's columns read it, read anew: through arrays (an
 * item without it left out, nesting kept), an object's own fields alone; undefined where none.
 */
export const readAt = (value: unknown, path: ReadonlyArray<string>): unknown => {
  if (path.length === 0) return value
  if (Array.isArray(value)) return value.map((item) => readAt(item, path)).filter((item) => item !== undefined)
  if (typeof value !== "object" || value === null) return undefined
  const [first, ...rest] = path as [string, ...Array<string>]
  return Object.hasOwn(value, first) ? readAt((value as Record<string, unknown>)[first], rest) : undefined
}
