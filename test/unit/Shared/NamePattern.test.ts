/**
 * A batch's pattern as the service reads it (Shared/NamePattern.ts): wildcards as a plain
 * definition of them says, regexes in Rust's syntax, both in time proportional to what they read.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import * as NamePattern from "../../../src/Shared/NamePattern.js"
import * as PatternReader from "../../../src/Shared/PatternReader.js"
import * as BlockCounts from "../../support/BlockCounts.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

/**
 * What a wildcard means, said as plainly as it can be: over characters (code points), `*` takes
 * any run, `?` one character, anything else itself; a table of which suffixes match which.
 */
const reference = (entry: string, name: string): boolean => {
  const p = Array.from(entry)
  const s = Array.from(name)
  // fits[j]: the pattern from i on matches the name from j on; filled from the end of the pattern back.
  let fits = s.map(() => false).concat([true])
  for (let i = p.length - 1; i >= 0; i--) {
    const next: Array<boolean> = []
    for (let j = s.length; j >= 0; j--) {
      next[j] =
        p[i] === "*"
          ? fits[j] === true || (j < s.length && next[j + 1] === true)
          : j < s.length && (p[i] === "?" || p[i] === s[j]) && fits[j + 1] === true
    }
    fits = next
  }
  return fits[0] === true
}

/** The pattern reader of these tests: a pool of their own, ended when they are. */
const pool = PatternReader.makePool()
afterAll(() => pool.close())

const select = (pattern: string, names: ReadonlyArray<string>, budgetMs?: number) =>
  NamePattern.selectWith(pool, pattern, names, budgetMs)

/** The names of `names` that `pattern` matches. */
const selected = async (pattern: string, names: ReadonlyArray<string>) => {
  const result = await select(pattern, names)
  if (result._tag === "Refused") throw new Error(`refused: ${NamePattern.said(result)}`)
  return result.matched.map((i) => names[i])
}

/** Whether `pattern` matches `name`. */
const matches = async (pattern: string, name: string) => (await selected(pattern, [name])).length === 1

// Few characters, so that patterns and names meet often: one beyond Latin-1, one outside the BMP.
const character = FastCheck.constantFrom("a", "b", "é", "😀", "\n")
const name = FastCheck.array(character, { maxLength: 10 }).map((cs) => cs.join(""))
const wildcard = FastCheck.array(FastCheck.oneof(character, FastCheck.constantFrom("*", "?")), { maxLength: 8 }).map(
  (cs) => cs.join(""),
)

describe("a batch pattern's wildcard", () => {
  property(
    "matches exactly the names the plain definition says",
    { entry: wildcard, probe: name },
    ({ entry, probe }) => {
      expect(NamePattern.wildcard(entry)(probe)).toBe(reference(entry, probe))
    },
    { fastCheck: { numRuns: runs(2000) } },
  )

  property(
    "matches every name made from it by filling its stars and marks",
    { entry: wildcard, fills: FastCheck.array(name, { minLength: 8, maxLength: 8 }), one: character },
    ({ entry, fills, one }) => {
      let k = 0
      const made = Array.from(entry)
        .map((c) => (c === "*" ? (fills[k++] ?? "") : c === "?" ? one : c))
        .join("")
      expect(NamePattern.wildcard(entry)(made)).toBe(true)
    },
  )

  it("reads `?` as one character, a pair of surrogates too, and `*` as any run, the empty one too", () => {
    expect(NamePattern.wildcard("we?")("web")).toBe(true)
    expect(NamePattern.wildcard("we?")("we😀")).toBe(true)
    expect(NamePattern.wildcard("we?")("we")).toBe(false)
    expect(NamePattern.wildcard("we??")("we😀")).toBe(false)
    expect(NamePattern.wildcard("*web")("staging-web")).toBe(true)
    expect(NamePattern.wildcard("*web")("web")).toBe(true)
    expect(NamePattern.wildcard("*web")("web-1")).toBe(false)
    expect(NamePattern.wildcard("a*b*a")("aba")).toBe(true)
    expect(NamePattern.wildcard("a*b*a")("ab")).toBe(false)
    // Nothing in a wildcard but `*` and `?` is special.
    expect(NamePattern.wildcard("a.c")("abc")).toBe(false)
    expect(NamePattern.wildcard("(a|b)")("(a|b)")).toBe(true)
  })

  it("does work in proportion to the name, where backtracking would not", async () => {
    expect(NamePattern.wildcard("*a*a*a*a*a*a*a*a*b")("a".repeat(20_000))).toBe(false)
    expect(NamePattern.wildcard("*a?a*a?a*a?a*b")("a".repeat(20_000))).toBe(false)
    expect(NamePattern.wildcard("*a*a*a*a*a*a*a*a*b*")("a".repeat(20_000))).toBe(false)
    expect(NamePattern.wildcard("*a?a*a?a*a?a*b*")("a".repeat(20_000))).toBe(false)
    // The blocks of code matching runs and the characters its builtins read, counted, not timed.
    const [short = 0, long = 0] = await BlockCounts.counts(
      `import { wildcard } from "./src/Shared/NamePattern.ts"
       // Each also with a star last, which no test of the name's end can settle at once.
       const patterns = ["*a*a*a*a*a*a*a*a*b", "*a?a*a?a*a?a*b", "*a*a*a*a*a*a*a*a*b*", "*a?a*a?a*a?a*b*"].map(wildcard)
       export const run = (name: string) => patterns.map((matches) => matches(name))`,
      ["a".repeat(1_000), "a".repeat(8_000)],
    )
    expect(short).toBeGreaterThan(1_000)
    // Eight times the name: eight times the work, where backtracking would take sixty-four times or more.
    expect(long).toBeLessThan(short * 10)
  })
})

describe("a batch pattern", () => {
  const plain = FastCheck.stringMatching(/^[a-z0-9-]{1,12}$/)

  it("entries are split on commas and newlines and trimmed; any entry matching is a match", () =>
    FastCheck.assert(
      FastCheck.asyncProperty(FastCheck.array(plain, { minLength: 1, maxLength: 4 }), plain, async (names, probe) => {
        const pattern = names.map((n, i) => (i % 2 === 0 ? ` ${n} ` : `\n${n}`)).join(",")
        expect(NamePattern.entries(pattern)).toEqual(names)
        expect(await matches(pattern, probe)).toBe(names.includes(probe))
      }),
    ))

  it("reads a regex between backslashes as Rust's regex does, found anywhere in the name", async () => {
    expect(await matches("\\web\\", "staging-web-1")).toBe(true)
    expect(await matches("\\^web$\\", "staging-web")).toBe(false)
    // A flag group and Unicode classes, which V8's RegExp refuses or reads otherwise.
    const flagGroup = "(?i)^web"
    expect(() => new RegExp(flagGroup)).toThrow()
    expect(await matches("\\(?i)^WEB-\\d+$\\", "web-12")).toBe(true)
    expect(await matches("\\^\\pL+$\\", "été")).toBe(true)
    expect(await matches("\\^\\pL+$\\", "日本")).toBe(true)
    expect(await matches("\\^\\pL+$\\", "web-1")).toBe(false)
    expect(await matches("\\^\\p{Greek}+$\\", "αβγ")).toBe(true)
    // `.` is not a newline, as in Rust, unless `(?s)`.
    expect(await matches("\\^a.b$\\", "a\nb")).toBe(false)
    expect(await matches("\\(?s)^a.b$\\", "a\nb")).toBe(true)
    // Beside wildcards, any entry's match is a match.
    expect(await selected("monitoring, \\^staging-\\", ["monitoring", "staging-web", "web"])).toEqual([
      "monitoring",
      "staging-web",
    ])
  })

  it("answers a pattern built to backtrack, within its budget", async () => {
    // Refused (and thrown by `matches`) were it read past its budget.
    expect(await matches("\\^(a|a)*!$\\", "a".repeat(32))).toBe(false)
    expect(await matches("\\^([\\w-]+)*!$\\", "a".repeat(27))).toBe(false)
    expect(await matches("\\^(a+)+$\\", `${"a".repeat(5_000)}!`)).toBe(false)
  })

  it("refuses a regex its engine does not read, naming the entry and the engine's reason", async () => {
    expect(await select("web, \\(?=x)\\", [])).toEqual({
      _tag: "Refused",
      cause: "Engine",
      entry: "\\(?=x)\\",
      reason: "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
    })
    expect(await select("\\(\\", ["web"])).toEqual({
      _tag: "Refused",
      cause: "Engine",
      entry: "\\(\\",
      reason: "error parsing regexp: missing closing ): `(`",
    })
    const backReference = await select("\\(a)\\1\\", [])
    expect(backReference).toMatchObject({ _tag: "Refused", entry: "\\(a)\\1\\" })
    expect(NamePattern.said(backReference as NamePattern.Refused)).toContain(
      "the regex \\(a)\\1\\ is not one the service reads (error parsing regexp: invalid escape sequence",
    )
    // A wildcard is never refused: `(` is itself there.
    expect(await select("(*", ["(a"])).toEqual({ _tag: "Selected", matched: [0] })
  })
})

/** 2,002 RE2 instructions in 18 characters: 9 KB of it took seconds to compile, and seconds a name. */
const UNIT = "(?i)(?:\\pL?){1000}"
/** 9 KB of it in one regex. */
const HOSTILE = `\\${UNIT.repeat(473)}\\`

/** Within every limit (8,008 instructions), and no name matches it: each is read through. */
const HEAVY = `\\${UNIT.repeat(4)}\\d#\\`
const LONG_NAMES = Array.from({ length: 4_000 }, (_, i) => `${"ab-1".repeat(250)}${i}`)

const refusal = async (pattern: string, names: ReadonlyArray<string> = [], budgetMs?: number) => {
  const result = await select(pattern, names, budgetMs)
  if (result._tag !== "Refused") throw new Error(`not refused: ${JSON.stringify(result)}`)
  return NamePattern.said(result)
}

describe("what a batch pattern may cost", () => {
  it("is at most 16,384 characters, refused past them with the limit named", async () => {
    expect(NamePattern.LIMITS.characters).toBe(16_384)
    expect(await refusal("a".repeat(NamePattern.LIMITS.characters + 1))).toBe(
      "the pattern has 16,385 characters; a pattern may have at most 16,384",
    )
    // 24 regexes of 9 KB, on their lines, which held the server for a minute.
    expect(await refusal(Array.from({ length: 24 }, () => HOSTILE).join("\n"))).toBe(
      "the pattern has 204,407 characters; a pattern may have at most 16,384",
    )
    expect(await select("a".repeat(16_384), ["a".repeat(16_384), "a"])).toEqual({
      _tag: "Selected",
      matched: [0],
    })
  })

  it("has at most 1,000 entries, refused past them with the limit named", async () => {
    const entries = (n: number) => Array.from({ length: n }, (_, i) => `web-${i}`)
    expect(await refusal(entries(1_001).join(","))).toBe(
      "the pattern has 1,001 entries (separated by commas and newlines); a pattern may have at most 1,000",
    )
    expect(await refusal(entries(1_001).join("\n"))).toContain("the pattern has 1,001 entries")
    expect(await select(entries(1_000).join(","), ["web-999", "web-1000"])).toEqual({
      _tag: "Selected",
      matched: [0],
    })
  })

  it("holds no regex over 1,024 characters, refused before it is compiled, the limit named", async () => {
    expect(await refusal(`web, ${HOSTILE}`)).toBe(
      `the regex ${HOSTILE.slice(0, 59)}… has 8,516 characters; a regex may have at most 1,024`,
    )
    const longest = `\\^(${"a".repeat(1_018)})$\\`
    expect(longest).toHaveLength(1_024)
    expect(await select(longest, [`${"a".repeat(1_018)}`, "a"])).toEqual({ _tag: "Selected", matched: [0] })
  })

  it("compiles to at most 10,000 RE2 instructions over all its regexes, refused past them with the limit named", async () => {
    expect(await refusal(`\\${UNIT.repeat(6)}\\`)).toBe(
      `the pattern's regexes compile to 12,002 RE2 instructions, up to \\${UNIT.repeat(6).slice(0, 58)}…; a pattern's regexes may compile to at most 10,000`,
    )
    // Summed over the entries: four of 2,002 are read, a fifth is refused.
    const regexes = (n: number) => Array.from({ length: n }, () => `\\${UNIT}\\`).join(", ")
    expect(await select(regexes(4), ["web", "42"])).toEqual({ _tag: "Selected", matched: [0, 1] })
    expect(await refusal(regexes(5))).toBe(
      `the pattern's regexes compile to 10,010 RE2 instructions, up to \\${UNIT}\\; a pattern's regexes may compile to at most 10,000`,
    )
  })

  it("is read within its budget: past it the reading is stopped and refused, the budget named, and the next is read", async () => {
    // Within every limit, but 4,000 names of 1,000 characters take it a second or more: stopped at 100 ms.
    expect(await refusal(HEAVY, LONG_NAMES, 100)).toBe(
      "reading the pattern over 4,000 names took longer than its budget of 100 ms, and was stopped",
    )
    expect(await selected("\\^web$\\", ["web", "api"])).toEqual(["web"])
  })

  it("waits for a reader at most 16 deep: past it, refused at once, saying so", async () => {
    // Asked at once: two read, sixteen wait and are read in turn, the nineteenth is refused.
    const all = await Promise.all(Array.from({ length: 19 }, () => select("\\^web$\\", ["web"])))
    expect(all.filter((result) => result._tag === "Selected")).toHaveLength(18)
    expect(all.flatMap((result) => (result._tag === "Refused" ? [NamePattern.said(result)] : []))).toEqual([
      "16 patterns are already waiting to be read; try again shortly",
    ])
  })
})

describe("two pattern readers", () => {
  it("share no worker and no queue: one full or closed leaves the other reading", async () => {
    // One of its own beside the file's, whose workers are started already.
    const [one, other] = [PatternReader.makePool(), pool]
    try {
      // The first reader's two workers busy and its sixteen places taken: its next is refused at once.
      const filling = Array.from({ length: 18 }, () => NamePattern.selectWith(one, "\\^web$\\", ["web"]))
      const refused = await NamePattern.selectWith(one, "\\^web$\\", ["web"])
      expect(refused._tag === "Refused" && NamePattern.said(refused)).toBe(
        "16 patterns are already waiting to be read; try again shortly",
      )
      expect(await NamePattern.selectWith(other, "\\^web$\\", ["web", "api"])).toEqual({
        _tag: "Selected",
        matched: [0],
      })
      await Promise.all(filling)
      // The first closed: its workers ended, what it is asked refused; the other still reads.
      await one.close()
      const closed = await NamePattern.selectWith(one, "\\^web$\\", ["web"])
      expect(closed._tag === "Refused" && NamePattern.said(closed)).toContain("the pattern reader was closed")
      expect(await NamePattern.selectWith(other, "\\^api$\\", ["web", "api"])).toEqual({
        _tag: "Selected",
        matched: [1],
      })
    } finally {
      await one.close()
    }
  })

  it("a layer's reader ends its workers as its scope closes", async () => {
    const reader = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const made = yield* PatternReader.PatternReader
          expect(yield* NamePattern.select("\\^web$\\", ["web"])).toEqual({ _tag: "Selected", matched: [0] })
          return made
        }).pipe(Effect.provide(PatternReader.layer)),
      ),
    )
    const after = await NamePattern.selectWith(reader, "\\^web$\\", ["web"])
    expect(after._tag === "Refused" && NamePattern.said(after)).toContain("the pattern reader was closed")
  })
})
