/**
 * SVC_MCP_IDENTITIES: which service credentials each signed-in identity acts
 * with. The file names a claim (default `sub`) and maps its values to a
 * credential set: `{"server": true}` (the server's own credentials, the person
 * still named in the audit) or `{"apiKeyFile", "apiSecretFile"}` (that
 * person's own key, read from files as container secrets are mounted), or
 * `{"mint": {"level", "targets"}}` (a key the server mints for the person at
 * the service, with exactly those permissions: Mint/). Among
 * several services (SVC_SERVICES) an entry may instead map each service name to
 * a credential set. `*` matches any identity without an entry of its own.
 *
 * An identity is its issuer and its claim's value. With one issuer
 * (SVC_MCP_OAUTH_ISSUER) an entry is named by the value alone, as it always
 * was. With several, each entry names its issuer: `"<issuer>#<value>"` (an
 * issuer's URL has no `#`), or `"<issuer>#*"` for anyone of that issuer; `*`
 * alone stands for anyone of any of them. A person is then named so wherever
 * they are named: their minted key's record, their service user, the audit.
 *
 * Parsed whole before it is used: a file with any fault is refused with one
 * line naming where, at start (exit 2) and on SIGHUP (the previous mapping
 * stays in force).
 */
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import { type Grant, LEVELS, type Level, type Target } from "../Call/Context.js"
import * as Kinds from "../Kinds/Kinds.js"

const Fs = process.getBuiltinModule("node:fs")

/** A key and secret read from the mapped files. */
export interface KeyPair {
  readonly key: string
  readonly secret: Redacted.Redacted<string>
}

/** What one identity sends to a service: the server's own credentials, its own key, or a key minted for it. */
type Credentials =
  | { readonly _tag: "Server" }
  | { readonly _tag: "Key"; readonly pair: KeyPair }
  | { readonly _tag: "Mint"; readonly grant: Grant }

/** One entry: one credential set for every service, or one per service name. */
export type Entry =
  | { readonly _tag: "All"; readonly credentials: Credentials }
  | { readonly _tag: "PerService"; readonly services: ReadonlyMap<string, Credentials> }

export interface Identities {
  /** The token claim whose value names a person. */
  readonly claim: string
  readonly entries: ReadonlyMap<string, Entry>
  /** The issuers (SVC_MCP_OAUTH_ISSUER) when there are several: names then carry theirs. */
  readonly issuers?: ReadonlyArray<string>
}

const DEFAULT_CLAIM = "sub"

/** Without SVC_MCP_IDENTITIES: anyone signed in acts with the server's own credentials, named by `sub`. */
export const everyoneAsServer: Identities = {
  claim: DEFAULT_CLAIM,
  entries: new Map([["*", { _tag: "All", credentials: { _tag: "Server" } }]]),
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const readSecretFile = (path: unknown, where: string): Either.Either<string, string> => {
  if (typeof path !== "string" || path.trim() === "") return Either.left(`${where} is not a file path`)
  try {
    const text = Fs.readFileSync(path, "utf8").replace(/\r?\n$/, "")
    return text.trim() === "" ? Either.left(`${where} names an empty file`) : Either.right(text.trim())
  } catch (error) {
    return Either.left(
      `${where} names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    )
  }
}

const CREDENTIAL_KEYS = ["server", "apiKeyFile", "apiSecretFile", "mint"]

/** The longest resource id or name a target may give; the service's own are far shorter. */
const MAX_TARGET = 256
/** The most targets one entry may name. */
const MAX_TARGETS = 256

const targetOf = (value: unknown, where: string): Either.Either<Target, string> => {
  if (typeof value !== "string") return Either.left(`${where} is not a string like "Stack:web"`)
  const colon = value.indexOf(":")
  const type = colon < 0 ? value : value.slice(0, colon)
  const id = colon < 0 ? "" : value.slice(colon + 1).trim()
  if (!Kinds.RESOURCE_TYPES.includes(type)) {
    return Either.left(
      `${where} names the resource type ${JSON.stringify(type.slice(0, 40))}, which the service does not have (it has ${Kinds.RESOURCE_TYPES.join(", ")})`,
    )
  }
  if (id === "" || id.length > MAX_TARGET) return Either.left(`${where} names no resource after "${type}:"`)
  return Either.right({ type, id })
}

/** `{"level": "Read" | "Execute" | "Write", "targets"?: ["Stack:web", ...]}`, and nothing else. */
const grantOf = (value: unknown, where: string): Either.Either<Grant, string> => {
  if (!isRecord(value)) return Either.left(`${where} is not an object like {"level": "Read"}`)
  const unknown = Object.keys(value).find((key) => key !== "level" && key !== "targets")
  if (unknown !== undefined) return Either.left(`${where} has an unknown field ${JSON.stringify(unknown)}`)
  if (typeof value.level !== "string" || !(LEVELS as ReadonlyArray<string>).includes(value.level)) {
    const given = typeof value.level === "string" ? JSON.stringify(value.level.slice(0, 40)) : "none"
    return Either.left(
      `${where}.level is ${given}, a level the service does not know; give one of ${LEVELS.join(", ")}`,
    )
  }
  const level = value.level as Level
  if (value.targets === undefined) return Either.right({ level, targets: [] })
  if (!Array.isArray(value.targets) || value.targets.length === 0 || value.targets.length > MAX_TARGETS) {
    return Either.left(`${where}.targets is not a list of 1 to ${MAX_TARGETS} resources like "Stack:web"`)
  }
  const targets: Array<Target> = []
  for (const [index, item] of value.targets.entries()) {
    const target = targetOf(item, `${where}.targets[${index}]`)
    if (Either.isLeft(target)) return Either.left(target.left)
    if (!targets.some((t) => t.type === target.right.type && t.id === target.right.id)) targets.push(target.right)
  }
  return Either.right({ level, targets })
}

const credentialsOf = (value: Record<string, unknown>, where: string): Either.Either<Credentials, string> => {
  const unknown = Object.keys(value).find((key) => !CREDENTIAL_KEYS.includes(key))
  if (unknown !== undefined) return Either.left(`${where} has an unknown field ${JSON.stringify(unknown)}`)
  if (value.mint !== undefined) {
    if (Object.keys(value).length > 1) return Either.left(`${where} has mint beside other credentials`)
    return Either.map(grantOf(value.mint, `${where}.mint`), (grant) => ({ _tag: "Mint" as const, grant }))
  }
  if (value.server !== undefined) {
    if (value.server !== true) return Either.left(`${where}.server is not true`)
    if (value.apiKeyFile !== undefined || value.apiSecretFile !== undefined) {
      return Either.left(`${where} has both server and apiKeyFile/apiSecretFile`)
    }
    return Either.right({ _tag: "Server" })
  }
  if (value.apiKeyFile === undefined || value.apiSecretFile === undefined) {
    return Either.left(`${where} needs "server": true, or both apiKeyFile and apiSecretFile`)
  }
  return Either.flatMap(readSecretFile(value.apiKeyFile, `${where}.apiKeyFile`), (key) =>
    Either.map(readSecretFile(value.apiSecretFile, `${where}.apiSecretFile`), (secret) => ({
      _tag: "Key" as const,
      pair: { key, secret: Redacted.make(secret) },
    })),
  )
}

const entryOf = (value: unknown, where: string, services: ReadonlyArray<string>): Either.Either<Entry, string> => {
  if (!isRecord(value)) return Either.left(`${where} is not an object`)
  if (Object.keys(value).some((key) => CREDENTIAL_KEYS.includes(key)) || services.length === 0) {
    return Either.map(credentialsOf(value, where), (credentials) => ({ _tag: "All" as const, credentials }))
  }
  const map = new Map<string, Credentials>()
  for (const [name, set] of Object.entries(value)) {
    if (!services.includes(name)) {
      return Either.left(`${where} names the service ${JSON.stringify(name)}, which SVC_SERVICES does not`)
    }
    if (!isRecord(set)) return Either.left(`${where}.${name} is not an object`)
    const credentials = credentialsOf(set, `${where}.${name}`)
    if (Either.isLeft(credentials)) return Either.left(credentials.left)
    // A minted key is made at each service with that service's own admin: one grant for all of them.
    if (credentials.right._tag === "Mint") return Either.left(`${where}.${name}: mint is given once, for every service`)
    map.set(name, credentials.right)
  }
  if (map.size === 0) return Either.left(`${where} is empty`)
  return Either.right({ _tag: "PerService", services: map })
}

/** The issuer an entry's name (or a person's) starts with, `<issuer>#`, among several. */
const issuerOf = (name: string, issuers: ReadonlyArray<string>): string | undefined =>
  issuers.find((issuer) => name.startsWith(`${issuer}#`))

/** An entry's name as people are named: with one issuer, an `<issuer>#` before it is dropped; with several, it is needed. */
const keyOf = (name: string, issuers: ReadonlyArray<string>): Either.Either<string, string> => {
  const issuer = issuerOf(name, issuers)
  if (issuers.length <= 1) return Either.right(issuer === undefined ? name : name.slice(issuer.length + 1))
  if (issuer !== undefined || name === "*") return Either.right(name)
  return Either.left(
    `identities[${JSON.stringify(name)}] names no issuer: with several issuers (SVC_MCP_OAUTH_ISSUER) each entry is "<issuer>#<claim value>", e.g. ${JSON.stringify(`${issuers[0]}#${name}`)}, or "*" for anyone`,
  )
}

/**
 * The mapping a file's text gives, or the first fault in it. `services` are SVC_SERVICES' names
 * (none: one service); `issuers` SVC_MCP_OAUTH_ISSUER's.
 */
export const parse = (
  text: string,
  services: ReadonlyArray<string> = [],
  issuers: ReadonlyArray<string> = [],
): Either.Either<Identities, string> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return Either.left(`is not JSON (${error instanceof Error ? error.message : String(error)})`)
  }
  if (!isRecord(json)) return Either.left("is not a JSON object")
  const unknown = Object.keys(json).find((key) => key !== "claim" && key !== "identities")
  if (unknown !== undefined) return Either.left(`has an unknown field ${JSON.stringify(unknown)}`)
  const claim = json.claim ?? DEFAULT_CLAIM
  if (typeof claim !== "string" || claim.trim() === "") return Either.left("has a claim that is not a claim name")
  if (!isRecord(json.identities)) return Either.left('has no "identities" object')
  const entries = new Map<string, Entry>()
  for (const [name, value] of Object.entries(json.identities)) {
    const key = keyOf(name, issuers)
    if (Either.isLeft(key)) return Either.left(key.left)
    const entry = entryOf(value, `identities[${JSON.stringify(name)}]`, services)
    if (Either.isLeft(entry)) return Either.left(entry.left)
    entries.set(key.right, entry.right)
  }
  return Either.right({ claim: claim.trim(), entries, ...(issuers.length > 1 ? { issuers } : {}) })
}

/** Reads and parses the file at `path`. */
export const load = (
  path: string,
  services: ReadonlyArray<string> = [],
  issuers: ReadonlyArray<string> = [],
): Either.Either<Identities, string> => {
  let text: string
  try {
    text = Fs.readFileSync(path, "utf8")
  } catch (error) {
    return Either.left(`names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
  }
  return parse(text, services, issuers)
}

/** How a person is named: their claim's value, after their issuer's URL and `#` when there are several issuers. */
export const nameOf = (identities: Identities, issuer: string, value: string): string =>
  (identities.issuers?.length ?? 0) > 1 ? `${issuer}#${value}` : value

/** The entry a person named `name` (`nameOf`) has: their own, else their issuer's `*`, else `*`'s, else none. */
export const entryFor = (identities: Identities, name: string): Entry | undefined => {
  const issuer = issuerOf(name, identities.issuers ?? [])
  return (
    identities.entries.get(name) ??
    (issuer === undefined ? undefined : identities.entries.get(`${issuer}#*`)) ??
    identities.entries.get("*")
  )
}
