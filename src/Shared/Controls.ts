/**
 * Text from outside shown on one line, as it is: every character that could end a line, move the
 * cursor or turn the text's direction is written as an escape. C0 and C1 controls and DEL; the
 * line and paragraph separators (U+2028, U+2029); and the bidirectional controls (U+061C, U+200E,
 * U+200F, U+202A–U+202E, U+2066–U+2069), which would show a line's text in another order than it
 * is read. One pass of a character class, in time proportional to the text.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

const escaped = (c: string) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

/** `text` with each such character escaped (`\n`, `\r`, `\t`, else `\uXXXX`). */
export const escapeControls = (text: string): string => text.replace(CONTROLS, escaped)
