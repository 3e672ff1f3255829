/**
 * The bench's scripts that measure parts of the program in the bench's own process (bench/mask.mjs,
 * answer.mjs, patterns.mjs, signin.mjs), each run once on its smallest case: their calls into the
 * program are tried on every unit run, not first found broken when the bench runs. Under vitest
 * they load the program from src/ (bench/built.mjs), so the lane needs no build. The figures are
 * not judged here (speed is the bench's to measure), only that each script ran its calls through
 * and said each figure as a number. Scripts that start the built server or a container
 * (audit.mjs, asking.mjs, team.mjs, store.mjs, image.mjs, compile.mjs) are left to the bench.
 */
import { describe, expect, it } from "@effect/vitest"

interface Script<F> {
  readonly figure: (options: Record<string, unknown>) => F | Promise<F>
  readonly lines: ((figure: F) => ReadonlyArray<string>) | undefined
}

// Paths the compiler does not follow: the bench is plain JavaScript, run by node as it is.
const importScript = async <F>(name: string, figure: string, lines?: string): Promise<Script<F>> => {
  const path: string = `../../bench/${name}.mjs`
  const module = (await import(path)) as Record<string, unknown>
  expect(typeof module[figure], `${name}.mjs exports ${figure}`).toBe("function")
  if (lines !== undefined) expect(typeof module[lines], `${name}.mjs exports ${lines}`).toBe("function")
  return {
    figure: module[figure] as Script<F>["figure"],
    lines: lines === undefined ? undefined : (module[lines] as Script<F>["lines"]),
  }
}

/** Every number a figure holds: each must be finite and not negative, a time or a count. */
const numbers = (value: unknown): Array<number> =>
  typeof value === "number"
    ? [value]
    : value !== null && typeof value === "object"
      ? Object.values(value).flatMap(numbers)
      : []

const holdsFigures = (figure: unknown) => {
  const found = numbers(figure)
  expect(found.length).toBeGreaterThan(0)
  for (const n of found) {
    expect(Number.isFinite(n)).toBe(true)
    expect(n).toBeGreaterThanOrEqual(0)
  }
}

// Each script on its own figures and pool: they run at once, one waiting on its workers or keys while another works.
describe.concurrent("the bench's scripts run their calls into the program", () => {
  it("mask.mjs masks, fences and renders a log answer", async () => {
    const { figure, lines } = await importScript<{ msPerMb: Record<string, unknown> }>(
      "mask",
      "maskFigure",
      "maskLines",
    )
    const made = await figure({ rounds: 1, bytes: 4096 })
    expect(Object.keys(made.msPerMb)).toContain("eyJ- repeated")
    holdsFigures(made)
    expect(lines?.(made).join("\n")).toContain("a 1 MB log answer rendered")
  })

  it("answer.mjs reads a capped answer through the transport and renders it", async () => {
    const { figure, lines } = await importScript<{ perCap: Record<string, unknown> }>(
      "answer",
      "answerFigure",
      "answerLines",
    )
    const made = await figure({ rounds: 1, caps: [64_000] })
    expect(Object.keys(made.perCap)).toEqual(["0.064 MB"])
    holdsFigures(made)
    expect(lines?.(made).join("\n")).toContain("cap 0.064 MB")
  })

  it("patterns.mjs selects by wildcard and by regex in its own pool, and is refused past the limits", async () => {
    const { figure, lines } = await importScript<{
      microsPerName: Record<string, unknown>
      worst: Record<string, { said: string }>
    }>("patterns", "patternsFigure", "patternsLines")
    const refused = "a regex of 1,010 characters, compiled, refused by the program's limit"
    const made = await figure({ rounds: 1, count: 20, worst: [refused] })
    expect(Object.keys(made.microsPerName)).toHaveLength(6)
    expect(made.worst[refused]?.said).not.toMatch(/matched$/)
    holdsFigures(made)
    expect(lines?.(made).join("\n")).toContain("a pattern's worst cost at its limits")
  })

  it("signin.mjs checks tokens through the verifier against its JWKS", async () => {
    const { figure } = await importScript<Record<string, unknown>>("signin", "signInFigure")
    const made = await figure({ calls: 1, warm: 1, fresh: 1 })
    expect(Object.keys(made)).toEqual(["RS256", "ES256", "EdDSA"])
    holdsFigures(made)
  })
})
