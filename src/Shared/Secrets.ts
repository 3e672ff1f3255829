/**
 * Keeps secret values out of anything shown: results, errors, logs. A secret
 * is found as it is, in another case, JSON-escaped (`\uXXXX`, every character
 * or some), URL-encoded (`%XX`, `+` for a space) and in base64 (standard or
 * URL-safe, at any of the three alignments inside a longer base64 text, with
 * or without padding). Each secret's forms are worked out once; a text is then
 * read in one pass per view (as it is, and decoded where it holds an escape).
 */
import * as ExpiringMap from "./ExpiringMap.js"

export const REDACTED = "[redacted]"

/**
 * Values shorter than this are not scrubbed: replacing a two-letter password
 * everywhere would mangle ordinary text while hiding nothing.
 */
const MIN_SECRET_LENGTH = 4

/** Lowercases without changing the length, so that positions still match the text. */
const foldUnit = (unit: string): string => {
  const lower = unit.toLowerCase()
  return lower.length === 1 ? lower : unit
}

const fold = (text: string): string => {
  const lower = text.toLowerCase()
  return lower.length === text.length ? lower : text.replace(/[\s\S]/gu, foldUnit)
}

/** In a decoded view `+` may have been a space or a plus (URL-encoding): both read as a space. */
const foldDecoded = (text: string): string => fold(text).replaceAll("+", " ")

interface Forms {
  readonly folded: string
  readonly decoded: string
  /** The base64 runs that only this secret's bytes decide, standard and URL-safe. */
  readonly base64: ReadonlyArray<string>
}

/** The base64 characters of the secret's bytes after `pad` other bytes, left out those its neighbours decide. */
const base64Core = (bytes: Uint8Array, pad: number): string => {
  const length = pad + bytes.length
  const text = Buffer.concat([Buffer.alloc(pad), bytes])
    .toString("base64")
    .replace(/=+$/, "")
  const skip = [0, 2, 3][pad] as number
  return text.slice(skip, Math.floor(length / 3) * 4 + (length % 3))
}

const formsOf = (secret: string): Forms => {
  const bytes = Buffer.from(secret, "utf8")
  const standard = [0, 1, 2].map((pad) => base64Core(bytes, pad)).filter((core) => core.length >= MIN_SECRET_LENGTH)
  const urlSafe = standard.map((core) => core.replaceAll("+", "-").replaceAll("/", "_"))
  return {
    folded: fold(secret),
    decoded: foldDecoded(secret),
    base64: [...new Set([...standard, ...urlSafe])],
  }
}

// Secrets change rarely (a login's token, a caller's key), and the same few come back on every call.
const MAX_CACHED = 256
// Kept until the bound forgets them (no time passes for them: 0).
const cache = ExpiringMap.make<string, Forms>({ ttlMs: Number.POSITIVE_INFINITY, most: MAX_CACHED })

const formsFor = (secret: string): Forms => {
  const known = cache.get(secret, 0)
  if (known !== undefined) return known
  const forms = formsOf(secret)
  cache.set(secret, forms, 0)
  return forms
}

const isHex = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102)
const hexAt = (text: string, at: number, count: number) => {
  for (let i = at; i < at + count; i++) if (!isHex(text.charCodeAt(i))) return false
  return true
}
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
}

/** A run of `%XX` bytes from `at`: the characters they encode, and where the run ends. */
const percentRun = (text: string, at: number): { readonly chars: string; readonly end: number } => {
  let end = at
  while (text.charCodeAt(end) === 37 && hexAt(text, end + 1, 2)) end += 3
  // The run's hex digits, read as bytes at once: no array of them.
  return { chars: Buffer.from(text.slice(at, end).replaceAll("%", ""), "hex").toString("utf8"), end }
}

/** An escape of `at` (JSON's or URL-encoding's): what it decodes to, and where it ends; undefined for none. */
const escapeAt = (
  text: string,
  at: number,
  url: boolean,
): { readonly chars: string; readonly end: number } | undefined => {
  const next = text[at + 1] ?? ""
  if (url) return hexAt(text, at + 1, 2) ? percentRun(text, at) : undefined
  if (next === "u" && hexAt(text, at + 2, 4)) {
    return { chars: String.fromCharCode(Number.parseInt(text.slice(at + 2, at + 6), 16)), end: at + 6 }
  }
  const simple = SIMPLE_ESCAPES[next]
  return simple === undefined ? undefined : { chars: simple, end: at + 2 }
}

/**
 * The text with its JSON escapes decoded, or its URL-encoding (the two apart: a JSON-escaped
 * secret may hold what reads as a `%XX`). Built from slices, in one pass from escape to escape;
 * where each escape stands in both is kept, four numbers an escape (`map`), from which a place of
 * the view is found in the text: no array as long as the text.
 */
const decodedView = (text: string, url: boolean) => {
  const parts: Array<string> = []
  // Per escape: where it starts in the view, its span in the text, and its length in the view.
  const map: Array<number> = []
  const mark = url ? "%" : "\\"
  let copied = 0
  let length = 0
  for (let at = text.indexOf(mark); at !== -1; ) {
    const decoded = escapeAt(text, at, url)
    if (decoded === undefined) {
      at = text.indexOf(mark, at + 1)
      continue
    }
    parts.push(text.slice(copied, at), decoded.chars)
    length += at - copied
    map.push(length, at, decoded.end, decoded.chars.length)
    length += decoded.chars.length
    copied = decoded.end
    at = text.indexOf(mark, copied)
  }
  parts.push(text.slice(copied))
  const view = parts.join("")
  return { view: url ? foldDecoded(view) : fold(view), map }
}

type View = ReturnType<typeof decodedView>

/** The last escape that starts at or before `at` of the view (its index in `map`, by fours), or -1. */
const escapeBefore = (map: ReadonlyArray<number>, at: number): number => {
  let low = 0
  let high = map.length / 4 - 1
  let found = -1
  while (low <= high) {
    const middle = (low + high) >> 1
    if ((map[middle * 4] as number) <= at) {
      found = middle
      low = middle + 1
    } else high = middle - 1
  }
  return found
}

/** Where the unit `at` of the view came from in the text: its span (an escape's whole, or one unit). */
const spanIn = (map: ReadonlyArray<number>, at: number): Span => {
  const k = escapeBefore(map, at)
  if (k < 0) return [at, at + 1]
  const [viewAt, start, end, width] = [map[k * 4], map[k * 4 + 1], map[k * 4 + 2], map[k * 4 + 3]] as Array<number>
  if (at < (viewAt as number) + (width as number)) return [start as number, end as number]
  const plain = (end as number) + at - (viewAt as number) - (width as number)
  return [plain, plain + 1]
}

type Span = readonly [start: number, end: number]

const findAll = (haystack: string, needle: string, found: (at: number) => void) => {
  if (needle.length === 0) return
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found(at)
}

/**
 * Whether `text` holds a `%` or a `+`, each looked for alone: a character class read over a
 * long answer took Node 22 some 20 µs (35 KB), where each search is under one.
 */
const urlEncodedMaybe = (text: string): boolean => text.includes("%") || text.includes("+")

/** Where any form of any secret is in `text`: spans of the text, unsorted, possibly overlapping. */
const spansOf = (text: string, secrets: ReadonlyArray<string>): Array<Span> => {
  const forms = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).map(formsFor)
  const spans: Array<Span> = []
  if (forms.length === 0) return spans
  const folded = fold(text)
  for (const form of forms) {
    findAll(folded, form.folded, (at) => spans.push([at, at + form.folded.length]))
    for (const core of form.base64) findAll(text, core, (at) => spans.push([at, at + core.length]))
  }
  // A decoded view only where the text holds something to decode.
  if (text.includes("\\")) searchDecoded(decodedView(text, false), forms, "folded", spans)
  if (urlEncodedMaybe(text)) searchDecoded(decodedView(text, true), forms, "decoded", spans)
  return spans
}

const searchDecoded = (
  { view, map }: View,
  forms: ReadonlyArray<Forms>,
  key: "folded" | "decoded",
  spans: Array<Span>,
) => {
  for (const form of forms) {
    const width = form[key].length
    findAll(view, form[key], (at) => spans.push([spanIn(map, at)[0], spanIn(map, at + width - 1)[1]]))
  }
}

/** Replaces every occurrence of each secret in `text`, in any of its forms. */
export const scrub = (text: string, secrets: ReadonlyArray<string>): string => {
  const spans = spansOf(text, secrets)
  if (spans.length === 0) return text
  spans.sort((a, b) => a[0] - b[0])
  let out = ""
  let kept = 0
  let cut = -1
  for (const [start, end] of spans) {
    if (start >= cut) {
      out += text.slice(kept, start) + REDACTED
    } else if (end <= cut) {
      continue
    }
    cut = Math.max(cut, end)
    kept = cut
  }
  return out + text.slice(kept)
}

/** The secrets' forms as one pattern per view, for whether a text holds any: each view read once. */
interface Matcher {
  /**
   * Any secret in any case, in the text as it is: it matches wherever `folded` matches the
   * folded text (Unicode's case folding equates every character with its lowercase; a test
   * holds it so for each one), so a text it does not match needs no folded copy. Lowercasing a
   * 35 KB answer to read it was a ninth of what a list call allocated. None where a secret
   * holds half a surrogate pair, which a Unicode pattern reads only whole.
   */
  readonly anyCase: RegExp | undefined
  /** Any secret as it is or in another case, in the folded text. */
  readonly folded: RegExp
  /** Any of their base64 runs, in the text as it is. */
  readonly base64: RegExp | undefined
}

const escaped = (form: string): string => form.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&")
/** A Unicode pattern takes no escape of a character that is not its syntax, such as `-`. */
const escapedUnicode = (form: string): string => form.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
const SURROGATE = /[\uD800-\uDFFF]/

const matcherOf = (forms: ReadonlyArray<Forms>): Matcher => {
  const base64 = forms.flatMap((form) => form.base64)
  const folded = forms.map((form) => form.folded)
  return {
    anyCase: folded.some((form) => SURROGATE.test(form))
      ? undefined
      : new RegExp(folded.map(escapedUnicode).join("|"), "iu"),
    folded: new RegExp(folded.map(escaped).join("|")),
    base64: base64.length === 0 ? undefined : new RegExp(base64.map(escaped).join("|")),
  }
}

const matchers = ExpiringMap.make<string, Matcher>({ ttlMs: Number.POSITIVE_INFINITY, most: MAX_CACHED })

const matcherFor = (secrets: ReadonlyArray<string>): Matcher | undefined => {
  const kept = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH)
  if (kept.length === 0) return undefined
  const key = JSON.stringify(kept)
  const known = matchers.get(key, 0)
  if (known !== undefined) return known
  const matcher = matcherOf(kept.map(formsFor))
  matchers.set(key, matcher, 0)
  return matcher
}

/**
 * Whether a JSON text holds any of the secrets, in any of their forms. Every answer of the
 * service is read so: the text as it is, once in any case and once for base64, whatever the
 * number of forms; the folded copy and the decoded views are made only where the text may hold
 * a secret in them.
 */
export const inJson = (text: string, secrets: ReadonlyArray<string>): boolean => {
  const matcher = matcherFor(secrets)
  if (matcher === undefined) return false
  const anyCase = matcher.anyCase === undefined || matcher.anyCase.test(text)
  if ((anyCase && matcher.folded.test(fold(text))) || matcher.base64?.test(text) === true) return true
  return (text.includes("\\") || urlEncodedMaybe(text)) && spansOf(text, secrets).length > 0
}

/** Scrubs every string in a JSON value, keys included. */
export const scrubValue = (value: unknown, secrets: ReadonlyArray<string>): unknown => {
  if (typeof value === "string") return scrub(value, secrets)
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secrets))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [scrub(key, secrets), scrubValue(field, secrets)]),
  )
}
