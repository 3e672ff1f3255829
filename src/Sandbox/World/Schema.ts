/**
 * The service's published definitions of all its endpoints (spec/service-api-all.schema.json), as the
 * sandbox reads them: to decode a request's params the way the service's
 * deserializer does (serde's errors, unknown fields dropped) and to make its
 * answers complete (every config field, every required field).
 *
 * Each sandbox has its own (`make`, kept by its World), read on first use, not
 * at start: `svc-mcp --sandbox` must start quickly.
 */
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import { expected, invalidType, oneOf, serde, unexpected } from "./Serde.js"

interface JsonSchema {
  readonly $ref?: string
  readonly type?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties?: boolean | JsonSchema
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly enum?: ReadonlyArray<string>
  readonly const?: unknown
  readonly not?: JsonSchema
}

interface Document {
  readonly serviceVersion: string
  readonly endpoints: Readonly<Record<string, { readonly request: string | null; readonly response: string | null }>>
  readonly definitions: Readonly<Record<string, JsonSchema>>
}

// The module runs as a chunk of the bundle (dist/svc-mcp/*.js), where the file is two levels up, or
// as dist/Sandbox/World/Schema.js (the library) or src/Sandbox/World/Schema.ts (tests), three up.
const CANDIDATES = ["../../spec/service-api-all.schema.json", "../../../spec/service-api-all.schema.json"]

/**
 * Fields a definition holds only as other names the service reads in a request (serde's
 * aliases): its answers never write them, so a complete answer leaves them out.
 */
const READ_ONLY_ALIASES: Readonly<Record<string, ReadonlyArray<string>>> = {
  ServerBuilderConfig: ["server_id", "server", "servers"],
}

const refName = (ref: string) => decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1))

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const kindMatches = (schema: JsonSchema, value: unknown): boolean => {
  if (schema.const !== undefined) return schema.const === value
  if (schema.enum !== undefined) return typeof value === "string" && schema.enum.includes(value)
  switch (schema.type) {
    case "string":
      return typeof value === "string"
    case "number":
      return typeof value === "number"
    case "boolean":
      return typeof value === "boolean"
    case "array":
      return Array.isArray(value)
    case "object":
      return isRecord(value)
    default:
      return true
  }
}

/** The definitions as a sandbox reads them: on first use, and then kept for the life of the process. */
export interface ServiceSchema {
  readonly document: () => Document
  readonly definition: (name: string) => JsonSchema
  readonly resolve: (schema: JsonSchema, name?: string) => { schema: JsonSchema; name: string | undefined }
  readonly endpointSchema: (
    endpoint: string,
    part: "request" | "response",
  ) => { schema: JsonSchema; name: string | undefined } | undefined
  readonly property: (schema: JsonSchema, key: string) => JsonSchema | undefined
  readonly pick: (schema: JsonSchema, value: Record<string, unknown>) => Record<string, unknown>
  readonly complete: (schema: JsonSchema, value: unknown, every?: boolean) => unknown
  readonly decode: (schema: JsonSchema, value: unknown, name?: string) => unknown
  readonly decodeRequest: (endpoint: string, params: unknown) => unknown
}

/**
 * The definitions as read from the file, and each type's empty value (it depends only on its schema:
 * built once, then copied): the same for every sandbox of the process, which only reads them, so read
 * and built once for all of them (a test's process starts hundreds).
 */
let loaded: Document | undefined
const EMPTIES = [new WeakMap<JsonSchema, string>(), new WeakMap<JsonSchema, string>()]

/** The definitions, read on first use; each step of reading, filling and decoding a method. */
class Schema implements ServiceSchema {
  private readonly empties = EMPTIES

  document(): Document {
    if (loaded !== undefined) return loaded
    for (const candidate of CANDIDATES) {
      const path = fileURLToPath(new URL(candidate, import.meta.url))
      if (Fs.existsSync(path)) {
        loaded = JSON.parse(Fs.readFileSync(path, "utf8")) as Document
        return loaded
      }
    }
    throw new Error(`the service's definitions (spec/service-api-all.schema.json) are not beside ${import.meta.url}`)
  }

  definition(name: string): JsonSchema {
    const found = this.document().definitions[name]
    if (found === undefined) throw new Error(`no definition named ${name}`)
    return found
  }

  /** Follows `$ref`s to the schema itself, with the name of the last definition on the way. */
  resolve(schema: JsonSchema, name?: string): { schema: JsonSchema; name: string | undefined } {
    let current = schema
    let currentName = name
    for (let i = 0; current.$ref !== undefined && i < 20; i++) {
      currentName = refName(current.$ref)
      current = this.definition(currentName)
    }
    return { schema: current, name: currentName }
  }

  /** The schema of an endpoint's request or answer, or undefined when the definitions have none. */
  endpointSchema(endpoint: string, part: "request" | "response") {
    const name = this.document().endpoints[endpoint]?.[part]
    return name === undefined || name === null ? undefined : this.resolve(this.definition(name), name)
  }

  property(schema: JsonSchema, key: string): JsonSchema | undefined {
    const found = this.resolve(schema).schema.properties?.[key]
    return found === undefined ? undefined : this.resolve(found).schema
  }

  /** The branch of an `anyOf` that a value takes: by its `type` tag, else the first of its JSON kind. */
  private branch(options: ReadonlyArray<JsonSchema>, value: unknown): JsonSchema | undefined {
    const resolved = options.map((o) => this.resolve(o).schema)
    if (isRecord(value) && typeof value.type === "string") {
      const tagged = resolved.find((o) => this.resolve(o.properties?.type ?? {}).schema.const === value.type)
      if (tagged !== undefined) return tagged
    }
    return resolved.find((o) => kindMatches(o, value))
  }

  /** The fields of `value` that `schema` has, with values of the kind it expects. */
  pick(schema: JsonSchema, value: Record<string, unknown>): Record<string, unknown> {
    const properties = this.resolve(schema).schema.properties ?? {}
    return Object.fromEntries(
      Object.entries(value).filter(([key, field]) => {
        const expected = properties[key]
        return (
          expected !== undefined &&
          field !== undefined &&
          field !== null &&
          kindMatches(this.resolve(expected).schema, field)
        )
      }),
    )
  }

  /**
   * `value` made complete for `schema`: what it holds is kept, and each missing field gets
   * the type's empty value, as the service's serializer writes a default. With `every`,
   * optional fields are filled too (a config has all of them); otherwise only required ones.
   */
  complete(schema: JsonSchema, value: unknown, every = false): unknown {
    return this.fill(schema, value, every, 0)
  }

  private fill(schema: JsonSchema, value: unknown, every: boolean, depth: number): unknown {
    const { schema: s, name } = this.resolve(schema)
    const aliases = name === undefined ? undefined : READ_ONLY_ALIASES[name]
    if (depth > 8) return value
    if (s.anyOf !== undefined) {
      const chosen = this.branch(s.anyOf, value) ?? this.resolve(s.anyOf[0] ?? {}).schema
      return this.fill(chosen, value, every, depth + 1)
    }
    if (value === undefined) return this.empty(s, every, depth)
    if (Array.isArray(value) && s.items !== undefined) {
      const items = s.items
      return value.map((item) => this.fill(items, item, every, depth + 1))
    }
    if (isRecord(value) && s.properties !== undefined) {
      const required = new Set(s.required ?? [])
      const out: Record<string, unknown> = {}
      for (const [key, field] of Object.entries(s.properties)) {
        if (Object.hasOwn(value, key) && value[key] !== undefined) {
          out[key] = this.fill(field, value[key], every, depth + 1)
        } else if ((every && aliases?.includes(key) !== true) || required.has(key)) {
          const filled = this.empty(this.resolve(field).schema, every, depth + 1)
          if (filled !== undefined) out[key] = filled
        }
      }
      // Fields beyond the schema stay: the caller answers for them, and the tests catch them.
      for (const [key, field] of Object.entries(value)) if (!Object.hasOwn(out, key)) out[key] = field
      return out
    }
    return value
  }

  private empty(schema: JsonSchema, every: boolean, depth: number): unknown {
    const cache = this.empties[every ? 1 : 0] as WeakMap<JsonSchema, string>
    const cached = cache.get(schema)
    if (cached !== undefined) return cached === "undefined" ? undefined : JSON.parse(cached)
    const value = this.emptyOf(schema, every, depth)
    cache.set(schema, value === undefined ? "undefined" : JSON.stringify(value))
    return value
  }

  private emptyOf(schema: JsonSchema, every: boolean, depth: number): unknown {
    const s = this.resolve(schema).schema
    if (s.not !== undefined) return undefined
    if (s.const !== undefined) return s.const
    if (s.enum !== undefined) return s.enum[0]
    if (s.anyOf !== undefined) return this.fill(s.anyOf[0] ?? {}, undefined, every, depth + 1)
    switch (s.type) {
      case "string":
        return ""
      case "number":
        return 0
      case "boolean":
        return false
      case "array":
        return []
      case "object":
        return s.properties === undefined ? {} : this.fill(s, {}, every, depth + 1)
      default:
        return null
    }
  }

  /**
   * Decodes `value` as the service's deserializer would: the first error in serde's words
   * (a 500), or the value with the fields the service does not know dropped, as it drops them.
   */
  decode(schema: JsonSchema, value: unknown, name?: string): unknown {
    const { schema: s, name: n } = this.resolve(schema, name)
    if (s.anyOf !== undefined && s.properties === undefined) return this.decodeAnyOf(s.anyOf, value, n)
    if (s.not !== undefined || (s.type === undefined && s.enum === undefined && s.const === undefined)) return value
    if (s.const !== undefined) {
      if (value !== s.const) throw serde(`unknown variant \`${String(value)}\`, ${oneOf([String(s.const)])}`)
      return value
    }
    if (s.enum !== undefined) {
      if (typeof value !== "string") throw invalidType(value, s, n)
      if (!s.enum.includes(value)) throw serde(`unknown variant \`${value}\`, ${oneOf(s.enum)}`)
      return value
    }
    switch (s.type) {
      case "number":
        if (typeof value !== "number") throw invalidType(value, s, n)
        if ((n === "U64" || n === "I64" || n === "Usize") && !Number.isInteger(value)) {
          throw invalidType(value, s, n)
        }
        if ((n === "U64" || n === "Usize") && value < 0) {
          throw serde(`invalid value: ${unexpected(value)}, expected ${expected(s, n)}`)
        }
        return value
      case "array": {
        if (!Array.isArray(value)) throw invalidType(value, s, n)
        const items = s.items
        return items === undefined ? value : value.map((item) => this.decode(items, item))
      }
      case "object":
        return this.decodeObject(s, value, n)
      default:
        if (!kindMatches(s, value)) throw invalidType(value, s, n)
        return value
    }
  }

  private decodeObject(s: JsonSchema, value: unknown, name: string | undefined): unknown {
    if (!isRecord(value)) throw invalidType(value, s, name)
    const properties = s.properties
    if (properties === undefined) {
      const values = s.additionalProperties
      if (typeof values !== "object") return value
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.decode(values, v)]))
    }
    const out: Record<string, unknown> = {}
    for (const [key, field] of Object.entries(value)) {
      const schema = properties[key]
      // A field the service does not know is ignored, as serde ignores it; null is an absent Option.
      if (schema === undefined || (field === null && !(s.required ?? []).includes(key))) continue
      out[key] = this.decode(schema, field)
    }
    for (const key of s.required ?? []) if (!Object.hasOwn(out, key)) throw serde(`missing field \`${key}\``)
    // A field that also goes by other names: `{anyOf: [{required: [stack]}, {required: [id]}, ...]}`.
    const aliases = s.anyOf?.map((o) => o.required ?? [])
    if (aliases !== undefined && !aliases.some((keys) => keys.every((k) => Object.hasOwn(out, k)))) {
      throw serde(`missing field \`${aliases[0]?.[0] ?? "id"}\``)
    }
    return out
  }

  private decodeAnyOf(options: ReadonlyArray<JsonSchema>, value: unknown, name: string | undefined): unknown {
    const resolved = options.map((o) => this.resolve(o).schema)
    const tags = resolved.map((o) => this.resolve(o.properties?.type ?? {}).schema.const)
    if (tags.every((t): t is string => typeof t === "string")) {
      // An enum tagged by `type`, its content in `params` or `data`, as the service's are.
      if (!isRecord(value)) {
        throw serde(`invalid type: ${unexpected(value)}, expected adjacently tagged enum ${name ?? "value"}`)
      }
      if (value.type === undefined) throw serde("missing field `type`")
      const index = tags.indexOf(String(value.type))
      if (index < 0) throw serde(`unknown variant \`${String(value.type)}\`, ${oneOf(tags)}`)
      return this.decode(resolved[index] ?? {}, value, name)
    }
    for (const option of resolved) {
      try {
        return this.decode(option, value, name)
      } catch {
        // the next variant may fit, as serde tries each of an untagged enum's
      }
    }
    throw serde(`data did not match any variant of untagged enum ${name ?? "value"}`)
  }

  /** A request body decoded against its endpoint's definition; a body of an endpoint without one passes as it is. */
  decodeRequest(endpoint: string, params: unknown): unknown {
    const request = this.endpointSchema(endpoint, "request")
    if (request !== undefined) return this.decode(request.schema, params, request.name)
    // Without a definition the service still reads a struct: anything else is serde's refusal.
    if (!isRecord(params)) throw serde(`invalid type: ${unexpected(params)}, expected struct ${endpoint.split("/")[1]}`)
    return params
  }
}

export const make = (): ServiceSchema => new Schema()
