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
