/**
 * A batch operation's `pattern` as the service reads it: entries separated by commas or newlines,
 * each trimmed; an entry between backslashes is a regex found anywhere in a name, any other a
 * wildcard (`*` any run, `?` one character) matching the whole name. Names only: ids never match.
 *
 * Both readings take time in proportion to what they read, never more: the pattern comes from the
 * assistant, and a backtracking engine (V8's RegExp) given `^(a|a)*!$` stalls the process for as
 * long as it likes. A wildcard is matched here, without any regex; a regex by RE2 (re2js, pure
 * JavaScript, loaded by the first regex that comes), which reads Rust's syntax as the service
 * does: `(?i)`, `\pL`, `\p{Greek}`, no look-around, no back-references. One difference remains:
 * Rust reads `\w`, `\d`, `\s` and `\b` as Unicode's, RE2 as ASCII's.
 */

export type NameTest = (name: string) => boolean

/** The test of a pattern, or the entry its engine refuses and why, in the engine's words. */
export type Compiled =
  | { readonly _tag: "Test"; readonly test: NameTest }
  | { readonly _tag: "Refused"; readonly entry: string; readonly reason: string }

/** The entries of a pattern. */
export const entries = (pattern: string): ReadonlyArray<string> =>
  pattern
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

export const isRegex = (entry: string): boolean => entry.length > 1 && entry.startsWith("\\") && entry.endsWith("\\")

const ANY = 0x3f // ?

/** How many code units the character at `at` takes: two for a surrogate pair, as `?` is one character. */
const width = (text: string, at: number) => {
  const c = text.charCodeAt(at)
  return c >= 0xd800 && c <= 0xdbff && at + 1 < text.length ? 2 : 1
}

/** The characters of a wildcard's segment, `?` one each. */
const characters = (segment: string) => {
  let count = 0
  for (let at = 0; at < segment.length; at += width(segment, at)) count++
  return count
}

/** Where `segment` ends when laid on `name` from `at`, or -1 where it does not fit. */
const fitAt = (name: string, at: number, segment: string): number => {
  let i = at
  for (let j = 0; j < segment.length; j++) {
    if (i >= name.length) return -1
    const c = segment.charCodeAt(j)
    if (c === ANY) i += width(name, i)
    else if (name.charCodeAt(i) === c) i++
    else return -1
  }
  return i
}

/** Where the leftmost fit of `segment` in `name` at or after `from` ends, or -1. */
const findFrom = (name: string, from: number, segment: string): number => {
  if (!segment.includes("?")) {
    const found = name.indexOf(segment, from)
    return found < 0 ? -1 : found + segment.length
  }
  for (let at = from; at <= name.length; at += width(name, at)) {
    const end = fitAt(name, at, segment)
    if (end >= 0) return end
    if (at === name.length) break
  }
  return -1
}

/** The start of the last `count` characters of `name`, or -1 where it has fewer. */
const lastCharacters = (name: string, count: number): number => {
  let at = name.length
  for (let n = 0; n < count; n++) {
    if (at === 0) return -1
    const low = name.charCodeAt(at - 1)
    const pair = low >= 0xdc00 && low <= 0xdfff && at >= 2 && width(name, at - 2) === 2
    at -= pair ? 2 : 1
  }
  return at
}

/**
 * A wildcard as a test of a whole name. The text between stars is laid on the name once each, at
 * its leftmost fit after the one before (the first at the start, the last at the end): where a
 * leftmost fit leaves no room, no other fit would, so nothing is tried again. No regex is made.
 */
export const wildcard = (entry: string): NameTest => {
  const segments = entry.split("*")
  const first = segments[0] ?? ""
  if (segments.length === 1) return (name) => fitAt(name, 0, first) === name.length
  const last = segments[segments.length - 1] ?? ""
  const middle = segments.slice(1, -1).filter((segment) => segment !== "")
  const lastLength = characters(last)
  return (name) => {
    let at = fitAt(name, 0, first)
    if (at < 0) return false
    const lastStart = lastCharacters(name, lastLength)
    if (lastStart < at || fitAt(name, lastStart, last) !== name.length) return false
    for (const segment of middle) {
      at = findFrom(name, at, segment)
      if (at < 0 || at > lastStart) return false
    }
    return true
  }
}

type Engine = typeof import("re2js")
let loading: Promise<Engine> | undefined

/** A regex entry's test, or the engine's reason to refuse it. */
const regex = (engine: Engine, entry: string): Compiled => {
  try {
    const compiled = engine.RE2JS.compile(entry.slice(1, -1))
    return { _tag: "Test", test: (name) => compiled.test(name) }
  } catch (error) {
    return { _tag: "Refused", entry, reason: error instanceof Error ? error.message : String(error) }
  }
}

/** The test a whole pattern makes of a name: any entry's match is a match. */
export const compile = async (pattern: string): Promise<Compiled> => {
  const tests: Array<NameTest> = []
  for (const entry of entries(pattern)) {
    if (!isRegex(entry)) {
      tests.push(wildcard(entry))
      continue
    }
    loading ??= import("re2js")
    const compiled = regex(await loading, entry)
    if (compiled._tag === "Refused") return compiled
    tests.push(compiled.test)
  }
  const [only] = tests
  return { _tag: "Test", test: tests.length === 1 && only !== undefined ? only : (name) => tests.some((t) => t(name)) }
}
