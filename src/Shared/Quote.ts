/**
 * Text from outside (the service, a repository, a container) as it stands in
 * a line of ours: on that one line, whatever it holds. A line break, a line or
 * paragraph separator, any other control character, a lone surrogate and the
 * bidirectional controls that reorder what a reader sees are shown escaped
 * (`\n`, `\u2028`, `\u202e`), so that no value can start a line of its own,
 * pose as the end of the line it is in, or hide what follows it; and a value
 * is cut to a length, the cut marked, so that none can push the rest of the
 * text out of sight. A question to the user is built of such values, never of
 * the text itself (Confirmation/).
 */
import { escapeControl, HIDDEN } from "./Controls.js"

/** A quote and a backslash, escaped inside quotes as JSON escapes them. */
const IN_QUOTES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\" }

/** Where a value was cut: after its closing quote, so that no value can make it up inside. */
const CUT = "…"

/** The longest a value stands in a line, escapes counted, by default. */
const MAX = 200

/**
 * `text` escaped as `escapeOf` says, at most `max` characters of it; `cut` whether some was left.
 * Reads no more of `text` than it shows: a megabyte costs what `max` characters cost.
 */
const escaped = (text: string, max: number, escapeOf: (c: string) => string | undefined) => {
  let out = ""
  let read = 0
  for (const c of text.length > max ? text.slice(0, max) : text) {
    const piece = escapeOf(c) ?? c
    if (out.length + piece.length > max) return { out, cut: true }
    out += piece
    read += c.length
  }
  return { out, cut: read < text.length }
}

const inLine = (c: string) => (HIDDEN.test(c) ? escapeControl(c) : undefined)
const inQuotes = (c: string) => IN_QUOTES[c] ?? inLine(c)

/**
 * A value in double quotes, on one line: as JSON writes a string (so `"web"` reads `"web"`), and
 * beyond it separators and bidirectional controls escaped; past `max` characters cut, `…` after
 * the closing quote.
 */
export const quote = (text: string, max: number = MAX): string => {
  const { out, cut } = escaped(text, max, inQuotes)
  return `"${out}"${cut ? CUT : ""}`
}

/**
 * Text on one line without quotes (a service's error inside a sentence of ours): only what
 * `quote` hides is escaped, a backslash or a quote stays as it is; past `max` characters cut, `…`.
 */
export const oneLine = (text: string, max: number = MAX): string => {
  const { out, cut } = escaped(text, max, inLine)
  return cut ? `${out}${CUT}` : out
}

/** A name, a type, a hash or a state as it is where it is one word of these characters; else quoted. */
const WORD = /^[A-Za-z0-9_.:/@+-]{1,64}$/

export const word = (text: string): string => (WORD.test(text) ? text : quote(text, 64))

/**
 * Values in a list, each as `show` writes it, at most `max` of them, then `… and N more`;
 * `none` where there are none.
 */
export const listed = (
  values: ReadonlyArray<string>,
  max = 20,
  show: (value: string) => string = (value) => quote(value),
): string => {
  if (values.length === 0) return "none"
  const shown = values.slice(0, max).map(show).join(", ")
  return values.length > max ? `${shown}, … and ${values.length - max} more` : shown
}
