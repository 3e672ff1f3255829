/**
 * A database filter as the service hands it to its database (ListAlerts', ListUpdates' `query`):
 * equality, `$in`, `$ne` and `$regex` on dotted paths (`target.type`), ids compared as their hex.
 * An operator the sandbox does not know matches nothing, rather than everything.
 */
import { isRecord } from "./Schema.js"

/** A field of a record by a dotted path (`data.type`, `target.id`), an id as its hex. */
const fieldAt = (record: unknown, path: string): unknown => {
  let value: unknown = record
  for (const key of path.split(".")) value = isRecord(value) ? value[key] : undefined
  return isRecord(value) && typeof value.$oid === "string" ? value.$oid : value
}

/** Whether `record` passes `query`; no query (or one that is not an object) passes everything. */
export const matches = (record: unknown, query: unknown): boolean =>
  !isRecord(query) ||
  Object.entries(query).every(([path, condition]) => {
    const actual = fieldAt(record, path)
    if (!isRecord(condition)) return actual === condition
    if (Array.isArray(condition.$in)) return condition.$in.includes(actual)
    if ("$ne" in condition) return actual !== condition.$ne
    if (typeof condition.$regex === "string") return String(actual ?? "").includes(condition.$regex)
    return false
  })
