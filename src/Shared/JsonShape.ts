/**
 * Values of unknown shape, as JSON brings them from a client or the service:
 * the one guard for a plain object, and the words that say what a value is.
 */

/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What a value is, for a message: "null", "an array", "an object", "a string"... */
export const describe = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object"
        : `a ${typeof value}`
