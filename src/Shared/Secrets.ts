/**
 * Keeps secret values out of anything shown: results, errors, logs.
 */
export const REDACTED = "[redacted]"

/**
 * Values shorter than this are not scrubbed: replacing a two-letter password
 * everywhere would mangle ordinary text while hiding nothing.
 */
const MIN_SECRET_LENGTH = 4

/** Replaces every occurrence of each secret in `text`. */
export const scrub = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) {
      out = out.split(secret).join(REDACTED)
    }
  }
  return out
}

/** Whether a JSON text holds any of the secrets, as they are or JSON-escaped. */
export const inJson = (text: string, secrets: ReadonlyArray<string>): boolean =>
  secrets.some(
    (secret) =>
      secret.length >= MIN_SECRET_LENGTH &&
      (text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1))),
  )

/** Scrubs every string in a JSON value, keys included. */
export const scrubValue = (value: unknown, secrets: ReadonlyArray<string>): unknown => {
  if (typeof value === "string") return scrub(value, secrets)
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secrets))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [scrub(key, secrets), scrubValue(field, secrets)]),
  )
}
