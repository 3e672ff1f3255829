/**
 * The service's definitions of every endpoint of its client
 * (spec/service-api-all.schema.json), and validators of them by name, each
 * compiled when first asked for.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Ajv, type ValidateFunction } from "ajv"

export interface JsonSchema {
  readonly $ref?: string
  readonly type?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly enum?: ReadonlyArray<string>
  readonly const?: unknown
}

export const document = JSON.parse(
  Fs.readFileSync(Path.resolve(import.meta.dirname, "../../spec/service-api-all.schema.json"), "utf8"),
) as {
  readonly endpoints: Readonly<Record<string, { request: string | null; response: string | null }>>
  readonly definitions: Readonly<Record<string, JsonSchema>>
}

/** A validator of each definition by its name; with `allErrors`, its errors are all of them, not the first. */
export const validators = (allErrors: boolean): ((name: string) => ValidateFunction) => {
  // Refs kept as calls, not inlined, and the code not optimised: all the answers compile in 0.7 s, not 2.2 s.
  const ajv = new Ajv({ strict: false, allErrors, inlineRefs: false, code: { optimize: false } })
  ajv.addSchema(document, "service")
  const compiled = new Map<string, ValidateFunction>()
  return (name) => {
    let found = compiled.get(name)
    if (found === undefined) {
      found = ajv.compile({ $ref: `service#/definitions/${encodeURIComponent(name)}` })
      compiled.set(name, found)
    }
    return found
  }
}
