/**
 * What a tool is: a name, the endpoint group it calls, its selector table,
 * and the Effect Schema that both decodes its arguments and is published as
 * its JSON Schema.
 */
import type * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { isObject } from "../../Shared/JsonShape.js"
import type { Group } from "../../SvcClient.js"
import { Paths } from "./Fields.js"

export type SelectorKey = "resource_type" | "operation" | "inspect_type" | "list_type"

/** What a tool can do, which decides the modes it is offered in and its MCP hints. */
export type Tier = "read" | "operate" | "write"

export interface Hints {
  readonly readOnlyHint: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint: boolean
}

/** How a tool's answers are shown, where not whole (View.ts chooses by it). */
export interface Shows {
  /** A list as rows of its projection's columns (Projections.ts). */
  readonly rows?: boolean
  /** One record at a glance, by its view (RecordViews.ts, RecordGlance.ts). */
  readonly record?: boolean
  /** An execution's Update, or a batch of them, at a glance (Execution.ts). */
  readonly execution?: boolean
  /** A change that answers the changed resource, shown at the glance a read shows it at. */
  readonly changed?: boolean
  /** The ids `fields` keeps are the service's resources': their names are shown beside them. */
  readonly names?: boolean
}

export interface ToolSpec {
  readonly name: string
  readonly title: string
  readonly tier: Tier
  readonly hints: Hints
  readonly group: Group
  readonly selectorKey: SelectorKey
  /** Selector value -> endpoint name, in the order interface.md gives them. */
  readonly endpoints: Readonly<Record<string, string>>
  /** The selectors whose endpoint is of another group than the tool's (SVC_REACH=all: svc_execute's checks are `write/`). */
  readonly groups?: Readonly<Record<string, Group>>
  readonly description: string
  /** svc_search_logs: a required search text, sent as `terms: [query]`. */
  readonly query?: string
  /** svc_execute: an optional `wait` flag, to follow the execution to its end. */
  readonly wait?: string
  /** The tools that read: an optional `fields`, the dotted paths of the answer to keep (the description says how). */
  readonly fields?: boolean
  /** How its answers are shown; whole where it says nothing. */
  readonly shows?: Shows
  /** How to ask for less, said when an answer is cut to fit. */
  readonly narrow: string
  /** The JSON Schema of the result's structuredContent, where the tool publishes one. */
  readonly outputSchema?: Readonly<Record<string, unknown>>
  /** Several services (SVC_SERVICES): an optional `service`, one of these names, the first by default. */
  readonly services?: ReadonlyArray<string>
  /** An optional `from_person`: the secret params the person types on a page of svc-mcp's (Tools/Params/FromPerson.ts). */
  readonly fromPerson?: string
}

/** The arguments once decoded: the selector under its own key, `params`, and `query` where the tool has one. */
export type Arguments = {
  readonly params: Readonly<Record<string, unknown>>
  readonly query?: string
  readonly wait?: boolean
  readonly schema?: boolean | string
  readonly fields?: ReadonlyArray<string>
  readonly service?: string
  readonly from_person?: ReadonlyArray<string>
} & {
  readonly [key: string]: unknown
}

export interface Tool extends ToolSpec {
  readonly selectors: ReadonlyArray<string>
  readonly schema: Schema.Schema<Arguments, unknown>
  /** The schema's decoder, built once: unknown arguments are refused, every problem reported. */
  readonly decode: (args: unknown) => Either.Either<Arguments, ParseResult.ParseError>
  readonly inputSchema: JSONSchema.JsonSchema7Object
}

/** Every tool takes it: the way to learn a selector's params without sending anything. */
export const SCHEMA_DESCRIPTION = "true: params; no call"
/** A tool that takes `fields` also shows its answer's, to choose from. */
export const SCHEMA_WITH_ANSWER = "true: params, answer; no call"

// The published schema of params is left open: each endpoint takes its own fields, which
// `schema: true` lists. (No descriptions on params and the selector: the tool's description
// says both, and tools/list must stay small.)
// A guard, not a Record: decoding a Record copies the object and drops a key named
// "__proto__", and the service should get the body exactly as it was given.
const Params = Schema.declare(isObject, { jsonSchema: { type: "object" } })

/** A param `from_person` may name: a key of params, or of an object in them (`account.token`). */
const PARAM_PATH = /^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63})?$/

const argumentsSchema = (spec: ToolSpec, selectors: ReadonlyArray<string>) => {
  const [first, ...rest] = selectors
  if (first === undefined) throw new Error(`${spec.name} has no selector`)
  const fields: Record<string, Schema.Schema.All | Schema.PropertySignature.All> = {
    [spec.selectorKey]: Schema.Literal(first, ...rest),
    params: Schema.optionalWith(Params, { default: () => ({}) }),
  }
  if (spec.query !== undefined) fields.query = Schema.String.annotations({ description: spec.query })
  if (spec.wait !== undefined) fields.wait = Schema.optional(Schema.Boolean.annotations({ description: spec.wait }))
  // No description, as for params: the tool's description says it in a few words.
  if (spec.fields === true) fields.fields = Schema.optional(Paths)
  const schema = spec.fields === true ? SCHEMA_WITH_ANSWER : SCHEMA_DESCRIPTION
  // A shape's name: one a schema answer names in place of spelling it out (ParamsWording.ts), as
  // its notation says. Published as one type of two, the shortest a client reads: tools/list stays small.
  fields.schema = Schema.optional(
    Schema.Union(Schema.Boolean, Schema.String).annotations({
      description: schema,
      jsonSchema: { type: ["boolean", "string"], description: schema },
    }),
  )
  // Published as a list of strings alone, tools/list being small: what a name may be is checked at the call.
  if (spec.fromPerson !== undefined) {
    fields.from_person = Schema.optional(
      Schema.Array(Schema.String.pipe(Schema.pattern(PARAM_PATH)).annotations({ jsonSchema: { type: "string" } })).pipe(
        Schema.maxItems(8),
        Schema.annotations({ jsonSchema: { type: "array", items: { type: "string" }, description: spec.fromPerson } }),
      ),
    )
  }
  // Published as the selectors are, a typed enum (clients that need `type` beside `enum` take it), without a description.
  const names = spec.services ?? []
  if (names.length > 0) {
    fields.service = Schema.optional(Schema.Literal(...(names as [string, ...Array<string>])))
  }
  return Schema.Struct(fields) as unknown as Schema.Schema<Arguments, unknown>
}

const publish = (schema: Schema.Schema<Arguments, unknown>): JSONSchema.JsonSchema7Object => {
  // `$schema` is left out: MCP clients assume a JSON Schema dialect, and every tool would repeat it.
  const { $schema: _, ...rest } = JSONSchema.make(schema)
  return rest as JSONSchema.JsonSchema7Object
}

/** The group and name of the endpoint `selector` calls. */
export const targetOf = (tool: ToolSpec, selector: string): { readonly group: Group; readonly endpoint: string } => ({
  group: tool.groups?.[selector] ?? tool.group,
  endpoint: tool.endpoints[selector] as string,
})

/** The endpoint `selector` calls, as `group/Endpoint`. */
export const pathOf = (tool: ToolSpec, selector: string): string => {
  const { group, endpoint } = targetOf(tool, selector)
  return `${group}/${endpoint}`
}

/**
 * What a tool's published schema is a function of, as one string: the key of the schemas the build
 * publishes ahead (scripts/bundle.mjs), for the tools as they are by default.
 */
export const publishedKey = (spec: ToolSpec, selectors: ReadonlyArray<string> = Object.keys(spec.endpoints)): string =>
  JSON.stringify([
    spec.name,
    spec.selectorKey,
    selectors,
    spec.query,
    spec.wait,
    spec.fields,
    spec.services,
    spec.fromPerson,
  ])

// The bundle's own: each default tool's published schema, made from its Effect Schema when the
// bundle was built, so that a start serves tools/list without making any (scripts/bundle.mjs).
declare const SVC_MCP_PUBLISHED: Readonly<Record<string, JSONSchema.JsonSchema7Object>> | undefined
const ahead: Readonly<Record<string, JSONSchema.JsonSchema7Object>> =
  typeof SVC_MCP_PUBLISHED === "undefined" ? {} : SVC_MCP_PUBLISHED

/**
 * A tool of `spec`. Its schema, decoder and published schema are made when first used, and are
 * not enumerable: a start makes none it does not need, and `{ ...tool, endpoints }` is a spec.
 */
export const make = (spec: ToolSpec): Tool => {
  const selectors = Object.keys(spec.endpoints)
  let schema: Schema.Schema<Arguments, unknown> | undefined
  let decode: Tool["decode"] | undefined
  let inputSchema: JSONSchema.JsonSchema7Object | undefined = ahead[publishedKey(spec, selectors)]
  const schemaOf = () => {
    schema ??= argumentsSchema(spec, selectors)
    return schema
  }
  const tool = { ...spec, selectors }
  return Object.defineProperties(tool, {
    schema: { get: schemaOf, configurable: true },
    decode: {
      get: () => {
        decode ??= Schema.decodeUnknownEither(schemaOf(), { errors: "all", onExcessProperty: "error" })
        return decode
      },
      configurable: true,
    },
    inputSchema: {
      get: () => {
        inputSchema ??= publish(schemaOf())
        return inputSchema
      },
      configurable: true,
    },
  }) as unknown as Tool
}
