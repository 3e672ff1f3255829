/**
 * A JSON answer cut at the byte cap, made a value: what arrived, closed. Read
 * in one pass over the text, keeping only the open containers. The text is cut
 * back to the last value that arrived whole, and every container still open is
 * closed; a string value cut short is kept to its last whole line (or what
 * arrived of it, where it has none), so that a log cut at the cap shows its
 * lines up to there. The last item of a list may so lack its later fields.
 */

const QUOTE = 34
const BACKSLASH = 92
const OPEN_OBJECT = 123
const CLOSE_OBJECT = 125
const OPEN_ARRAY = 91
const CLOSE_ARRAY = 93
const COLON = 58
const COMMA = 44

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13

/** The closers of the containers open at `depth`, innermost first. */
const closers = (open: ReadonlyArray<number>, depth: number): string => {
  let out = ""
  for (let i = depth - 1; i >= 0; i--) out += open[i] === OPEN_OBJECT ? "}" : "]"
  return out
}

/** The scan's state: the open containers, where a cut is whole, and the string being read. */
interface Scan {
  readonly open: Array<number>
  /** The end of the last value read whole, and how many containers were open there. */
  safe: number
  safeDepth: number
  inString: boolean
  /** Whether the string being read is a key (cut short, it is dropped with its member). */
  key: boolean
  /** Where the last escape of the string being read began, and the last `\n` escape's. */
  escape: number
  newline: number
  /** In a number or a literal (true, false, null), which ends at the first character not its own. */
  scalar: boolean
  /** In an object, whether the next string is a key. */
  expectKey: boolean
}

const whole = (scan: Scan, at: number) => {
  scan.safe = at
  scan.safeDepth = scan.open.length
}

/** The next quote or backslash: a string's text between them is passed over without a look at each character. */
const SPECIAL = /["\\]/g

const stepString = (scan: Scan, text: string, i: number): number => {
  SPECIAL.lastIndex = i
  const found = SPECIAL.exec(text)
  if (found === null) return text.length
  const at = found.index
  if (text.charCodeAt(at) === BACKSLASH) {
    scan.escape = at
    if (text.charCodeAt(at + 1) === 110) scan.newline = at
    return at + 2
  }
  scan.inString = false
  if (!scan.key) whole(scan, at + 1)
  return at + 1
}

const step = (scan: Scan, code: number, i: number) => {
  const { open } = scan
  if (scan.scalar && (isSpace(code) || code === COMMA || code === CLOSE_OBJECT || code === CLOSE_ARRAY)) {
    scan.scalar = false
    whole(scan, i)
  }
  if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
    open.push(code)
    scan.expectKey = code === OPEN_OBJECT
    whole(scan, i + 1)
  } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
    open.pop()
    whole(scan, i + 1)
  } else if (code === QUOTE) {
    scan.inString = true
    scan.key = open[open.length - 1] === OPEN_OBJECT && scan.expectKey
    scan.escape = -1
    scan.newline = -1
  } else if (code === COLON) {
    scan.expectKey = false
  } else if (code === COMMA) {
    scan.expectKey = open[open.length - 1] === OPEN_OBJECT
  } else if (!isSpace(code)) {
    scan.scalar = true
  }
}

/**
 * The JSON text `prefix` (the start of a valid JSON text, cut anywhere) as a valid JSON text of
 * what arrived whole; undefined where nothing did (a bare number or literal cut short).
 */
export const complete = (prefix: string): string | undefined => {
  const scan: Scan = {
    open: [],
    safe: -1,
    safeDepth: 0,
    inString: false,
    key: false,
    escape: -1,
    newline: -1,
    scalar: false,
    expectKey: false,
  }
  let i = 0
  while (i < prefix.length) {
    if (scan.inString) {
      i = stepString(scan, prefix, i)
      continue
    }
    step(scan, prefix.charCodeAt(i), i)
    i++
  }
  if (scan.inString && !scan.key) {
    // A string value cut short: to its last whole line, else to its last whole escape.
    const escapeWidth = prefix.charCodeAt(scan.escape + 1) === 117 ? 6 : 2
    const end =
      scan.newline >= 0
        ? scan.newline
        : scan.escape >= 0 && scan.escape + escapeWidth > prefix.length
          ? scan.escape
          : prefix.length
    return `${prefix.slice(0, end)}"${closers(scan.open, scan.open.length)}`
  }
  if (scan.open.length === 0 && !scan.inString && !scan.scalar && scan.safe >= 0) return prefix.slice(0, scan.safe)
  return scan.safe < 0 ? undefined : `${prefix.slice(0, scan.safe)}${closers(scan.open, scan.safeDepth)}`
}
