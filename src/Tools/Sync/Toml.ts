/**
 * The fields of one resource as a sync's TOML writes it (`[[stack]]`, its
 * `[stack.config]`, a procedure's `[[procedure.config.stage]]`...), and what
 * changes between two such texts: enough to say which fields a pending update
 * changes, from what to what. Read by the TOML parser (TomlRead.ts), so that a
 * field is what the service reads, however the text spells it.
 */
import { MASK } from "../../Untrusted/Mask.js"
import * as TomlRead from "./TomlRead.js"

/**
 * A text as the parser reads it, once the credentials in it were masked (Untrusted/Mask.ts): a mask
 * put where a value was (`is_secret = [masked: password]`) is read as the string it says.
 */
const readMasked = (toml: string): TomlRead.Read => {
  const read = TomlRead.read(toml)
  if (read._tag === "Read" || !toml.includes("[masked: ")) return read
  return TomlRead.read(toml.replace(MASK, (mask) => JSON.stringify(mask)))
}

/**
 * The table of the one resource (or variable, or user group) a plan's text writes: the first table
 * of its first array of tables (`[[stack]]`), else the text's root; none where it cannot be read.
 */
export const resourceOf = (toml: string): TomlRead.Table | undefined => {
  const read = readMasked(toml)
  if (read._tag === "Unread") return undefined
  for (const value of Object.values(read.table)) {
    if (Array.isArray(value) && TomlRead.isTable(value[0])) return value[0]
  }
  return read.table
}

/** The resource's `name` in a plan's TOML text. */
export const nameIn = (toml: string): string | undefined => {
  const name = resourceOf(toml)?.name
  return typeof name === "string" ? name : undefined
}

/** A field a change sets: its path, and its value before and after (null where it has none). */
export type Changed = readonly [field: string, before: string | null, after: string | null]

/**
 * The fields whose value differs between two texts of one resource, in the order the new text writes
 * them; undefined where either text cannot be read as TOML.
 */
export const changed = (current: string, proposed: string): ReadonlyArray<Changed> | undefined => {
  const was = resourceOf(current)
  const is = resourceOf(proposed)
  if (was === undefined || is === undefined) return undefined
  const before = TomlRead.fieldsOf(was)
  const after = TomlRead.fieldsOf(is)
  const keys = [...after.keys(), ...[...before.keys()].filter((key) => !after.has(key))]
  return keys.flatMap((key): ReadonlyArray<Changed> => {
    const a = before.get(key)
    const b = after.get(key)
    return a === b ? [] : [[key, a ?? null, b ?? null]]
  })
}
