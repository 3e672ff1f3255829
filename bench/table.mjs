/**
 * The table docs/benchmark.md fills from a full run ("What assistants call, at the floor"): one
 * column per Node and era, one row per figure, each cell the ratio to the bare server with the
 * figures it is made of, in Markdown, to paste as it is.
 */

const rows = (lastCalls) => [
  ["`svc_list` default rows, small estate, calls/s ratio", "≥ 0.95", (r) => throughputCell(r.scenarios.list)],
  ["`svc_list` default rows, large estate, calls/s ratio", "≥ 0.95", (r) => throughputCell(r.scenarios.listLarge)],
  ["`svc_get`, calls/s ratio", "≥ 1.0", (r) => throughputCell(r.scenarios.get)],
  ["`svc_create` with the audit log, calls/s ratio", "reported", (r) => throughputCell(r.scenarios.change)],
  [
    "cold start to `tools/list`, ratio (ms ours / bare)",
    "≤ 1.10",
    (r) => `${r.coldStartMs.ratioToolsList} (${r.coldStartMs.ours.toolsList.median} / ${r.coldStartMs.bare.toolsList.median})`,
  ],
  [
    "overhead over direct, median, ours / bare, ms",
    "≤ bare + 0.10",
    (r) => `${r.perCallMs.ours.overheadMedian} / ${r.perCallMs.bare.overheadMedian}`,
  ],
  [`RSS after ${lastCalls.toLocaleString("en")} calls, ratio`, "≤ 1.25", (r) => String(r.rssMb.ratio)],
  ["`tools/list`, bytes", "< 12,700", (r) => r.toolsListBytes.toLocaleString("en")],
]

/** A ratio, with each server's calls per second and, with --compare, the compared build's ratio. */
const throughputCell = (one) =>
  `${one.ratio} (${one.ours.callsPerSecond} / ${one.bare.callsPerSecond}${one.compared === undefined ? "" : `; compared ${one.compared.ratio}`})`

/** The run's own spread for one Node and era, as the budget judged it: calls per second's, the start's. */
const spreadCell = (budget, where) => {
  const of = (prefix) => budget.checks.find((check) => check.where === where && check.figure.startsWith(prefix))?.spread
  return `${of("svc_list default rows calls/s to bare, small")} / ${of("cold start")}`
}

/** `lastCalls`: the calls after which RSS was last read (50,000 in a full run). */
export const tableLines = (byNode, budget, lastCalls) => {
  const columns = Object.entries(byNode).flatMap(([node, { eras, parseCompile }]) =>
    Object.entries(eras).map(([era, r]) => ({ title: `Node ${node.replace(/^v/, "")}, ${era}`, r, parseCompile, where: `Node ${node}, ${era}` })),
  )
  const row = (cells) => `| ${cells.join(" | ")} |`
  return [
    row(["", ...columns.map((c) => c.title), "target"]),
    row(["---", ...columns.map(() => "---"), "---"]),
    ...rows(lastCalls).map(([label, target, cell]) => row([label, ...columns.map((c) => cell(c.r)), target])),
    row([
      "a start's program: bytes / parse and compile, ms",
      ...columns.map((c) =>
        c.parseCompile.error === undefined
          ? `${c.parseCompile.bytes.toLocaleString("en")} in ${c.parseCompile.files} files / ${c.parseCompile.parseCompileMs}`
          : `not measured (${c.parseCompile.error})`,
      ),
      "",
    ]),
    row(["the run's spread: calls/s / start (the budget's)", ...columns.map((c) => spreadCell(budget, c.where)), ""]),
  ]
}
