/**
 * The flags of a command line, read by Node's `util.parseArgs`: `--flag value` and
 * `--flag=value` alike. Its tokens are read rather than its values, so that each
 * command refuses in its own words, and a flag given twice is refused rather than
 * the last one winning.
 */
import * as Either from "effect/Either"

// The built-in as a CommonJS object, as the start reads the others (Cli/Start.ts).
const Util = process.getBuiltinModule("node:util")

/** Each flag a command takes, by its name without the dashes: a switch, or one that takes a value. */
export type Kinds = Readonly<Record<string, "boolean" | "string">>

export interface Flags {
  /** Each flag given: a switch's value is undefined, as is that of a flag whose value is missing at the end. */
  readonly flags: ReadonlyMap<string, string | undefined>
  /** The words that are no flag's, in their order. */
  readonly positionals: ReadonlyArray<string>
}

/**
 * The flags and words of `args`; on the left, the first argument as written that is no flag of
 * `kinds`, a flag given twice, a switch given a value, `--`, or, unless `positionals`, a word.
 */
export const read = (args: ReadonlyArray<string>, kinds: Kinds, positionals: boolean): Either.Either<Flags, string> => {
  const options = Object.fromEntries(Object.entries(kinds).map(([name, type]) => [name, { type }]))
  // Not strict: what it would throw on is refused below, each as the command words it.
  const { tokens } = Util.parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true })
  const flags = new Map<string, string | undefined>()
  const words: Array<string> = []
  for (const token of tokens) {
    const written = args[token.index] as string
    if (token.kind === "positional") {
      if (!positionals) return Either.left(written)
      words.push(token.value)
    } else if (token.kind === "option-terminator") {
      return Either.left(written)
    } else {
      const kind = Object.hasOwn(kinds, token.name) ? kinds[token.name] : undefined
      if (kind === undefined || (kind === "boolean" && token.value !== undefined) || flags.has(token.name)) {
        return Either.left(written)
      }
      flags.set(token.name, token.value)
    }
  }
  return Either.right({ flags, positionals: words })
}
