/**
 * A secret variable's value in a TOML export. `ExportAllResourcesToToml` and
 * `ExportResourcesToToml` with `include_variables` write every variable as a
 * `[[variable]]` table, its value in plain (to an admin), and the field-name
 * redaction of a JSON answer sees none of it: the answer is one string, `toml`.
 * So the export is read as TOML (Toml.ts: strings of every form, whole, in one
 * pass) and each secret variable's value is replaced by `"[redacted]"`, in the
 * text and in structuredContent alike, unless SVC_REVEAL_SECRETS.
 *
 * Secret is what the service marks secret: the variable's `is_secret` (the
 * Variable definition), which the service writes in every exported table. A
 * table of an export that does not say `is_secret = false` is taken for
 * secret, the cautious side: its value cannot be told plain from what the
 * export says. A sync's files, as its repository holds them, are read the
 * same way where a table says `is_secret = true`.
 */
import { REDACTED } from "../../Shared/Secrets.js"
import { headerOf, linesOf, readValue } from "./Toml.js"

/**
 * Whether a table that does not say `is_secret = false` is taken for secret (`cautious`), or only
 * one that says `is_secret = true` (`marked`).
 */
type Reading = "cautious" | "marked"

/**
 * The definitions whose untrusted strings may be TOML with variables, read from the definitions:
 * `TomlResponse`'s `toml`, the answer of both exports, as the service writes it (each table says
 * `is_secret`); and `ResourceSyncInfo`'s `remote_contents`, a sync's files as the repository holds
 * them, written by hand, whose variables are secret where they say so (its messages are read too,
 * and hold no such table).
 */
const EXPORTS: ReadonlyMap<string, Reading> = new Map([
  ["TomlResponse", "cautious"],
  ["ResourceSyncInfo", "marked"],
])

/** The table a variable is written in, and its fields that say its value and its secrecy. */
const VARIABLE = "variable"
const VALUE = "value"
const IS_SECRET = "is_secret"

/** A key as its text writes it, quoted or bare. */
const keyOf = (raw: string) => (raw.startsWith('"') || raw.startsWith("'") ? readValue(raw) : raw)

/** The spans of `toml` that hold a secret variable's value. */
const secretSpans = (toml: string, reading: Reading): ReadonlyArray<readonly [number, number]> => {
  const spans: Array<readonly [number, number]> = []
  let variable = false
  let values: Array<readonly [number, number]> = []
  let plain = true
  let marked = false
  const close = () => {
    if (variable && (reading === "cautious" ? !(marked && plain) : marked && !plain)) spans.push(...values)
    values = []
    plain = true
    marked = false
  }
  for (const line of linesOf(toml)) {
    if (line.header !== undefined) {
      close()
      const { many, name } = headerOf(line.header)
      variable = many && name === VARIABLE
      continue
    }
    if (!variable) continue
    const key = keyOf(line.key)
    if (key === VALUE) values.push([line.start, line.end])
    else if (key === IS_SECRET) {
      marked = true
      // Plain only where every `is_secret` the table holds says false.
      plain = plain && toml.slice(line.start, line.end).trim() === "false"
    }
  }
  close()
  return spans
}

/**
 * `toml` with the value of each secret variable replaced by `"[redacted]"`; the same string when it
 * holds none. `marked`: only a table that says `is_secret = true` is secret.
 */
export const hideSecrets = (toml: string, reading: Reading = "cautious"): string => {
  if (!toml.includes(VARIABLE)) return toml
  const spans = secretSpans(toml, reading)
  if (spans.length === 0) return toml
  let out = ""
  let at = 0
  for (const [start, end] of spans) {
    out += `${toml.slice(at, start)} "${REDACTED}"`
    at = end
  }
  return out + toml.slice(at)
}

/** For Untrusted's masking: a TOML export's text with its secrets hidden, any other untrusted text as it is. */
export const hidden = (text: string, definition: string): string => {
  const reading = EXPORTS.get(definition)
  return reading === undefined ? text : hideSecrets(text, reading)
}
