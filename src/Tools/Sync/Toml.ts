/**
 * The fields of one resource as a sync's TOML writes it (`[[stack]]`, its
 * `[stack.config]`, a procedure's `[[procedure.config.stage]]`...), and what
 * changes between two such texts: enough to say which fields a pending update
 * changes, from what to what. Read in one pass over the text, whatever it holds:
 * a value is the text after `=` up to the end of its line, or of its string,
 * array or inline table where those span lines.
 */

/** A line of a TOML text as read: a table's header, or a key and where its value's text is. */
export type Line =
  | { readonly header: string }
  | { readonly key: string; readonly start: number; readonly end: number; readonly header?: undefined }

/**
 * The headers and the `key = value` lines of a TOML text, in order: a value's text is
 * `toml.slice(start, end)`, its string, array or inline table whole however many lines it
 * spans, so that nothing inside a string reads as a header or a key.
 */
export function* linesOf(toml: string): Generator<Line> {
  let at = 0
  while (at < toml.length) {
    const end = lineEnd(toml, at)
    const line = toml.slice(at, end).trim()
    if (line === "" || line.startsWith("#")) {
      at = end + 1
      continue
    }
    if (line.startsWith("[")) {
      yield { header: line }
      at = end + 1
      continue
    }
    // Looked for within the line alone, so that a text of many lines without one is still read in one pass.
    const offset = toml.slice(at, end).indexOf("=")
    if (offset < 0) {
      at = end + 1
      continue
    }
    const equals = at + offset
    const [stop, next] = valueEnd(toml, equals + 1)
    yield { key: toml.slice(at, equals).trim(), start: equals + 1, end: stop }
    at = next + 1
  }
}

/** Each field's path below the resource's own table (`config.branch`), and its value as the TOML writes it. */
export const fieldsOf = (toml: string): ReadonlyMap<string, string> => {
  const fields = new Map<string, string>()
  const repeated = new Map<string, number>()
  let prefix = ""
  for (const line of linesOf(toml)) {
    if (line.header !== undefined) prefix = tableOf(line.header, repeated)
    else fields.set(`${prefix}${line.key}`, toml.slice(line.start, line.end).trim())
  }
  return fields
}

const lineEnd = (text: string, from: number): number => {
  const end = text.indexOf("\n", from)
  return end < 0 ? text.length : end
}

/** A header's table name (`variable`, `stack.config`), and whether it opens one of an array of tables (`[[...]]`). */
export const headerOf = (line: string): { readonly many: boolean; readonly name: string } => {
  const many = line.startsWith("[[")
  const close = line.indexOf(many ? "]]" : "]")
  return { many, name: line.slice(many ? 2 : 1, close < 0 ? line.length : close).trim() }
}

/**
 * A table's header as the prefix of the fields below it: the resource's own (`[[stack]]`) none,
 * `[stack.config]` `config.`, the second `[[procedure.config.stage]]` `config.stage[1].`.
 */
const tableOf = (line: string, repeated: Map<string, number>): string => {
  const { many, name } = headerOf(line)
  const below = name.includes(".") ? name.slice(name.indexOf(".") + 1) : ""
  if (below === "") return ""
  if (!many) return `${below}.`
  const index = repeated.get(below) ?? 0
  repeated.set(below, index + 1)
  return `${below}[${index}].`
}

/**
 * Where a value that starts at `from` ends, and the line it ends on: its line's end (or a comment's
 * start), unless a string, an array or an inline table is still open there. Each character is
 * looked at once.
 */
const valueEnd = (text: string, from: number): readonly [end: number, line: number] => {
  let depth = 0
  let at = from
  while (at < text.length) {
    const c = text[at]
    if (c === "\n" && depth === 0) return [at, at]
    if (c === "#") {
      const end = lineEnd(text, at)
      if (depth === 0) return [at, end]
      at = end
      continue
    }
    if (c === '"' || c === "'") {
      at = stringEnd(text, at)
      continue
    }
    if (c === "[" || c === "{") depth++
    else if ((c === "]" || c === "}") && depth > 0) depth--
    at++
  }
  return [text.length, text.length]
}

/** The index just past the string that opens at `from` (basic or literal, on one line or several). */
const stringEnd = (text: string, from: number): number => {
  const quote = text[from] as string
  const triple = text.startsWith(quote.repeat(3), from)
  if (triple) {
    let close = text.indexOf(quote.repeat(3), from + 3)
    if (quote === '"') while (close > 0 && escaped(text, close)) close = text.indexOf('"""', close + 1)
    if (close < 0) return text.length
    // A closing run may be longer: its last three quotes close the string.
    let end = close + 3
    while (text[end] === quote && end < close + 5) end++
    return end
  }
  let at = from + 1
  while (at < text.length && text[at] !== "\n") {
    if (quote === '"' && text[at] === "\\") at += 2
    else if (text[at] === quote) return at + 1
    else at++
  }
  return at
}

/** Whether the character at `at` is escaped by an odd run of backslashes before it. */
const escaped = (text: string, at: number): boolean => {
  let run = 0
  while (text[at - 1 - run] === "\\") run++
  return run % 2 === 1
}

const BASIC = /^"((?:[^"\\\n]|\\.)*)"$/s
const LITERAL = /^'([^'\n]*)'$/

const ESCAPES: Readonly<Record<string, string>> = {
  b: "\b",
  t: "\t",
  n: "\n",
  f: "\f",
  r: "\r",
  e: "\u001b",
  '"': '"',
  "\\": "\\",
}
const HEX: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 }

/** A TOML basic string's body decoded (`\uXXXX`, `\UXXXXXXXX`, `\xHH` and the short escapes). */
export const decodeBasic = (body: string): string => {
  let out = ""
  let i = 0
  while (i < body.length) {
    const at = body.indexOf("\\", i)
    if (at < 0) return out + body.slice(i)
    out += body.slice(i, at)
    const mark = body[at + 1] ?? ""
    const width = HEX[mark]
    const code = width === undefined ? Number.NaN : Number.parseInt(body.slice(at + 2, at + 2 + width), 16)
    if (width !== undefined && Number.isFinite(code) && code <= 0x10ffff) {
      out += String.fromCodePoint(code)
      i = at + 2 + width
    } else {
      out += ESCAPES[mark] ?? mark
      i = at + 2
    }
  }
  return out
}

/** A value as it reads: a one-line string's text, anything else as the TOML writes it. */
export const readValue = (raw: string): string => {
  const basic = BASIC.exec(raw)
  if (basic !== null) return decodeBasic(basic[1] ?? "")
  return LITERAL.exec(raw)?.[1] ?? raw
}

/** A field a change sets: its path, and its value before and after (null where it has none). */
export type Changed = readonly [field: string, before: string | null, after: string | null]

/** The fields whose value differs between two texts of one resource, in the order the new text writes them. */
export const changed = (current: string, proposed: string): ReadonlyArray<Changed> => {
  const before = fieldsOf(current)
  const after = fieldsOf(proposed)
  const keys = [...after.keys(), ...[...before.keys()].filter((key) => !after.has(key))]
  return keys.flatMap((key): ReadonlyArray<Changed> => {
    const was = before.get(key)
    const is = after.get(key)
    return was === is ? [] : [[key, was === undefined ? null : readValue(was), is === undefined ? null : readValue(is)]]
  })
}
