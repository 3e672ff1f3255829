/**
 * Text from outside shown on one line, as it is: every character that could end a line, move the
 * cursor or turn the text's direction is written as an escape. C0 and C1 controls and DEL; lone
 * surrogates; the line and paragraph separators (U+2028, U+2029); and the bidirectional controls
 * (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which would show a line's text in
 * another order than it is read. One pass of a character class, in time proportional to the text.
 * A log line (Operations/Logging.ts) and a question's values (Quote.ts) hide the same characters.
 */

const CLASS = "[\\p{Cc}\\p{Cs}\\u2028\\u2029\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]"

/** One character that is never shown as itself. */
export const HIDDEN = new RegExp(CLASS, "u")
const EVERY = new RegExp(CLASS, "gu")

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" }

/** The escape of one hidden character: `\n`, `\r`, `\t`, `\b`, `\f`, else `\uXXXX`. */
export const escapeControl = (c: string): string => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

/** `text` with each hidden character escaped. */
export const escapeControls = (text: string): string => text.replace(EVERY, escapeControl)
