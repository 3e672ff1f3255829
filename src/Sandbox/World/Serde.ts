/**
 * serde's words (the service's deserializer) for a request's value it refuses: what it got, what it
 * expected, the variants it knows; the service answers each with a 500, as the sandbox does.
 */
import { ServiceFailure } from "./Store.js"

/** What of a definition names what it expects. */
interface Described {
  readonly type?: string
  readonly enum?: ReadonlyArray<string>
  readonly properties?: unknown
}

export const expected = (schema: Described, name: string | undefined): string => {
  if (name === "U64") return "u64"
  if (name === "I64") return "i64"
  if (name === "Usize") return "usize"
  if (schema.enum !== undefined) return name === undefined ? "a string" : `enum ${name}`
  switch (schema.type) {
    case "string":
      return "a string"
    case "number":
      return "f64"
    case "boolean":
      return "a boolean"
    case "array":
      return "a sequence"
    case "object":
      return schema.properties === undefined || name === undefined ? "a map" : `struct ${name}`
    default:
      return "any value"
  }
}

export const unexpected = (value: unknown): string => {
  if (value === null) return "null"
  if (typeof value === "string") return `string ${JSON.stringify(value)}`
  if (typeof value === "boolean") return `boolean \`${value}\``
  if (typeof value === "number") return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``
  if (Array.isArray(value)) return "sequence"
  return "map"
}

export const serde = (message: string) => new ServiceFailure(500, message)

export const oneOf = (variants: ReadonlyArray<string>) => {
  const quoted = variants.map((v) => `\`${v}\``)
  if (quoted.length === 1) return `expected ${quoted[0]}`
  if (quoted.length === 2) return `expected ${quoted[0]} or ${quoted[1]}`
  return `expected one of ${quoted.join(", ")}`
}

/** A value of the wrong type where a definition expected another. */
export const invalidType = (value: unknown, schema: Described, name: string | undefined) =>
  serde(`invalid type: ${unexpected(value)}, expected ${expected(schema, name)}`)
