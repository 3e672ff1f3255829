/**
 * A batch operation's `pattern` as the service reads it: entries separated by commas or newlines,
 * each trimmed; an entry between backslashes is a regex found anywhere in a name, any other a
 * wildcard (`*` any run, `?` one character) matching the whole name. Names only: ids never match.
 *
 * The pattern comes from the assistant, so what reading it may cost is bounded. A backtracking
 * engine (V8's RegExp) given `^(a|a)*!$` stalls the process for as long as it likes: a wildcard is
 * matched here without any regex (Shared/NameWildcard.ts), a regex by RE2 (re2js, pure JavaScript),
 * which reads Rust's syntax as the service does: `(?i)`, `\pL`, `\p{Greek}`, no look-around, no
 * back-references (one difference remains: Rust reads `\w`, `\d`, `\s` and `\b` as Unicode's, RE2 as
 * ASCII's). RE2 is linear in the name, but its program grows with the pattern: `(?i)(?:\pL?){1000}`
 * is 2,000 instructions, and 9 KB of it took seconds to compile and seconds a name. So a pattern is
 * refused past LIMITS, each named; and its regexes are compiled and matched in a worker thread
 * within a time budget (Shared/PatternReader.ts), where a single long call cannot hold the server.
 * Wildcards alone over few names, where the work is small whatever they hold, are read here.
 */

import * as Effect from "effect/Effect"
import { laying, type NameTest, wildcards } from "./NameWildcard.js"
import * as Reader from "./PatternReader.js"

export type { NameTest } from "./NameWildcard.js"

/**
 * What a pattern may cost; past each, it is refused with the limit named. Far above what a pattern
 * written for names takes: the largest of the realistic regexes measured compile to about 200
 * instructions (`^.{0,100}$`; `(?i)^(prod|staging|dev)-[a-z0-9-]{1,40}-(web|worker)$` 114), and a
 * list of every stack of a 300-stack estate by name is about 12,000 characters.
 */
export const LIMITS = {
  /** A pattern's characters, separators included. */
  characters: 16_384,
  /** Its entries, separated by commas and newlines. */
  entries: 1_000,
  /**
   * A regex entry's characters, backslashes included: RE2's program is known only once compiled,
   * and a regex of this length compiles, at worst, in under a second.
   */
  regexCharacters: 1_024,
  /** The instructions of RE2's programs, summed over the pattern's regexes. */
  program: 10_000,
  /** Compiling and matching a pattern, in its worker (ms). */
  budgetMs: 2_000,
} as const

/** Why a pattern is not read: a regex the engine refuses, in its words, or a bound, said whole. */
export type Refused =
  | { readonly _tag: "Refused"; readonly cause: "Engine"; readonly entry: string; readonly reason: string }
  | { readonly _tag: "Refused"; readonly cause: "Bound"; readonly reason: string }

/** The indexes of the names a pattern matches, or why it was not read. */
export type Selected = { readonly _tag: "Selected"; readonly matched: ReadonlyArray<number> } | Refused

/** The entries of a pattern. */
export const entries = (pattern: string): ReadonlyArray<string> =>
  pattern
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

const isRegex = (entry: string): boolean => entry.length > 1 && entry.startsWith("\\") && entry.endsWith("\\")

/** A wildcard as a test of a whole name. No regex is made. */
export const wildcard: (entry: string) => NameTest = wildcards(laying())

const count = (n: number) => n.toLocaleString("en-US")

/** An entry in a refusal: whole where short, else its start. */
const shown = (entry: string) => (entry.length <= 60 ? entry : `${entry.slice(0, 59)}…`)

const bound = (reason: string): Refused => ({ _tag: "Refused", cause: "Bound", reason })

/** The limit `pattern` is past before anything is compiled, if any. */
const overLimit = (pattern: string, list: ReadonlyArray<string>): Refused | undefined => {
  if (pattern.length > LIMITS.characters) {
    return bound(
      `the pattern has ${count(pattern.length)} characters; a pattern may have at most ${count(LIMITS.characters)}`,
    )
  }
  if (list.length > LIMITS.entries) {
    return bound(
      `the pattern has ${count(list.length)} entries (separated by commas and newlines); a pattern may have at most ${count(LIMITS.entries)}`,
    )
  }
  const long = list.find((entry) => isRegex(entry) && entry.length > LIMITS.regexCharacters)
  if (long === undefined) return undefined
  return bound(
    `the regex ${shown(long)} has ${count(long.length)} characters; a regex may have at most ${count(LIMITS.regexCharacters)}`,
  )
}

/** Characters and names (or entries) of some text, as a measure of the work of laying one on the other. */
const size = (texts: ReadonlyArray<string>) => texts.reduce((sum, text) => sum + text.length + 1, 0)

/** Wildcards laid on names: read here up to this much work (each entry's size times the names'), else in a worker. */
const HERE = 1_000_000

const answered = (answer: Reader.Answer, names: number, budgetMs: number): Selected => {
  switch (answer._tag) {
    case "Matched":
      return { _tag: "Selected", matched: answer.matched }
    case "Engine":
      return { _tag: "Refused", cause: "Engine", entry: answer.entry, reason: answer.reason }
    case "Program":
      return bound(
        `the pattern's regexes compile to ${count(answer.program)} RE2 instructions, up to ${shown(answer.entry)}; a pattern's regexes may compile to at most ${count(LIMITS.program)}`,
      )
    case "Budget":
      return bound(
        `reading the pattern${names === 0 ? "" : ` over ${count(names)} names`} took longer than its budget of ${count(budgetMs)} ms, and was stopped`,
      )
    case "Stopped":
      return bound(`reading the pattern was stopped (${answer.reason}); it may use at most ${Reader.MEMORY_MB} MB`)
    case "Busy":
      return bound(`${Reader.WAITING} patterns are already waiting to be read; try again shortly`)
  }
}

/**
 * The names `pattern` matches, as indexes into `names`, or why it is not read. With no names, it
 * checks the pattern alone: its limits, and that RE2 reads its regexes, in `pool`'s workers.
 * `budgetMs` is LIMITS.budgetMs but where a test gives less.
 */
export const selectWith = async (
  pool: Reader.Pool,
  pattern: string,
  names: ReadonlyArray<string>,
  budgetMs: number = LIMITS.budgetMs,
): Promise<Selected> => {
  const list = entries(pattern)
  const over = overLimit(pattern, list)
  if (over !== undefined) return over
  if (!list.some(isRegex) && size(list) * size(names) <= HERE) {
    const tests = list.map(wildcard)
    const matched: Array<number> = []
    names.forEach((name, i) => {
      if (tests.some((test) => test(name))) matched.push(i)
    })
    return { _tag: "Selected", matched }
  }
  const job = { entries: list.map((text) => ({ text, regex: isRegex(text) })), names, program: LIMITS.program }
  return answered(await pool.read(job, budgetMs), names.length, budgetMs)
}

/** `selectWith` in the pattern reader of the context. */
export const select = (
  pattern: string,
  names: ReadonlyArray<string>,
  budgetMs: number = LIMITS.budgetMs,
): Effect.Effect<Selected, never, Reader.PatternReader> =>
  Effect.flatMap(Reader.PatternReader, (pool) => Effect.promise(() => selectWith(pool, pattern, names, budgetMs)))

/**
 * A refusal in words for the one who wrote the pattern. A regex the engine refuses says what the
 * service reads instead.
 */
export const said = (refused: Refused): string =>
  refused.cause === "Engine"
    ? `the regex ${refused.entry} is not one the service reads (${refused.reason}); the service reads Rust's regex syntax: no look-around, no back-references`
    : refused.reason
