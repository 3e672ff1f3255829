/**
 * The service's published request definitions (spec/service-api.schema.json):
 * where the file is, its version, and how to read the shapes in it.
 */
import * as Either from "effect/Either"

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export
// (node:fs's `promises` alone loads readline), which a start pays for.
const Fs = process.getBuiltinModule("node:fs")
const { fileURLToPath } = process.getBuiltinModule("node:url")

export type Json = Readonly<Record<string, unknown>>
export type Node = Readonly<Record<string, unknown>> & {
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

export interface Document {
  readonly serviceVersion: string
  readonly notInDefinitions: ReadonlyArray<string>
  readonly endpoints: Readonly<Record<string, { readonly request: string | null; readonly response?: string | null }>>
  readonly definitions: Readonly<Record<string, Node>>
}

/**
 * Relative to this module: two levels up from the bundle's modules (dist/svc-mcp/*.js), three from
 * the library's (dist/Tools/Params/*.js) and the sources' (src/Tools/Params/*.ts).
 */
const CANDIDATES = ["../../spec/service-api.schema.json", "../../../spec/service-api.schema.json"]

/** The definitions file shipped with the package, if it is there. */
export const locate = (): string | undefined =>
  CANDIDATES.map((relative) => fileURLToPath(new URL(relative, import.meta.url))).find((path) => Fs.existsSync(path))

/** The definitions of every endpoint of the service's client (SVC_REACH=all), shipped beside the others, if there. */
export const locateAll = (): string | undefined =>
  CANDIDATES.map((relative) =>
    fileURLToPath(new URL(relative.replace("service-api.schema.json", "service-api-all.schema.json"), import.meta.url)),
  ).find((path) => Fs.existsSync(path))

/** Where `locate` looks, in words, for the error that says they are missing. */
export const searched = (): string => `${CANDIDATES.join(" or ")} from ${fileURLToPath(import.meta.url)}`

/** The definitions' service version, read from the file's head alone: start-up does not parse the whole file. */
export const versionOf = (path: string): string | undefined => {
  const fd = Fs.openSync(path, "r")
  try {
    const head = Buffer.alloc(2048)
    const read = Fs.readSync(fd, head, 0, head.length, 0)
    return /"serviceVersion"\s*:\s*"([^"]+)"/.exec(head.toString("utf8", 0, read))?.[1]
  } finally {
    Fs.closeSync(fd)
  }
}

/** The whole file, parsed: read on the first call that needs it, never at start-up. */
export const readDocument = (path: string): Document => JSON.parse(Fs.readFileSync(path, "utf8")) as Document

/** Why a file cannot serve as the definitions: what is wrong, and what to do. */
export interface Unfit {
  readonly problem: string
  readonly hint: string
}

const SHAPE_HINT =
  "give a file of the shape of spec/service-api.schema.json: serviceVersion, notInDefinitions, endpoints and definitions"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A definitions file an operator gives (SVC_DEFINITIONS), read whole and its
 * shape checked: unlike the shipped file, which the tests hold to its shape, it
 * is not trusted, and a file found wanting at the first call would fail that
 * call instead of the start.
 */
export const inspect = (path: string): Either.Either<Document, Unfit> => {
  let text: string
  try {
    text = Fs.readFileSync(path, "utf8")
  } catch (error) {
    return Either.left({
      problem: `names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      hint: `check the path ${JSON.stringify(path)} and its permissions`,
    })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return Either.left({
      problem: `names a file that is not JSON (${error instanceof Error ? error.message : String(error)})`,
      hint: SHAPE_HINT,
    })
  }
  const unfit = (what: string) => Either.left({ problem: `names a file whose ${what}`, hint: SHAPE_HINT })
  if (!isRecord(parsed)) return unfit("content is not an object")
  const { serviceVersion, notInDefinitions, endpoints, definitions } = parsed
  if (typeof serviceVersion !== "string" || !/^v?\d+\.\d+\.\d+/.test(serviceVersion.trim())) {
    return unfit(`serviceVersion is not a version such as "2.3.2" (${JSON.stringify(serviceVersion) ?? "missing"})`)
  }
  if (
    notInDefinitions !== undefined &&
    !(Array.isArray(notInDefinitions) && notInDefinitions.every((e) => typeof e === "string"))
  ) {
    return unfit("notInDefinitions is not a list of endpoints")
  }
  if (!isRecord(definitions)) return unfit("definitions are not an object")
  if (!isRecord(endpoints)) return unfit("endpoints are not an object")
  for (const [endpoint, entry] of Object.entries(endpoints)) {
    const request = isRecord(entry) ? entry.request : undefined
    if (request === null) continue
    if (typeof request !== "string")
      return unfit(`endpoint ${JSON.stringify(endpoint)} has no request (a name, or null)`)
    // A request named but not defined would fail ajv's compilation at that endpoint's first call.
    if (!isRecord(definitions[request])) {
      return unfit(
        `endpoint ${JSON.stringify(endpoint)} names the request ${JSON.stringify(request)}, which is not among its definitions`,
      )
    }
  }
  return Either.right(parsed as unknown as Document)
}

export const definitionName = (ref: string) => decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1))

/** An anyOf whose branches each require one field: aliases, e.g. `stack`, `id` or `name`. */
export const aliasesOf = (node: Node): ReadonlyArray<string> | undefined => {
  const branches = node.anyOf
  if (branches === undefined || branches.length === 0) return undefined
  const keys = branches.map((b) =>
    Object.keys(b).length === 1 && b.required?.length === 1 ? b.required[0] : undefined,
  )
  return keys.every((k) => k !== undefined) ? (keys as ReadonlyArray<string>) : undefined
}

/** An anyOf of `{type: <const>, params}` objects, as the service's tagged enums are. */
export const isTagged = (branches: ReadonlyArray<Node>) =>
  branches.length > 0 && branches.every((b) => b.properties?.type?.const !== undefined && b.required?.includes("type"))

/**
 * Tagged unions become oneOf with a discriminator: ajv then checks the one
 * branch the `type` names and reports its problems, instead of every branch's.
 */
export const prepare = (value: unknown): unknown => {
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
