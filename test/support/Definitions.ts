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

const make = (allErrors: boolean): ((name: string) => ValidateFunction) => {
  // Refs kept as calls, not inlined, and the code not optimised: all the answers compile in 0.7 s, not 2.2 s.
  // The document is the service's, not validated again (as the params' check trusts it): 17–39 ms, not 53–100.
  const ajv = new Ajv({ strict: false, allErrors, inlineRefs: false, validateSchema: false, code: { optimize: false } })
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

/**
 * A validator of each definition by its name; with `allErrors`, its errors are all of them, not the first.
 * One of each kind for all the files a worker runs (the unit lane loads a module once per thread): a
 * definition is compiled once, not once per file. A validator keeps only its last call's `errors`, read
 * right after that call, and the files of a thread run one after another.
 */
const made = new Map<boolean, (name: string) => ValidateFunction>()
export const validators = (allErrors: boolean): ((name: string) => ValidateFunction) => {
  let found = made.get(allErrors)
  if (found === undefined) {
    found = make(allErrors)
    made.set(allErrors, found)
  }
  return found
}
