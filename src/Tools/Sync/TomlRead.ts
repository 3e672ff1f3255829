/**
 * A sync's TOML as a TOML 1.0 parser reads it (`smol-toml`), for every decision
 * and redaction made on it: the user groups a file declares (Policy/AccessChanges.ts),
 * the secret variables of files, exports and plans (TomlSecrets.ts), the fields a
 * plan's change sets (Toml.ts). A text the parser cannot read is said so, never
 * read some other way: a decision refuses it, a redaction hides it whole.
 *
 * Imported statically: this module is reached only from the call path, which a start
 * does not load (test/e2e/StartModules.e2e.test.ts), so the parser costs a start
 * nothing; the call path keeps it synchronous, as rendering is.
 */
import { parse, TomlError } from "smol-toml"

export type Table = Readonly<Record<string, unknown>>

/** A text read whole, or why it could not be. */
export type Read =
  | { readonly _tag: "Read"; readonly table: Table }
  | { readonly _tag: "Unread"; readonly reason: string; readonly line?: number }

/**
 * The parser's inline nesting bound: a text nested deeper is refused, not read on a deep stack.
 * No file the service writes or reads comes near it.
 */
const MAX_DEPTH = 100

/** `text` as TOML reads it; the parser's reason, on one line and without the text, where it cannot. */
export const read = (text: string): Read => {
  try {
    return { _tag: "Read", table: parse(text, { maxDepth: MAX_DEPTH }) }
  } catch (error) {
    // The parser's message quotes the text's lines after its first: its first line and the place are kept.
    const said = error instanceof Error ? (error.message.split("\n")[0] ?? "") : ""
    const at = error instanceof TomlError ? ` (line ${error.line}, column ${error.column})` : ""
    const reason = `${said.replace(/^Invalid TOML document: /, "").slice(0, 120)}${at}`
    return error instanceof TomlError ? { _tag: "Unread", reason, line: error.line } : { _tag: "Unread", reason }
  }
}

export const isTable = (value: unknown): value is Table =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)

/**
 * The tables a root key holds, in every form TOML gives them: an array of tables (`[[key]]`, or
 * `key = [{...}]` inline, on one line or several), or one table (`[key]`, `key = {...}`), which
 * the service would not take for its array and is read as one, the cautious side. A value that is
 * no table stands as an empty one: it is there, and says nothing.
 */
export const tablesAt = (table: Table, key: string): ReadonlyArray<Table> => {
  if (!Object.hasOwn(table, key)) return []
  const value = table[key]
  if (Array.isArray(value)) return value.map((item) => (isTable(item) ? item : {}))
  return [isTable(value) ? value : {}]
}

/** A value as a plan shows it: a string as it reads, anything else as JSON (a date as TOML writes it). */
const shown = (value: unknown): string =>
  typeof value === "string" ? value : value instanceof Date ? value.toISOString() : (JSON.stringify(value) ?? "")

/**
 * A table's fields by their dotted path (`config.branch`), each value as a plan shows it: a table
 * is read into, an array of tables too (`config.stage[1].name`), any other array is one value.
 */
export const fieldsOf = (table: Table, prefix = ""): ReadonlyMap<string, string> => {
  const fields = new Map<string, string>()
  const walk = (value: Table, at: string) => {
    for (const [key, field] of Object.entries(value)) {
      if (isTable(field)) walk(field, `${at}${key}.`)
      else if (Array.isArray(field) && field.length > 0 && field.every(isTable))
        for (const [index, item] of field.entries()) walk(item, `${at}${key}[${index}].`)
      else fields.set(`${at}${key}`, shown(field))
    }
  }
  walk(table, prefix)
  return fields
}
