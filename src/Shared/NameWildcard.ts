/**
 * A batch pattern's wildcard entry (`*` any run, `?` one character) as a test of a whole name,
 * without any regex. `wildcards` makes the test's maker from `laying`'s segment fitting, and neither
 * refers to anything outside itself: the pattern reader's worker thread (Shared/PatternReader.ts) runs
 * both from their source text, so the names read there are matched by this very code.
 */

export type NameTest = (name: string) => boolean

/** How a wildcard's segment (the text between stars, `?` any one character) lies on a name. */
export interface Laying {
  /** The characters of a segment, `?` one each. */
  readonly characters: (segment: string) => number
  /** Where `segment` ends when laid on `name` from `at`, or -1 where it does not fit. */
  readonly fitAt: (name: string, at: number, segment: string) => number
  /** Where the leftmost fit of `segment` in `name` at or after `from` ends, or -1. */
  readonly findFrom: (name: string, from: number, segment: string) => number
  /** The start of the last `count` characters of `name`, or -1 where it has fewer. */
  readonly lastCharacters: (name: string, count: number) => number
}

/** The segments' fitting, counted in characters: a surrogate pair is one, as `?` is one character. */
export const laying = (): Laying => {
  const ANY = 0x3f // ?
  /** How many code units the character at `at` takes: two for a surrogate pair, as `?` is one character. */
  const width = (text: string, at: number) => {
    const c = text.charCodeAt(at)
    return c >= 0xd800 && c <= 0xdbff && at + 1 < text.length ? 2 : 1
  }
  const characters = (segment: string) => {
    let count = 0
    for (let at = 0; at < segment.length; at += width(segment, at)) count++
    return count
  }
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
  return { characters, fitAt, findFrom, lastCharacters }
}

/**
 * The maker of a wildcard's test. The text between stars is laid on the name once each, at its
 * leftmost fit after the one before (the first at the start, the last at the end): where a
 * leftmost fit leaves no room, no other fit would, so nothing is tried again.
 */
export const wildcards =
  ({ characters, fitAt, findFrom, lastCharacters }: Laying): ((entry: string) => NameTest) =>
  (entry) => {
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
