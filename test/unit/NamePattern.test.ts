/**
 * A batch's pattern as the service reads it (Shared/NamePattern.ts): wildcards as a plain
 * definition of them says, regexes in Rust's syntax, both in time proportional to what they read.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as NamePattern from "../../src/Shared/NamePattern.js"
import { property } from "../support/Property.js"
import { runs } from "../support/Runs.js"

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

const compiled = async (pattern: string) => {
  const result = await NamePattern.compile(pattern)
  if (result._tag === "Refused") throw new Error(`refused: ${result.reason}`)
  return result.test
}

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

  it("takes time in proportion to the name, where backtracking would not", () => {
    const long = "a".repeat(20_000)
    const start = performance.now()
    expect(NamePattern.wildcard("*a*a*a*a*a*a*a*a*b")(long)).toBe(false)
    expect(NamePattern.wildcard("*a?a*a?a*a?a*b")(long)).toBe(false)
    expect(performance.now() - start).toBeLessThan(500)
  })
})

describe("a batch pattern", () => {
  const plain = FastCheck.stringMatching(/^[a-z0-9-]{1,12}$/)

  it("entries are split on commas and newlines and trimmed; any entry matching is a match", () =>
    FastCheck.assert(
      FastCheck.asyncProperty(FastCheck.array(plain, { minLength: 1, maxLength: 4 }), plain, async (names, probe) => {
        const pattern = names.map((n, i) => (i % 2 === 0 ? ` ${n} ` : `\n${n}`)).join(",")
        expect(NamePattern.entries(pattern)).toEqual(names)
        expect((await compiled(pattern))(probe)).toBe(names.includes(probe))
      }),
    ))

  it("reads a regex between backslashes as Rust's regex does, found anywhere in the name", async () => {
    expect((await compiled("\\web\\"))("staging-web-1")).toBe(true)
    expect((await compiled("\\^web$\\"))("staging-web")).toBe(false)
    // A flag group and Unicode classes, which V8's RegExp refuses or reads otherwise.
    const flagGroup = "(?i)^web"
    expect(() => new RegExp(flagGroup)).toThrow()
    expect((await compiled("\\(?i)^WEB-\\d+$\\"))("web-12")).toBe(true)
    expect((await compiled("\\^\\pL+$\\"))("été")).toBe(true)
    expect((await compiled("\\^\\pL+$\\"))("日本")).toBe(true)
    expect((await compiled("\\^\\pL+$\\"))("web-1")).toBe(false)
    expect((await compiled("\\^\\p{Greek}+$\\"))("αβγ")).toBe(true)
    // `.` is not a newline, as in Rust, unless `(?s)`.
    expect((await compiled("\\^a.b$\\"))("a\nb")).toBe(false)
    expect((await compiled("\\(?s)^a.b$\\"))("a\nb")).toBe(true)
    // Beside wildcards, any entry's match is a match.
    const mixed = await compiled("monitoring, \\^staging-\\")
    expect(["monitoring", "staging-web", "web"].map(mixed)).toEqual([true, true, false])
  })

  it("answers a pattern built to backtrack at once", async () => {
    const start = performance.now()
    expect((await compiled("\\^(a|a)*!$\\"))("a".repeat(32))).toBe(false)
    expect((await compiled("\\^([\\w-]+)*!$\\"))("a".repeat(27))).toBe(false)
    expect((await compiled("\\^(a+)+$\\"))(`${"a".repeat(5_000)}!`)).toBe(false)
    expect(performance.now() - start).toBeLessThan(1_000)
  })

  it("refuses a regex its engine does not read, naming the entry and the engine's reason", async () => {
    expect(await NamePattern.compile("web, \\(?=x)\\")).toEqual({
      _tag: "Refused",
      entry: "\\(?=x)\\",
      reason: "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
    })
    expect(await NamePattern.compile("\\(\\")).toEqual({
      _tag: "Refused",
      entry: "\\(\\",
      reason: "error parsing regexp: missing closing ): `(`",
    })
    expect(await NamePattern.compile("\\(a)\\1\\")).toMatchObject({ _tag: "Refused", entry: "\\(a)\\1\\" })
    // A wildcard is never refused: `(` is itself there.
    expect((await NamePattern.compile("(*")) as unknown).toMatchObject({ _tag: "Test" })
  })
})
