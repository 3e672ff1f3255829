/**
 * An answer's untrusted text, as rendering needs it: credentials in it masked
 * (unless SVC_REVEAL_SECRETS), each value fenced for the text content, the
 * paths listed for the result's `_meta`, and what was read, in words, for the
 * guard. String work on the answer alone, and only for the endpoints whose
 * answers can carry untrusted text (Paths.ts); any other answer is untouched.
 */

import { CLOSING, closeCut, fence, header, token } from "./Fence.js"
import { RULES } from "./Fields.js"
import { type Found, find, pointer, replaceAt } from "./Locate.js"
import { mask } from "./Mask.js"

export { carries } from "./Locate.js"

/** The key of the paths in a result's `_meta`. */
export const META_KEY = "svc-mcp/untrusted"
/** The MCP trust-annotations extension's key (experimental draft, SEP-1913): `{ untrusted: true }`. */
export const TRUST_ANNOTATIONS_KEY = "io.modelcontextprotocol/trust-annotations"

/** `data` with the credentials in its untrusted values masked. */
export const masked = (endpoint: string, data: unknown): unknown => replaceAt(data, find(endpoint, data), mask)

/** Fields of a call's params that name what it read, most telling first. */
const NAMING = [
  "stack",
  "deployment",
  "server",
  "build",
  "repo",
  "sync",
  "procedure",
  "action",
  "swarm",
  "service",
  "container",
  "image",
  "network",
  "volume",
  "node",
  "task",
  "config",
  "secret",
  "id",
  "name",
]

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text)

/** What the call read, from its params: `stack web, service app`. */
const targetOf = (body: Readonly<Record<string, unknown>>): string =>
  NAMING.flatMap((key) => {
    const value = body[key]
    return typeof value === "string" && value !== "" ? [`${key} ${clip(value)}`] : []
  })
    .slice(0, 3)
    .join(", ")

const nouns = new Map(RULES.map((rule) => [rule.definition, rule.noun]))

/** What was read, in words, for the guard's question: "the logs of stack web". */
const readOf = (found: ReadonlyArray<Found>, body: Readonly<Record<string, unknown>>, endpoint: string): string => {
  const what = [...new Set(found.map((at) => nouns.get(at.definition) ?? "untrusted text"))].join(" and ")
  const target = targetOf(body)
  return target === "" ? `${what} (${endpoint})` : `${what} of ${target}`
}

export interface Fenced {
  /** The answer as its text shows it: each untrusted value fenced. */
  readonly data: unknown
  /** The first line of the text. */
  readonly header: string
  /** What the budget must leave room for: a fence closed after a cut. */
  readonly reserve: number
  /** The cut text made whole again (no half marker, no open fence). */
  readonly closeCut: (kept: string) => string
  /** The untrusted values' JSON Pointers in `shown`, under `prefix`; `items` limits a cut list. */
  readonly paths: (prefix: string, items?: number) => ReadonlyArray<string>
  /** What was read, for the guard. */
  readonly read: string
}

/** The fences of an answer of `endpoint` (as shaped), or undefined when it holds no untrusted text. */
export const fences = (endpoint: string, data: unknown, body: Readonly<Record<string, unknown>>): Fenced | undefined =>
  fencesAt(find(endpoint, data), endpoint, data, body)

/**
 * The fences of `found` in `data`, an answer of `endpoint` to a call with
 * `body`; undefined when there is none, so that an answer of the service's own
 * values alone carries no notice. Where the values come from is said once, in
 * the first line: the fields, and what the call read.
 */
const fencesAt = (
  found: ReadonlyArray<Found>,
  endpoint: string,
  data: unknown,
  body: Readonly<Record<string, unknown>>,
): Fenced | undefined => {
  if (found.length === 0) return undefined
  const id = token()
  const target = targetOf(body)
  const fields = [...new Set(found.map((at) => at.field))].join(", ")
  return {
    data: replaceAt(data, found, (text) => fence(text, id)),
    header: header(id, target === "" ? fields : `${fields} (${target})`),
    reserve: CLOSING.length,
    closeCut: (kept) => closeCut(kept, id),
    paths: (prefix, items) =>
      found
        .filter((at) => items === undefined || (typeof at.path[0] === "number" && at.path[0] < items))
        .map((at) => pointer(at.path, prefix)),
    read: readOf(found, body, endpoint),
  }
}

/** The result's `_meta` for an answer with untrusted text. */
export const metaOf = (paths: ReadonlyArray<string>): Readonly<Record<string, unknown>> => ({
  [META_KEY]: paths,
  [TRUST_ANNOTATIONS_KEY]: { untrusted: true },
})
