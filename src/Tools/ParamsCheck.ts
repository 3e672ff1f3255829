/**
 * Params checked against the service's published request definitions
 * (spec/service-api.schema.json) before anything is sent: the service itself
 * ignores a field it does not know, so a misspelt field would silently do
 * nothing there.
 *
 * The file is read on the first call that needs it, and each endpoint's check
 * is compiled on its first use, so that start-up pays for neither.
 */
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { compare } from "../Service/Versions.js"
import { ConfigError } from "../Settings/Read.js"
import { describe } from "../Shared/JsonShape.js"
import type { Problem } from "./ToolError.js"

type Json = Readonly<Record<string, unknown>>
type Node = Readonly<Record<string, unknown>> & {
  readonly $ref?: string
  readonly type?: string
  readonly properties?: Readonly<Record<string, Node>>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties?: boolean | Node
  readonly items?: Node
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly anyOf?: ReadonlyArray<Node>
  readonly oneOf?: ReadonlyArray<Node>
}

interface Document {
  readonly serviceVersion: string
  readonly notInDefinitions: ReadonlyArray<string>
  readonly endpoints: Readonly<Record<string, { readonly request: string | null }>>
  readonly definitions: Readonly<Record<string, Node>>
}

/** Relative to this module: the bundle's modules are dist/svc-mcp/*.js, the library dist/Tools/*.js, the sources src/Tools/*.ts. */
const CANDIDATES = ["../spec/service-api.schema.json", "../../spec/service-api.schema.json"]

/** The definitions file shipped with the package, if it is there. */
export const locate = (): string | undefined =>
  CANDIDATES.map((relative) => fileURLToPath(new URL(relative, import.meta.url))).find((path) => Fs.existsSync(path))

/** The definitions' service version, read from the file's head alone: start-up does not parse the whole file. */
const versionOf = (path: string): string | undefined => {
  const fd = Fs.openSync(path, "r")
  try {
    const head = Buffer.alloc(2048)
    const read = Fs.readSync(fd, head, 0, head.length, 0)
    return /"serviceVersion"\s*:\s*"([^"]+)"/.exec(head.toString("utf8", 0, read))?.[1]
  } finally {
    Fs.closeSync(fd)
  }
}

export type Checked =
  /** The body to send: as given, less the nulls that stand for absent optional fields. */
  | { readonly _tag: "Valid"; readonly body: Json }
  | { readonly _tag: "Invalid"; readonly problems: ReadonlyArray<Problem>; readonly accepted: string }
  /** No definition for this endpoint, or the check is off: sent as given. */
  | { readonly _tag: "Unchecked"; readonly body: Json }

const definitionName = (ref: string) => decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1))

/** An anyOf whose branches each require one field: aliases, e.g. `stack`, `id` or `name`. */
const aliasesOf = (node: Node): ReadonlyArray<string> | undefined => {
  const branches = node.anyOf
  if (branches === undefined || branches.length === 0) return undefined
  const keys = branches.map((b) =>
    Object.keys(b).length === 1 && b.required?.length === 1 ? b.required[0] : undefined,
  )
  return keys.every((k) => k !== undefined) ? (keys as ReadonlyArray<string>) : undefined
}

/** An anyOf of `{type: <const>, params}` objects, as the service's tagged enums are. */
const isTagged = (branches: ReadonlyArray<Node>) =>
  branches.length > 0 && branches.every((b) => b.properties?.type?.const !== undefined && b.required?.includes("type"))

/**
 * Tagged unions become oneOf with a discriminator: ajv then checks the one
 * branch the `type` names and reports its problems, instead of every branch's.
 */
const prepare = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(prepare)
  if (typeof value !== "object" || value === null) return value
  const entries = Object.entries(value).map(([k, v]) => [k, prepare(v)] as const)
  const node = Object.fromEntries(entries) as Record<string, unknown>
  const anyOf = node.anyOf as ReadonlyArray<Node> | undefined
  if (anyOf !== undefined && isTagged(anyOf)) {
    delete node.anyOf
    node.oneOf = anyOf
    node.discriminator = { propertyName: "type" }
    node.type = "object"
  }
  return node
}

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

/** Edit distance, for "did you mean": only between short field names. */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length] as number
}

const closest = (name: string, candidates: ReadonlyArray<string>): string | undefined => {
  const lower = name.toLowerCase()
  let best: string | undefined
  let bestScore = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const score = candidate.toLowerCase() === lower ? 0 : distance(lower, candidate.toLowerCase())
    if (score < bestScore) {
      best = candidate
      bestScore = score
    }
  }
  return best !== undefined && bestScore <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined
}

const list = (values: ReadonlyArray<unknown>) => values.map((v) => JSON.stringify(v)).join(", ")

/** The service's definitions, loaded, with one compiled check per endpoint. */
export class RequestDefinitions {
  private readonly ajv: Ajv
  private readonly compiled = new Map<string, ValidateFunction | undefined>()
  /** How many endpoint checks have been compiled: one per endpoint used, however many calls. */
  compilations = 0
  private readonly unchecked: ReadonlySet<string>
  readonly serviceVersion: string
  private readonly definitions: Readonly<Record<string, Node>>
  private readonly endpoints: Document["endpoints"]

  constructor(document: Document) {
    this.serviceVersion = document.serviceVersion
    this.endpoints = document.endpoints
    this.unchecked = new Set(document.notInDefinitions)
    // One copy serves ajv, the rendering and the null stripping alike.
    this.definitions = prepare(document.definitions) as Readonly<Record<string, Node>>
    // Compiled lazily per endpoint; the schema itself is trusted (it is the service's), not validated again.
    this.ajv = new Ajv({
      allErrors: true,
      strict: false,
      verbose: true,
      discriminator: true,
      validateSchema: false,
      inlineRefs: false,
    })
    this.ajv.addSchema({ $id: "svc", definitions: this.definitions })
  }

  static read(path: string): RequestDefinitions {
    return new RequestDefinitions(JSON.parse(Fs.readFileSync(path, "utf8")) as Document)
  }

  /** The request definition's name, or undefined for an endpoint the definitions do not have. */
  requestOf(endpoint: string): string | undefined {
    if (this.unchecked.has(endpoint)) return undefined
    return this.endpoints[endpoint]?.request ?? undefined
  }

  private validator(endpoint: string): ValidateFunction | undefined {
    if (this.compiled.has(endpoint)) return this.compiled.get(endpoint)
    const request = this.requestOf(endpoint)
    const validate =
      request === undefined ? undefined : this.ajv.compile({ $ref: `svc#/definitions/${encodeURIComponent(request)}` })
    if (validate !== undefined) this.compilations++
    this.compiled.set(endpoint, validate)
    return validate
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
    return { _tag: "Invalid", problems: this.problems(validate.errors ?? []), accepted: this.accepted(endpoint) }
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

  private problems(errors: ReadonlyArray<ErrorObject>): ReadonlyArray<Problem> {
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
      const problem = this.problem(error, aliased)
      if (problem !== undefined) problems.push(problem)
    }
    return problems
  }

  private problem(error: ErrorObject, aliased: ReadonlySet<string>): Problem | undefined {
    const parent = error.parentSchema as Node | undefined
    const params = error.params as Record<string, unknown>
    switch (error.keyword) {
      case "required": {
        const missing = String(params.missingProperty)
        if (aliased.has(`${error.instancePath}/${missing}`)) return undefined
        const type = this.render(parent?.properties?.[missing], 1, new Set())
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

  /** The endpoint's params as a compact TypeScript-like type, e.g. `{stack|id|name: string, services: string[], tail?: number}`. */
  accepted(endpoint: string): string {
    const request = this.requestOf(endpoint)
    return request === undefined
      ? "any object (no published definition)"
      : this.render({ $ref: `#/${request}` }, 0, new Set())
  }

  private render(schema: Node | undefined, depth: number, seen: ReadonlySet<string>): string {
    if (schema === undefined) return "any"
    if (schema.$ref !== undefined) {
      const name = definitionName(schema.$ref)
      const target = this.definitions[name]
      // A definition inside itself (recursive types) is shown by name.
      if (target === undefined || seen.has(name)) return name
      return this.render(target, depth, new Set([...seen, name]))
    }
    if (schema.enum !== undefined) return schema.enum.map((v) => JSON.stringify(v)).join(" | ")
    if (schema.const !== undefined) return JSON.stringify(schema.const)
    const branches = schema.oneOf ?? (aliasesOf(schema) === undefined ? schema.anyOf : undefined)
    // A tagged union too deep or too wide to spell out: its tags, at least (a procedure's executions).
    if (branches !== undefined && isTagged(branches) && (depth >= MAX_DEPTH || branches.length > 8)) {
      const tags = branches.map((b) => JSON.stringify(b.properties?.type?.const)).join(" | ")
      return `{type: ${tags}, params: {...}}`
    }
    if (branches !== undefined) return branches.map((b) => this.render(b, depth, seen)).join(" | ")
    if (schema.type === "array") {
      const item = this.render(schema.items, depth, seen)
      return item.includes(" | ") && !item.startsWith("{") ? `(${item})[]` : `${item}[]`
    }
    if (schema.type === "object" || schema.properties !== undefined) {
      const properties = schema.properties
      if (properties === undefined) {
        const values = schema.additionalProperties
        return typeof values === "object" ? `{[key: string]: ${this.render(values, depth + 1, seen)}}` : "{}"
      }
      if (depth >= MAX_DEPTH) return "{...}"
      const required = new Set(schema.required ?? [])
      const aliases = aliasesOf(schema) ?? []
      const fields: Array<string> = []
      for (const [key, field] of Object.entries(properties)) {
        if (aliases.includes(key) && key !== aliases[0]) continue
        const type = this.render(field, depth + 1, seen)
        if (key === aliases[0]) fields.push(`${aliases.join("|")}: ${type}`)
        else fields.push(`${key}${required.has(key) ? "" : "?"}: ${type}`)
      }
      return `{${fields.join(", ")}}`
    }
    return schema.type ?? "any"
  }
}

/** Deep enough for a config's nested objects; deeper ones (a procedure's stages) show as `{...}`. */
const MAX_DEPTH = 4

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`)

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

export interface ParamsCheckShape {
  /** Which definitions are in force, in a phrase for the startup line and `check`. */
  readonly inForce: string
  readonly check: (endpoint: string, body: Json) => Checked
  /** The endpoint's params, compact, or undefined when the check is off. */
  readonly describe: (endpoint: string) => { readonly accepted: string; readonly checked: boolean } | undefined
}

export class ParamsCheck extends Context.Tag("svc-mcp/ParamsCheck")<ParamsCheck, ParamsCheckShape>() {}

const off: ParamsCheckShape = {
  inForce: "params sent unchecked (SVC_CHECK_PARAMS=off)",
  check: (_endpoint, body) => ({ _tag: "Unchecked", body }),
  // Nothing is refused, but an assistant may still ask what the shipped definitions say.
  describe: (endpoint) => {
    const path = locate()
    const version = path === undefined ? undefined : versionOf(path)
    return path === undefined || version === undefined ? undefined : fromFile(path, version).describe(endpoint)
  },
}

/** The check against the definitions file at `path`, read on the first call that needs it. */
const loaded = new Map<string, RequestDefinitions>()

export const fromFile = (path: string, version: string): ParamsCheckShape => {
  const definitions = () => {
    let d = loaded.get(path)
    if (d === undefined) {
      d = RequestDefinitions.read(path)
      loaded.set(path, d)
    }
    return d
  }
  return {
    inForce: `params checked against the service's definitions ${version}`,
    check: (endpoint, body) => definitions().check(endpoint, body),
    describe: (endpoint) => {
      const d = definitions()
      return { accepted: d.accepted(endpoint), checked: d.requestOf(endpoint) !== undefined }
    },
  }
}

const missing = () =>
  new ConfigError({
    variable: "SVC_CHECK_PARAMS",
    problem: `is on, but the service's definitions are not installed (${CANDIDATES.join(" or ")} from ${fileURLToPath(import.meta.url)})`,
    hint: "reinstall svc-mcp, or set SVC_CHECK_PARAMS=off to send params unchecked",
  })

/** The check with the definitions shipped beside this module. */
export const shipped: Effect.Effect<ParamsCheckShape, ConfigError> = Effect.suspend(() => {
  const path = locate()
  const version = path === undefined ? undefined : versionOf(path)
  return path === undefined || version === undefined ? Effect.fail(missing()) : Effect.succeed(fromFile(path, version))
})

/** SVC_CHECK_PARAMS: `on` (the default) or `off`, for a service newer than the definitions. */
export const load: Effect.Effect<ParamsCheckShape, ConfigError> = Effect.gen(function* () {
  const raw = yield* Effect.orDie(Config.option(Config.string("SVC_CHECK_PARAMS")))
  const text = Option.getOrElse(raw, () => "")
    .trim()
    .toLowerCase()
  if (["", "on", "true", "1", "yes"].includes(text)) return yield* shipped
  if (["off", "false", "0", "no"].includes(text)) return off
  return yield* Effect.fail(
    new ConfigError({
      variable: "SVC_CHECK_PARAMS",
      problem: `is ${JSON.stringify(Option.getOrElse(raw, () => ""))}`,
      hint: "use on (the default: params checked against the service's definitions) or off",
    }),
  )
})

export const layer: Layer.Layer<ParamsCheck, ConfigError> = Layer.effect(ParamsCheck, load)

export const layerOff: Layer.Layer<ParamsCheck> = Layer.succeed(ParamsCheck, off)

let fallback: ParamsCheckShape | undefined

/**
 * The check in force: the provided one, else (a program embedding the tools
 * without the layer) the shipped definitions, checked as the server does by default.
 */
export const current: Effect.Effect<ParamsCheckShape> = Effect.flatMap(
  Effect.serviceOption(ParamsCheck),
  (provided) => {
    if (Option.isSome(provided)) return Effect.succeed(provided.value)
    if (fallback !== undefined) return Effect.succeed(fallback)
    return Effect.map(Effect.orDie(shipped), (check) => {
      fallback = check
      return check
    })
  },
)

/** The major.minor of a version: a newer patch of the service keeps its request shapes. */
const minorOf = (version: string) => version.trim().replace(/^v/i, "").split(".").slice(0, 2).join(".")

/**
 * For `svc-mcp check`: which definitions are in force; `serviceVersion`, when
 * known, is compared with them, as a newer service may take fields they lack.
 */
export const step = (
  serviceVersion?: string,
): Effect.Effect<{
  readonly name: string
  readonly status: "ok" | "fail"
  readonly detail: string
  readonly hint?: string
}> =>
  Effect.match(Effect.zip(load, Effect.sync(locate)), {
    onSuccess: ([check, path]) => {
      // The step is named params already: "[ok  ] params   checked against ...".
      const detail = check.inForce.replace(/^params /, "")
      const version = path === undefined ? undefined : versionOf(path)
      const newer =
        serviceVersion !== undefined &&
        version !== undefined &&
        !check.inForce.includes("SVC_CHECK_PARAMS=off") &&
        compare(`${minorOf(serviceVersion)}.0`, `${minorOf(version)}.0`) > 0
      return newer
        ? {
            name: "params",
            status: "ok" as const,
            detail,
            hint: `the service (${serviceVersion}) is newer than these definitions: if it takes a field they lack, the call is refused; then set SVC_CHECK_PARAMS=off`,
          }
        : { name: "params", status: "ok" as const, detail }
    },
    onFailure: (error) => ({
      name: "params",
      status: "fail" as const,
      detail: `${error.variable} ${error.problem}`,
      hint: error.hint,
    }),
  })
