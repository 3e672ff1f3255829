/**
 * Params checked against the service's request definitions: each endpoint's
 * check is compiled by ajv on its first use, so that start-up pays for none,
 * and a null that stands for an absent optional field is left out of the body.
 */
import { Ajv, type ValidateFunction } from "ajv"
import type { Problem } from "../Catalog/ToolError.js"
import * as KeyAliases from "./KeyAliases.js"
import {
  type Document,
  definitionName,
  isTagged,
  type Json,
  type Node,
  prepare,
  readDocument,
} from "./ParamsDefinitions.js"
import { accepted, answerType, namedIn, problems, shapeType } from "./ParamsWording.js"

export type Checked =
  /** The body to send: as given, less the nulls that stand for absent optional fields. */
  | {
      readonly _tag: "Valid"
      readonly body: Json
      /** Values sent as the service spells them, where the call's differed only in case, in a sentence. */
      readonly respelled?: string
    }
  | { readonly _tag: "Invalid"; readonly problems: ReadonlyArray<Problem>; readonly accepted: string }
  /** No definition for this endpoint, or the check is off: sent as given. */
  | { readonly _tag: "Unchecked"; readonly body: Json }

/** The service's definitions, loaded, with one compiled check per endpoint. */
export class RequestDefinitions {
  private readonly ajv: Ajv
  private readonly compiled = new Map<string, ValidateFunction | undefined>()
  /** How many endpoint checks have been compiled: one per endpoint used, however many calls. */
  compilations = 0
  private readonly unchecked: ReadonlySet<string>
  readonly serviceVersion: string
  /** The definitions as the file has them (788 in the shipped one). */
  private readonly raw: Readonly<Record<string, unknown>>
  private prepared: Readonly<Record<string, Node>> | undefined
  private readonly endpoints: Document["endpoints"]
  /** Each type's own key (KeyAliases.ts), read when a body is first refused. */
  private own: Readonly<Record<string, string>> | undefined

  constructor(document: Document) {
    this.serviceVersion = document.serviceVersion
    this.endpoints = document.endpoints
    this.unchecked = new Set(document.notInDefinitions)
    this.raw = document.definitions
    // Compiled lazily per endpoint; the schema itself is trusted (it is the service's), not validated again.
    // Unoptimised code: an endpoint's first call compiles in half the time (all 262: 1.1 s, 0.49 s),
    // for about 15 ns more a check.
    this.ajv = new Ajv({
      allErrors: true,
      strict: false,
      verbose: true,
      discriminator: true,
      validateSchema: false,
      inlineRefs: false,
      code: { optimize: false },
    })
  }

  /** Every definition prepared, for the wording of problems and a body's nulls: made when first needed. */
  private get definitions(): Readonly<Record<string, Node>> {
    this.prepared ??= prepare(this.raw) as Readonly<Record<string, Node>>
    return this.prepared
  }

  static read(path: string): RequestDefinitions {
    return new RequestDefinitions(readDocument(path))
  }

  /** Whether the definitions list `endpoint` at all, with a definition or as not in them. */
  knows(endpoint: string): boolean {
    return Object.hasOwn(this.endpoints, endpoint)
  }

  /** The request definition's name, or undefined for an endpoint the definitions do not have. */
  requestOf(endpoint: string): string | undefined {
    if (this.unchecked.has(endpoint)) return undefined
    return this.endpoints[endpoint]?.request ?? undefined
  }

  private validator(endpoint: string): ValidateFunction | undefined {
    if (this.compiled.has(endpoint)) return this.compiled.get(endpoint)
    const request = this.requestOf(endpoint)
    const validate = request === undefined ? undefined : this.compile(request)
    if (validate !== undefined) this.compilations++
    this.compiled.set(endpoint, validate)
    return validate
  }

  /**
   * The request's check, compiled against the definitions it reaches alone (9 for ListStacks, at
   * most 94), prepared as ajv reads them: an endpoint's first call neither prepares nor hands ajv
   * the other definitions.
   */
  private compile(request: string): ValidateFunction {
    const id = `svc-${encodeURIComponent(request)}`
    this.ajv.addSchema({ $id: id, definitions: prepare(reachable(this.raw, request)) })
    return this.ajv.compile({ $ref: `${id}#/definitions/${encodeURIComponent(request)}` })
  }

  private resolve(node: Node | undefined): Node | undefined {
    let current = node
    for (let hops = 0; current?.$ref !== undefined && hops < 20; hops++) {
      current = this.definitions[definitionName(current.$ref)]
    }
    return current
  }

  check(endpoint: string, body: Json): Checked {
    const validate = this.validator(endpoint)
    if (validate === undefined) return { _tag: "Unchecked", body }
    const request = this.definitions[this.requestOf(endpoint) as string]
    const sent = hasNull(body) ? (this.withoutNulls(request, body) as Json) : body
    if (validate(sent)) return { _tag: "Valid", body: sent }
    const respelled = respell(validate, sent)
    if (respelled !== undefined) return respelled
    const aliased = this.aliased(endpoint, validate, sent)
    if (aliased !== undefined) return aliased
    // The errors of the body as given, not of the last one tried.
    validate(sent)
    return {
      _tag: "Invalid",
      problems: problems(this.definitions, validate.errors ?? []),
      accepted: this.accepted(endpoint),
    }
  }

  /** Which key of a call's params is read as which at `endpoint` (KeyAliases.ts): none, or one. */
  aliases(endpoint: string): ReadonlyArray<KeyAliases.Alias> {
    const source = { definitions: this.definitions, requestOf: (e: string) => this.requestOf(e) }
    this.own ??= KeyAliases.ownKeys(source)
    return KeyAliases.aliasesFor(source, endpoint, this.own)
  }

  /** A body refused as given, accepted once a resource's key is read as the endpoint's (and respelled), said so. */
  private aliased(endpoint: string, validate: ValidateFunction, body: Json): Checked | undefined {
    const read = KeyAliases.read(this.aliases(endpoint), body)
    if (read === undefined) return undefined
    const said = `[svc-mcp: read ${read.said.join(", ")}]`
    if (validate(read.body)) return { _tag: "Valid", body: read.body, respelled: said }
    const respelled = respell(validate, read.body)
    return respelled?._tag === "Valid"
      ? { ...respelled, respelled: `${said}\n${respelled.respelled ?? ""}`.trimEnd() }
      : undefined
  }

  /** A JSON null for a field its object does not require counts as absent, and is left out of the body. */
  private withoutNulls(schema: Node | undefined, value: unknown): unknown {
    const node = this.resolve(schema)
    if (node === undefined || value === null || typeof value !== "object") return value
    if (Array.isArray(value))
      return node.items === undefined ? value : value.map((v) => this.withoutNulls(node.items, v))
    const record = value as Json
    const branches = node.anyOf ?? node.oneOf
    if (branches !== undefined && isTagged(branches)) {
      const branch = branches.find((b) => b.properties?.type?.const === record.type)
      return branch === undefined ? value : this.withoutNulls(branch, value)
    }
    const properties = node.properties
    // A free-form document (a database filter) keeps its nulls: there they mean something.
    if (properties === undefined) return value
    const required = new Set(node.required ?? [])
    return Object.fromEntries(
      Object.entries(record)
        .filter(([key, field]) => !(field === null && Object.hasOwn(properties, key) && !required.has(key)))
        .map(([key, field]) => [
          key,
          Object.hasOwn(properties, key) ? this.withoutNulls(properties[key], field) : field,
        ]),
    )
  }

  /** The endpoint's params as a compact TypeScript-like type, e.g. `{stack|id|name: string, services: string[], tail?: number}`. */
  accepted(endpoint: string): string {
    return accepted(this.definitions, this.requestOf(endpoint))
  }

  /** The endpoint's answer, compact as its params are, or undefined when the definitions do not have it. */
  answer(endpoint: string): string | undefined {
    return answerType(this.definitions, this.endpoints[endpoint]?.response)
  }

  /** A shape the endpoint's params or answer name, compact as they are (those of the endpoint's definitions). */
  shape(_endpoint: string, name: string): string | undefined {
    return shapeType(this.definitions, name)
  }

  /** The shapes `rendering` names, among the endpoint's definitions. */
  named(_endpoint: string, rendering: string): ReadonlyArray<string> {
    return namedIn(this.definitions, rendering)
  }
}

/** What the params check reads of the definitions. */
export type Reader = Pick<RequestDefinitions, "check" | "accepted" | "answer" | "requestOf" | "shape" | "named">

/**
 * `first`, and for the endpoints it does not list, `next`, read when one is
 * first asked for: the shipped definitions of the interface's endpoints, then
 * those of every endpoint (SVC_REACH=all), so that the interface's are checked
 * as ever and a start with the default reach reads only the smaller file.
 */
export const beyond = (first: RequestDefinitions, next: () => RequestDefinitions): Reader => {
  let second: RequestDefinitions | undefined
  const pick = (endpoint: string): RequestDefinitions => {
    if (first.knows(endpoint)) return first
    second ??= next()
    return second
  }
  return {
    check: (endpoint, body) => pick(endpoint).check(endpoint, body),
    accepted: (endpoint) => pick(endpoint).accepted(endpoint),
    answer: (endpoint) => pick(endpoint).answer(endpoint),
    requestOf: (endpoint) => pick(endpoint).requestOf(endpoint),
    shape: (endpoint, name) => pick(endpoint).shape(endpoint, name),
    named: (endpoint, rendering) => pick(endpoint).named(endpoint, rendering),
  }
}

/** The definitions `request` reaches through `$ref`, itself among them, as the file has them. */
const reachable = (definitions: Readonly<Record<string, unknown>>, request: string): Record<string, unknown> => {
  const reached: Record<string, unknown> = {}
  const names = [request]
  const values: Array<unknown> = []
  for (let name = names.pop(); name !== undefined; name = names.pop()) {
    if (Object.hasOwn(reached, name) || !Object.hasOwn(definitions, name)) continue
    reached[name] = definitions[name]
    values.push(definitions[name])
    for (let value = values.pop(); value !== undefined; value = values.pop()) {
      if (typeof value !== "object" || value === null) continue
      for (const [key, field] of Object.entries(value)) {
        if (key === "$ref" && typeof field === "string") names.push(definitionName(field))
        else values.push(field)
      }
    }
  }
  return reached
}

/** Whether a null is anywhere in `value`; without recursion, as params may nest as deep as a client likes. */
const hasNull = (value: unknown): boolean => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const next = stack.pop()
    if (next === null) return true
    if (typeof next === "object") stack.push(...(Array.isArray(next) ? next : Object.values(next)))
  }
  return false
}

/** More respellings than this in one body, and it is refused as it came. */
const MOST_RESPELLED = 8

/** `value` with `replacement` at the JSON pointer `pointer`, copied along the way. */
const withAt = (value: unknown, path: ReadonlyArray<string>, replacement: unknown): unknown => {
  const [first, ...rest] = path
  if (first === undefined) return replacement
  const key = first.replace(/~1/g, "/").replace(/~0/g, "~")
  if (Array.isArray(value)) return value.map((item, i) => (String(i) === key ? withAt(item, rest, replacement) : item))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === key ? withAt(v, rest, replacement) : v]))
}

/**
 * A body whose only faults are enum values in another case than the service's (`green` for
 * `Green`), each matching one member: sent as the service spells them, and said so. Undefined
 * where anything else is wrong.
 */
const respell = (validate: ValidateFunction, body: Json): Checked | undefined => {
  let fixed: unknown = body
  const said: Array<string> = []
  for (let round = 0; round < MOST_RESPELLED; round++) {
    const errors = validate.errors ?? []
    const fix = errors.find((error) => error.keyword === "enum" && typeof error.data === "string")
    if (fix === undefined) return undefined
    const given = fix.data as string
    const members = (fix.params as { allowedValues?: ReadonlyArray<unknown> }).allowedValues ?? []
    const matching = members.filter((m) => typeof m === "string" && m.toLowerCase() === given.toLowerCase())
    if (matching.length !== 1) return undefined
    fixed = withAt(fixed, fix.instancePath.split("/").slice(1), matching[0])
    const where = fix.instancePath.replace(/\/(\d+)(?=\/|$)/g, "[$1]").replaceAll("/", ".")
    said.push(`params${where} ${JSON.stringify(given)} as ${JSON.stringify(matching[0])}`)
    if (validate(fixed))
      return {
        _tag: "Valid",
        body: fixed as Json,
        respelled: `[svc-mcp: sent as the service spells it: ${said.join(", ")}]`,
      }
  }
  return undefined
}
