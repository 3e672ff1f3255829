/**
 * A batch operation's `pattern` as the service reads it: entries separated by
 * commas or newlines, each trimmed; an entry between backslashes is a regex
 * found anywhere in a name, any other a wildcard (`*` any run, `?` one
 * character) matching the whole name. Names only: ids never match.
 */
import * as Either from "effect/Either"

export type NameTest = (name: string) => boolean

/** The entries of a pattern. */
export const entries = (pattern: string): ReadonlyArray<string> =>
  pattern
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

const isRegex = (entry: string) => entry.length > 1 && entry.startsWith("\\") && entry.endsWith("\\")

/**
 * The test a pattern makes of a name. Left: a regex entry this server cannot
 * read (the service's regex dialect is Rust's; most patterns read alike).
 */
export const compile = (pattern: string): Either.Either<NameTest, string> => {
  const tests: Array<RegExp> = []
  for (const entry of entries(pattern)) {
    if (isRegex(entry)) {
      try {
        tests.push(new RegExp(entry.slice(1, -1), "u"))
      } catch {
        return Either.left(entry)
      }
    } else {
      const body = entry
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".")
      tests.push(new RegExp(`^${body}$`, "su"))
    }
  }
  return Either.right((name) => tests.some((test) => test.test(name)))
}
