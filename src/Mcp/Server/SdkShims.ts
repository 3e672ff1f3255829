/**
 * What the bundle gives the SDK in place of its `_shims` module (scripts/bundle.mjs): Node's
 * process, and the JSON Schema validator the SDK checks an elicitation's answer with.
 *
 * The SDK's own validator is ajv with its formats, a sixth of what a start would load, for the one
 * question this server asks: an answer of an empty form (Mcp/Calls/Confirm.ts), which is accept or
 * decline, its content an object. This validator knows that form and nothing more: a schema of any
 * other shape is not matched, so an answer to it is refused (fail closed). The servers pass it
 * themselves (Server.ts), in the bundle and in the tests alike.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/server"
import { isObject } from "../../Shared/JsonShape.js"

/** @public The SDK's stdio entry reads the process from its shims. */
export const process = globalThis.process

/** Whether `schema` is the form this server asks with: an object of no fields. */
const isEmptyForm = (schema: JsonSchemaType): boolean => {
  const { type, properties, ...rest } = schema as Record<string, unknown>
  return (
    type === "object" &&
    (properties === undefined || (isObject(properties) && Object.keys(properties).length === 0)) &&
    Object.keys(rest).every((key) => key === "$schema" || key === "required")
  )
}

export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const known = isEmptyForm(schema)
    return (input) =>
      known && isObject(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : {
            valid: false,
            data: undefined,
            errorMessage: known ? "the answer is not an object" : "this server asks with an empty form only",
          }
  }
}
