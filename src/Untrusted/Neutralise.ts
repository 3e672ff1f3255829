/**
 * Anything in an untrusted value that could pass for a fence's marker, made
 * harmless: a marker (`<u:`, `</u>`, and the longer `<untrusted` of old) written
 * with look-alike or invisible characters, with entities or escapes, and the
 * answer's own token. So a value can never close its own fence.
 */

/** What a neutralised span becomes: nothing in it can be read as a marker. */
export const NEUTRALISED = "[neutralised marker]"

/** Code points that show nothing (format, joiner, variation and tag characters): dropped, as is white space, before a value is compared with a marker. */
const INVISIBLE: ReadonlyArray<readonly [number, number]> = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
]

const invisible = (point: number, char: string) =>
  /\s/.test(char) || INVISIBLE.some(([low, high]) => point >= low && point <= high)

/** Look-alikes NFKC leaves as they are, folded to what they look like. */
const LOOK_ALIKE: Readonly<Record<string, string>> = {
  "\u2039": "<", // ‹
  "\u27E8": "<", // ⟨
  "\u3008": "<", // 〈
  "\u2329": "<", // 〈
  "\u276E": "<", // ❮
  "\u1438": "<", // ᐸ
  "\u02C2": "<", // ˂
  "\u2264": "<", // ≤
  "\u203A": ">", // ›
  "\u27E9": ">", // ⟩
  "\u3009": ">", // 〉
  "\u232A": ">", // 〉
  "\u276F": ">", // ❯
  "\u1433": ">", // ᐳ
  "\u02C3": ">", // ˃
  "\u2265": ">", // ≥
  "\u2236": ":", // ∶
  "\uA789": ":", // ꞉
  "\u02F8": ":", // ˸
  "\u0589": ":", // Armenian full stop
  "\u2215": "/", // ∕
  "\u2044": "/", // ⁄
  "\u29F8": "/", // ⧸
  "\u2571": "/", // ╱
  "\u30CE": "/", // ノ
  "\u0435": "e", // Cyrillic е
  "\u0455": "s", // Cyrillic ѕ
  "\u0433": "r", // Cyrillic г
  "\u0442": "t", // Cyrillic т
  "\u0501": "d", // Cyrillic ԁ
  "\u03C5": "u", // Greek υ
  "\u03C4": "t", // Greek τ
  "\u03B5": "e", // Greek ε
  "\u0578": "n", // Armenian ո
  "\u057D": "u", // Armenian ս
  "\u0572": "n", // Armenian ղ
  "\u1D1B": "t", // small capital T
  "\u0280": "r", // small capital R
  "\u0274": "n", // small capital N
  "\u1D1C": "u", // small capital U
  "\u0299": "b",
  "\u0131": "i", // dotless i
}

// A memo of constant data (what each character folds to), bounded: the same for every caller.
const folds = new Map<number, string>()
const FOLDS = 4096

/** What a character outside ASCII looks like, folded: nothing when it shows nothing. */
const foldOf = (point: number, char: string): string => {
  const known = folds.get(point)
  if (known !== undefined) return known
  const folded = invisible(point, char)
    ? ""
    : [...(LOOK_ALIKE[char] ?? char.normalize("NFKC").toLowerCase())].map((c) => LOOK_ALIKE[c] ?? c).join("")
  if (folds.size < FOLDS) folds.set(point, folded)
  return folded
}

/** Ways of writing `<` (first group) and `>` that a reader may decode: entities and escapes. */
const ESCAPED = /(&lt;?|&#0*60;?|&#x0*3c;?|\\u003c|\\x3c|%3c)|&gt;?|&#0*62;?|&#x0*3e;?|\\u003e|\\x3e|%3e/iy

/** A skeleton's UTF-16 units made a string, a slice at a time (a call takes only so many arguments). */
const unitsText = (units: Uint16Array, length: number): string => {
  let out = ""
  for (let at = 0; at < length; at += 8192) {
    out += String.fromCharCode.apply(null, units.subarray(at, Math.min(length, at + 8192)) as unknown as Array<number>)
  }
  return out
}

/**
 * What `text` looks like, one entry per character shown, each with the span of `text` it came from.
 * Built in typed arrays, grown when a fold makes more units than it read: a megabyte of text makes
 * three million entries, which arrays of strings and numbers take seconds to build on a loaded machine.
 */
const skeleton = (text: string) => {
  let units = new Uint16Array(text.length + 16)
  let from = new Int32Array(units.length)
  let to = new Int32Array(units.length)
  let n = 0
  const push = (unit: number, start: number, end: number) => {
    if (n === units.length) {
      const grown = [new Uint16Array(n * 2), new Int32Array(n * 2), new Int32Array(n * 2)] as const
      grown[0].set(units)
      grown[1].set(from)
      grown[2].set(to)
      ;[units, from, to] = grown
    }
    units[n] = unit
    from[n] = start
    to[n] = end
    n++
  }
  let i = 0
  while (i < text.length) {
    const code = text.charCodeAt(i)
    ESCAPED.lastIndex = i
    const escaped = code === 0x26 || code === 0x5c || code === 0x25 ? ESCAPED.exec(text) : null
    if (escaped !== null) {
      push(escaped[1] === undefined ? 0x3e : 0x3c, i, i + escaped[0].length)
      i += escaped[0].length
      continue
    }
    if (code < 0x80) {
      // ASCII, most of any text: NFKC leaves it as it is, no look-alike is ASCII, and only white space is invisible.
      if (!(code === 0x20 || (code >= 0x09 && code <= 0x0d)))
        push(code >= 0x41 && code <= 0x5a ? code + 0x20 : code, i, i + 1)
      i += 1
      continue
    }
    const point = text.codePointAt(i) ?? 0
    const width = point > 0xffff ? 2 : 1
    const folded = foldOf(point, text.slice(i, i + width))
    // One entry per UTF-16 unit, so that an index into the joined skeleton is an index into these arrays.
    for (let k = 0; k < folded.length; k++) push(folded.charCodeAt(k), i, i + width)
    i += width
  }
  return { text: unitsText(units, n), from, to }
}

/** Whether a fold of `text` could hold a marker or the token: most values are passed by this test alone. */
const suspicious = (text: string, token: string) =>
  !/^[\x20-\x3b\x3d-\x7e\t\n\r]*$/.test(text) ||
  /<|&(?:lt|#0*60|#x0*3c)|\\(?:u003c|x3c)|%3c/i.test(text) ||
  text.includes(token)

/**
 * `text` with every span that could be read as a marker (`<u:`, `</u>`,
 * `<untrusted`, `</untrusted`, however written) or as the answer's token
 * replaced by NEUTRALISED; everything else as it was.
 */
export const neutralise = (text: string, token: string): string => {
  if (!suspicious(text, token)) return text
  const shown = skeleton(text)
  const found = new RegExp(`<\\/?untrusted|<u:|<\\/u>|${token}`, "g")
  let out = ""
  let at = 0
  for (const match of shown.text.matchAll(found)) {
    const start = shown.from[match.index] as number
    const end = shown.to[match.index + match[0].length - 1] as number
    if (start < at) continue
    out += text.slice(at, start) + NEUTRALISED
    at = end
  }
  return at === 0 ? text : out + text.slice(at)
}
