#!/usr/bin/env node
/**
 * A batch's pattern read over many names, as a question's plan and the sandbox read it: the
 * built reader (dist/Shared/NamePattern.js) on wildcards and on regexes, among them one built to
 * backtrack, over names of the service's usual shapes. Prints µs per name (the median of a few
 * runs), the first regex's cost, which starts a worker and loads the engine, and a pattern's worst
 * cost at its limits: the costliest pattern within them over the 300 names of the large estate and
 * over 1,000 names of 1,000 characters (stopped by the budget), and the costliest refusals, each
 * with the longest the event loop was held meanwhile. Returns the figures; `node
 * bench/patterns.mjs` runs it alone. Builds nothing: run `npm run build` first.
 */
import { monitorEventLoopDelay } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { load } from "./built.mjs"

const { selectWith, LIMITS } = await load("Shared/NamePattern.js")
const { makePool } = await load("Shared/PatternReader.js")

const NAMES = 10_000
const NAMES_OF = Array.from({ length: NAMES }, (_, i) =>
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

/** 2,002 RE2 instructions in 18 characters. */
const UNIT = "(?i)(?:\\pL?){1000}"
/** The names of the large estate's 300 stacks (src/Sandbox/Estates/Estate.ts), and 1,000 long ones. */
const APPS = ["billing", "checkout", "search", "catalog", "ledger", "notify", "auth", "reports", "ingest", "media"]
const ESTATE = Array.from({ length: 300 }, (_, i) => `${APPS[i % APPS.length]}-${String(i).padStart(3, "0")}`)
const LONG = Array.from({ length: 1_000 }, (_, i) => `${"ab-1".repeat(250)}${i}`)
const HOSTILE = `\\${UNIT.repeat(473)}\\`

const WORST = {
  "within the limits (8,008 instructions), over the estate's 300 stacks": [`\\${UNIT.repeat(4)}\\d#\\`, ESTATE],
  "within the limits, over 1,000 names of 1,000 characters": [`\\${UNIT.repeat(4)}\\d#\\`, LONG],
  "a regex of 1,010 characters, compiled, refused by the program's limit": [`\\${UNIT.repeat(56)}\\`, []],
  "the 9 KB regex, refused by a regex's length": [HOSTILE, ESTATE],
  "24 such on their lines, refused by a pattern's length": [Array.from({ length: 24 }, () => HOSTILE).join("\n"), ESTATE],
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const round = (x) => Math.round(x * 100) / 100

const timedMs = async (run) => {
  const start = performance.now()
  await run()
  return performance.now() - start
}

/** A pattern's cost at its worst: the call's ms, how it ended, and the event loop's longest pause meanwhile. */
const worstCost = async (select, pattern, over) => {
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  let said = ""
  const ms = await timedMs(async () => {
    const result = await select(pattern, over)
    said = result._tag === "Selected" ? `${result.matched.length} matched` : result.reason.slice(0, 72)
  })
  loop.disable()
  return { ms: Math.round(ms), heldMs: Math.round(loop.max / 1e6), said }
}

/**
 * `rounds`, `count` names and the `worst` cases fewer than the bench's only to try the script
 * (test/unit/BenchScripts.test.ts).
 */
export const patternsFigure = async ({
  quick = false,
  rounds = quick ? 3 : 7,
  count = NAMES,
  worst: cases = Object.keys(WORST),
} = {}) => {
  // The run's own pool of the pattern reader, as a bundle has its own (Shared/PatternReader.ts).
  const pool = makePool()
  const select = (pattern, over) => selectWith(pool, pattern, over)
  const names = NAMES_OF.slice(0, count)
  // The first regex starts a worker thread, which loads the engine (re2js), once per process.
  const firstRegexMs = round(await timedMs(() => select("\\^web$\\", ["web"])))
  // One pass of each before any is timed, so that none pays for the others' warming up.
  for (const pattern of Object.values(PATTERNS)) await select(pattern, names)
  const perName = {}
  for (const [name, pattern] of Object.entries(PATTERNS)) {
    const times = []
    for (let r = 0; r < rounds; r++) times.push(await timedMs(() => select(pattern, names)))
    perName[name] = round((median(times) * 1000) / count)
  }
  const worst = {}
  for (const name of cases) worst[name] = await worstCost(select, ...WORST[name])
  await pool.close()
  return { names: count, firstRegexMs, microsPerName: perName, limits: LIMITS, worst }
}

export const patternsLines = (figure) => [
  `a batch's pattern over ${figure.names} names, µs per name (median), compiling included:`,
  ...Object.entries(figure.microsPerName).map(([name, us]) => `  ${name}: ${us}`),
  `  the first regex of a process, which starts its worker and loads the engine: ${figure.firstRegexMs} ms`,
  `a pattern's worst cost at its limits (${figure.limits.characters} characters, ${figure.limits.entries} entries, a regex ${figure.limits.regexCharacters}, ${figure.limits.program} instructions, ${figure.limits.budgetMs} ms), ms / the event loop held at most, ms:`,
  ...Object.entries(figure.worst).map(([name, w]) => `  ${name}: ${w.ms} / ${w.heldMs} (${w.said})`),
]

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const figure = await patternsFigure({ quick: process.argv.includes("--quick") })
  process.stdout.write(`${patternsLines(figure).join("\n")}\n`)
}
