/**
 * Canonical JSON: object keys sorted at every depth, so that two argument
 * objects that differ only in key order have one text, and any other
 * difference (a value, a type, an array's order) gives another.
 */

export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** SHA-256 of the canonical JSON, base64url. */
export const digest = (value: unknown): string =>
  // node:crypto as a CommonJS object, loaded by the first digest: an ES import would load it at start.
  process.getBuiltinModule("node:crypto").createHash("sha256").update(canonicalJson(value)).digest("base64url")
