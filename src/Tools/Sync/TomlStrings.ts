/**
 * TOML's strings where a text writes them, in any of TOML's four forms: found by their quotes and
 * read by their text, so that a value is replaced where it stands and the rest of the text is
 * kept byte for byte, as no parse and write again would keep it.
 */
import * as TomlRead from "./TomlRead.js"

/**
 * `text` with every string it writes (a value's or a quoted key's, in any of TOML's four forms)
 * whose value is one of `values` replaced by a basic string of its mark. The text is valid TOML:
 * outside a string, a quote opens one and `#` a comment, and nothing else does.
 */
export const replaceStrings = (text: string, values: ReadonlySet<string>, mark: (value: string) => string): string => {
  const shortest = Math.min(...[...values].map((v) => v.length))
  let out = ""
  let copied = 0
  let at = 0
  while (at < text.length) {
    const c = text[at]
    if (c === "#") {
      const end = text.indexOf("\n", at)
      at = end < 0 ? text.length : end
      continue
    }
    if (c !== '"' && c !== "'") {
      at++
      continue
    }
    const end = stringEnd(text, at)
    const written = text.slice(at, end)
    // A string's value is never longer than its text: a shorter text cannot be a secret's.
    const value = written.length - 2 >= shortest ? stringValue(written) : undefined
    if (value !== undefined && values.has(value)) {
      out += `${text.slice(copied, at)}${JSON.stringify(mark(value))}`
      copied = end
    }
    at = end
  }
  return out + text.slice(copied)
}

/**
 * A string's value as the parser reads it, from its text alone: one without an escape is its text
 * (a multi-line one's first line break left out); one with an escape, as the parser reads it.
 */
const stringValue = (written: string): string | undefined => {
  const quote = written[0] as string
  const triple = written.length >= 6 && written.startsWith(quote.repeat(3))
  if (quote === "'" || !written.includes("\\")) {
    if (!triple) return written.slice(1, -1)
    const body = written.slice(3, -3)
    return body.startsWith("\n") ? body.slice(1) : body.startsWith("\r\n") ? body.slice(2) : body
  }
  const read = TomlRead.read(`v = ${written}`)
  return read._tag === "Read" && typeof read.table.v === "string" ? read.table.v : undefined
}

/** The index just past the string that opens at `from`: basic or literal, on one line or several. */
const stringEnd = (text: string, from: number): number => {
  const quote = text[from] as string
  const triple = text.startsWith(quote.repeat(3), from)
  let at = from + (triple ? 3 : 1)
  while (at < text.length) {
    if (quote === '"' && text[at] === "\\") at += 2
    else if (triple ? text.startsWith(quote.repeat(3), at) : text[at] === quote) {
      // A closing run may be longer: its last three quotes close the string, the one or two before are in it.
      if (!triple) return at + 1
      let end = at + 3
      while (text[end] === quote && end < at + 5) end++
      return end
    } else at++
  }
  return text.length
}
