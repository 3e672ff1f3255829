#!/usr/bin/env node
/**
 * Masking's cost per megabyte of untrusted text: the built masking and fencing
 * (dist/Untrusted/), as an answer's render runs them, on ordinary log lines and
 * on the worst cases of the shapes (long runs of `eyJ-`, of key words, of
 * would-be markers), each a megabyte; and a log answer of a megabyte rendered
 * whole, which the cap cuts to four times the output budget first. Prints ms
 * per MB (the median of a few runs) and returns the figures; `node
 * bench/mask.mjs` runs it alone. Builds nothing: run `npm run build` first.
 */
import { pathToFileURL } from "node:url"
import { load } from "./built.mjs"

const { mask } = await load("Untrusted/Mask.js")
const { fence, token } = await load("Untrusted/Fence.js")
const { success } = await load("Tools/Render.js")
const Definitions = await load("Tools/Catalog/Definitions.js")
const Shown = await load("Call/Shown.js")
const View = await load("Tools/View.js")

const MB = 1 << 20

/** Each text, `bytes` long (a megabyte in the bench). */
const texts = (bytes) => {
  const filled = (unit) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)
  return {
    "log lines": filled("2026-11-26T23:40:01Z worker | job 4121 done in 38ms, 12 rows written\n"),
    "log lines, not ASCII": filled("2026-11-26T23:40:01Z worker | tâche 4121 terminée en 38 ms — 12 lignes écrites\n"),
    "eyJ- repeated": filled("eyJ-"),
    "token repeated": filled("token"),
    " -token repeated": filled(" -token"),
    "<untrusted repeated": filled("<untrusted"),
    "<u: repeated": filled("<u:"),
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const timed = (rounds, run) =>
  median(
    Array.from({ length: rounds }, () => {
      const start = performance.now()
      run()
      return performance.now() - start
    }),
  )
const round = (x) => Math.round(x * 10) / 10

/** `bytes` and `rounds` smaller than the bench's only to try the script (test/unit/BenchScripts.test.ts). */
export const maskFigure = ({ quick = false, rounds = quick ? 3 : 7, bytes = MB } = {}) => {
  const id = token()
  const TEXTS = texts(bytes)
  const perMb = Object.fromEntries(
    Object.entries(TEXTS).map(([name, text]) => [
      name,
      { mask: round(timed(rounds, () => mask(text))), maskAndFence: round(timed(rounds, () => fence(mask(text), id))) },
    ]),
  )
  const log = { stage: "Get Log", command: "docker compose logs", stdout: TEXTS["eyJ- repeated"], stderr: "", success: true }
  const made = { tool: "svc_logs", wait: false, schema: false, selectorKey: "resource_type", selector: "stack", endpoint: "read/GetStackLog", body: { stack: "web" }, data: log, text: JSON.stringify(log), shown: Shown.Shown.Glance() }
  // The view chosen once, as the tools' program does before rendering (Tools/View.ts).
  const answer = { ...made, view: View.choose(Definitions.svc_logs, made, log, made.text) }
  const rendered = round(timed(rounds, () => success(Definitions.svc_logs, answer, { maxOutputChars: 50_000, revealSecrets: false })))
  return { msPerMb: perMb, renderOneMbLogMs: rendered }
}

export const maskLines = (figure) => [
  "masking, ms per MB of untrusted text (median): mask / mask and fence",
  ...Object.entries(figure.msPerMb).map(([name, ms]) => `  ${name}: ${ms.mask} / ${ms.maskAndFence}`),
  `  a 1 MB log answer rendered, cut first to 200,000 characters (the cap at the default budget): ${figure.renderOneMbLogMs} ms`,
]

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${maskLines(maskFigure({ quick: process.argv.includes("--quick") })).join("\n")}\n`)
}
