/**
 * The credentials a pattern would find in quadratic time, found by scanning:
 * each finds exactly what its pattern (in the comment above it) finds, but a
 * start that fails skips every later start in the same run of characters,
 * which would fail the same way. So each character is read a bounded number
 * of times. test/unit/Tools/MaskBounds.test.ts holds them to their patterns.
 */

/** One credential found: `[start, end)` is masked, its first `kept` characters (a pair's key and separator) kept. */
export interface Span {
  readonly start: number
  readonly end: number
  readonly kept: number
}

/** `[A-Za-z0-9_]`, what `\b` calls a word character. */
const isWord = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
/** `[A-Za-z0-9_-]`. */
const isToken = (c: number) => isWord(c) || c === 0x2d
/** `[A-Za-z0-9_.-]`. */
const isKey = (c: number) => isToken(c) || c === 0x2e

/** `\s`, as JavaScript's patterns have it. */
const isSpace = (c: number) =>
  (c >= 0x09 && c <= 0x0d) ||
  c === 0x20 ||
  (c >= 0x80 &&
    (c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff))

/** A bare value's end: `[\s"',;&]`. */
const endsValue = (c: number) => isSpace(c) || c === 0x22 || c === 0x27 || c === 0x2c || c === 0x3b || c === 0x26

const DOT = 0x2e
const QUOTE = 0x22
const APOSTROPHE = 0x27

/** Where the run of characters `within` that starts at `from` ends, read no further than `limit`. */
const runEnd = (text: string, from: number, within: (c: number) => boolean, limit = text.length): number => {
  const last = Math.min(limit, text.length)
  let at = from
  while (at < last && within(text.charCodeAt(at))) at++
  return at
}

/** Whether a value begins as a mask does (`(?!\[masked: )` under the `i` flag). */
const isMask = (text: string, at: number) => text.slice(at, at + 9).toLowerCase() === "[masked: "

/** A JWT's second and third parts, from `at`: `eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`; where they end, or -1. */
const jwtTail = (text: string, at: number): number => {
  if (!text.startsWith("eyJ", at)) return -1
  const second = runEnd(text, at + 3, isToken)
  if (second - at - 3 < 8 || text.charCodeAt(second) !== DOT) return -1
  const third = runEnd(text, second + 1, isToken)
  return third - second - 1 >= 8 ? third : -1
}

/** `/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g` */
export function* jwts(text: string): Generator<Span> {
  let from = 0
  for (let start = text.indexOf("eyJ"); start >= 0; start = text.indexOf("eyJ", from)) {
    if (start > 0 && isWord(text.charCodeAt(start - 1))) {
      from = start + 1
      continue
    }
    // Every later start in this run has the same tail and fewer characters before it: it fails if this one does.
    const first = runEnd(text, start + 3, isToken)
    const end = first - start - 3 >= 8 && text.charCodeAt(first) === DOT ? jwtTail(text, first + 1) : -1
    if (end < 0) {
      from = first
      continue
    }
    yield { start, end, kept: 0 }
    from = end
  }
}

const FLAG_KEY = /passw(?:or)?d|passphrase|secret|token|api[_-]?key/i

/**
 * `/(\s--?[A-Za-z0-9_-]*(?:KEY)[A-Za-z0-9_-]*)(\s+|=)((?!\[masked: )[^\s"',;&-][^\s"',;&]{0,511})/gi`,
 * KEY as FLAG_KEY: a command line's `--password hunter2`, `-token=abc`.
 */
export function* flags(text: string): Generator<Span> {
  const starts = /\s-/g
  for (let found = starts.exec(text); found !== null; found = starts.exec(text)) {
    const start = found.index
    // The flag is the whole run after the space: a separator must follow it, and none is in the run.
    const key = runEnd(text, start + 1, isToken)
    starts.lastIndex = key
    if (!FLAG_KEY.test(text.slice(start + 2, key))) continue
    const c = text.charCodeAt(key)
    const value = isSpace(c) ? runEnd(text, key, isSpace) : c === 0x3d ? key + 1 : -1
    if (value < 0 || value >= text.length) continue
    const first = text.charCodeAt(value)
    if (endsValue(first) || first === 0x2d || isMask(text, value)) continue
    const end = runEnd(text, value + 1, (v) => !endsValue(v), value + 512)
    yield { start, end, kept: value - start }
    starts.lastIndex = end
  }
}

/** A quoted value at `at` (`"[^"\n]{1,512}"`, or the same with `'`): where it ends, or -1. */
const quoted = (text: string, at: number, quote: number): number => {
  const close = runEnd(text, at + 1, (c) => c !== quote && c !== 0x0a, at + 513)
  return close - at - 1 >= 1 && text.charCodeAt(close) === quote ? close + 1 : -1
}

/** Where a pair's value, starting at `at`, ends, or -1. */
const valueEnd = (text: string, at: number): number => {
  if (at >= text.length) return -1
  const first = text.charCodeAt(at)
  if (first === QUOTE || first === APOSTROPHE) return quoted(text, at, first)
  if (endsValue(first) || isMask(text, at)) return -1
  return runEnd(text, at, (c) => !endsValue(c), at + 512)
}

/** Where a pair's value starts, after its key ends at `key` (an optional quote, then `\s*[=:]\s*` or `\s+(?=["'])`), or -1. */
const valueStart = (text: string, key: number): number => {
  const c = text.charCodeAt(key)
  const after = c === QUOTE || c === APOSTROPHE ? key + 1 : key
  const spaced = runEnd(text, after, isSpace)
  const separator = text.charCodeAt(spaced)
  if (separator === 0x3d || separator === 0x3a) return runEnd(text, spaced + 1, isSpace)
  return spaced > after && (separator === QUOTE || separator === APOSTROPHE) ? spaced : -1
}

/**
 * `/((?:KEY)[A-Za-z0-9_.-]*["']?)(\s*[=:]\s*|\s+(?=["']))("[^"\n]{1,512}"|'[^'\n]{1,512}'|(?!\[masked: )[^\s"',;&]{1,512})/gi`,
 * KEY the words below: `password=...`, `DB_PASSWORD: "..."`, `api_key=...`. The match starts at the key's
 * telling word, so the scan looks for a few words rather than trying a key at every position.
 */
export function* pairs(text: string): Generator<Span> {
  const words = /passw(?:or)?d|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?/gi
  for (let found = words.exec(text); found !== null; found = words.exec(text)) {
    const start = found.index
    // The key runs to the end of its run of characters: every later word in the run ends the same key.
    const key = runEnd(text, start + found[0].length, isKey)
    const value = valueStart(text, key)
    const end = value < 0 ? -1 : valueEnd(text, value)
    if (end < 0) {
      words.lastIndex = key
      continue
    }
    yield { start, end, kept: value - start }
    words.lastIndex = end
  }
}
