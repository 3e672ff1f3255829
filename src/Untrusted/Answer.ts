/**
 * An answer's untrusted text, as rendering needs it: credentials in it masked
 * (unless SVC_REVEAL_SECRETS), each value fenced for the text content, the
 * paths listed for the result's `_meta`, and what was read, in words, for the
 * guard. String work on the answer alone, and only for the endpoints whose
 * answers can carry untrusted text (Paths.ts); any other answer is untouched.
 */

import type { Pattern } from "./Derive.js"
import { CLOSING, closeCut, fence, header, token } from "./Fence.js"
import { type Found, find, findWith, pointer, replaceAt } from "./Locate.js"
import { mask } from "./Mask.js"
import { readingOf } from "./Reading.js"

export { carries } from "./Locate.js"

/** The key of the paths in a result's `_meta`. */
export const META_KEY = "svc-mcp/untrusted"
/** The MCP trust-annotations extension's key (experimental draft, SEP-1913): `{ untrusted: true }`. */
export const TRUST_ANNOTATIONS_KEY = "io.modelcontextprotocol/trust-annotations"

/**
 * `data` with the credentials in its untrusted values masked; `first` reads each value before,
 * by the definition it was found under and its path (a TOML text's secret variables, Tools/Sync/TomlSecrets.ts).
 */
export const masked = (
  endpoint: string,
  data: unknown,
  first: (text: string, definition: string, path: ReadonlyArray<string | number>) => string = (text) => text,
): unknown => replaceAt(data, find(endpoint, data), (text, at) => mask(first(text, at.definition, at.path)))

/**
 * How many times the output budget an answer's untrusted text may hold before it is cut: what
 * masking and fencing read is bounded, whatever the service sends, while the budget still
 * has the text it cuts its answer from.
 */
export const CAP_TIMES = 4

export interface Capped {
  readonly data: unknown
  /** The untrusted text's length, all of it; the cap, when it was cut. */
  readonly total: number
  readonly cap?: number
}

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
const head = (text: string, max: number) => {
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

/** `data` with its untrusted values, in order, cut to `cap` characters in all: the rest of the answer as it was. */
export const capped = (endpoint: string, data: unknown, cap: number): Capped => {
  // Keys are not cut: a map's keys stay apart, and the values they name are what a process prints at length.
  const found = find(endpoint, data).filter((at) => at.key === undefined)
  let total = 0
  for (const at of found) total += lengthAt(data, at.path)
  if (total <= cap) return { data, total }
  let left = cap
  const cut = replaceAt(data, found, (text) => {
    const kept = text.length <= left ? text : head(text, Math.max(0, left))
    left -= kept.length
    return kept
  })
  return { data: cut, total, cap }
}

/** The length of the string at `path` in `data`. */
const lengthAt = (data: unknown, path: ReadonlyArray<string | number>): number => {
  let value = data
  for (const segment of path) value = (value as Record<string | number, unknown>)[segment]
  return typeof value === "string" ? value.length : 0
}

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
  /** What was read, for the guard; undefined when it opens no window (Reading.ts). */
  readonly read: string | undefined
}

/** The fences of an answer of `endpoint` (as shaped), or undefined when it holds no untrusted text. */
export const fences = (endpoint: string, data: unknown, body: Readonly<Record<string, unknown>>): Fenced | undefined =>
  fencesAt(find(endpoint, data), endpoint, data, body)

/** The fences of an answer of `endpoint` with more of its own beside the service's, at `patterns`. */
export const fencesAlso = (
  endpoint: string,
  patterns: ReadonlyArray<Pattern>,
  data: unknown,
  body: Readonly<Record<string, unknown>>,
): Fenced | undefined =>
  fencesAt(
    patterns.length === 0 ? find(endpoint, data) : [...find(endpoint, data), ...findWith(patterns, data)],
    endpoint,
    data,
    body,
  )

/** The fences of an answer at a glance, whose untrusted values are at `patterns` (its own shape's). */
export const fencesWith = (
  patterns: ReadonlyArray<Pattern>,
  data: unknown,
  body: Readonly<Record<string, unknown>>,
  endpoint: string,
): Fenced | undefined => fencesAt(findWith(patterns, data), endpoint, data, body)

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
    // A key's pointer is its entry's, as is its value's when that is untrusted too: each once.
    paths: (prefix, items) => [
      ...new Set(
        found
          .filter((at) => items === undefined || (typeof at.path[0] === "number" && at.path[0] < items))
          .map((at) => pointer(at.path, prefix)),
      ),
    ],
    read: readingOf(found, body, endpoint),
  }
}

/** The result's `_meta` for an answer with untrusted text. */
export const metaOf = (paths: ReadonlyArray<string>): Readonly<Record<string, unknown>> => ({
  [META_KEY]: paths,
  [TRUST_ANNOTATIONS_KEY]: { untrusted: true },
})
