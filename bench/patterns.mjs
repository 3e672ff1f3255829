#!/usr/bin/env node
/**
 * A batch's pattern read over many names, as a question's plan and the sandbox read it: the
 * built matcher (dist/Shared/NamePattern.js) on wildcards and on regexes, among them one built to
 * backtrack, over names of the service's usual shapes. Prints µs per name (the median of a few
 * runs) and the first regex's cost, which loads the engine; returns the figures; `node
 * bench/patterns.mjs` runs it alone. Builds nothing: run `npm run build` first.
 */
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const ROOT = Path.resolve(import.meta.dirname, "..")
const { compile } = await import(pathToFileURL(Path.join(ROOT, "dist", "Shared", "NamePattern.js")).href)

const NAMES = 10_000
const names = Array.from({ length: NAMES }, (_, i) =>
  i % 10 === 0 ? "a".repeat(32) : `${["prod", "staging", "dev"][i % 3]}-stack-${i}-${i % 2 === 0 ? "web" : "worker"}`,
)

const PATTERNS = {
  "wildcard *-web": "*-web",
  "wildcard st?ging-*-w*r": "st?ging-*-w*r",
  "three entries, wildcards": "prod-*, dev-*-web, nothing",
  "regex \\^staging-stack-\\d+-web$\\": "\\^staging-stack-\\d+-web$\\",
  "regex \\(?i)^PROD-\\pL+\\": "\\(?i)^PROD-\\pL+\\",
  "regex built to backtrack \\^(a|a)*!$\\": "\\^(a|a)*!$\\",
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const round = (x) => Math.round(x * 100) / 100

const timedMs = async (run) => {
  const start = performance.now()
  await run()
  return performance.now() - start
}

export const patternsFigure = async ({ quick = false } = {}) => {
  const rounds = quick ? 3 : 7
  // The first regex loads the engine (re2js), once per process.
  const firstRegexMs = round(await timedMs(() => compile("\\^web$\\")))
  // One pass of each before any is timed, so that none pays for the others' warming up.
  for (const pattern of Object.values(PATTERNS)) {
    const compiled = await compile(pattern)
    for (const n of names) compiled.test(n)
  }
  const perName = {}
  for (const [name, pattern] of Object.entries(PATTERNS)) {
    const times = []
    for (let r = 0; r < rounds; r++) {
      times.push(
        await timedMs(async () => {
          const compiled = await compile(pattern)
          for (const n of names) compiled.test(n)
        }),
      )
    }
    perName[name] = round((median(times) * 1000) / NAMES)
  }
  return { names: NAMES, firstRegexMs, microsPerName: perName }
}

export const patternsLines = (figure) => [
  `a batch's pattern over ${figure.names} names, µs per name (median), compiling included:`,
  ...Object.entries(figure.microsPerName).map(([name, us]) => `  ${name}: ${us}`),
  `  the first regex of a process, which loads the engine: ${figure.firstRegexMs} ms`,
]

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const figure = await patternsFigure({ quick: process.argv.includes("--quick") })
  process.stdout.write(`${patternsLines(figure).join("\n")}\n`)
}
