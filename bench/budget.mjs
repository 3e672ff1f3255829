/**
 * The bench's budget (`npm run bench -- --quick --budget`): each target judged with the
 * machine's spread as this very run measured it, so that a shared or busy machine fails a
 * figure only when it misses by more than the machine itself moves.
 *
 * The spread of a ratio to the bare server is the bare server's own: how far its rounds of one
 * figure lie apart, (max - min) / median, the median of that over the run's scenarios, for
 * calls per second and RSS; the interquartile range of its starts over their median, for the
 * start; and the direct POST's interquartile range, in ms, for the per-call overhead. The bytes
 * of `tools/list` are exact and have none.
 */

/** The most the tools in `tools/list` may cost, in bytes. */
export const TOOLS_LIST_BYTES = 12_699

/**
 * The one measure of what the tools cost a model's context: the tools as `tools/list` answers
 * them, as UTF-8 bytes of `{"tools":[...]}` (the 2026-07-28 era's cache fields around them left
 * out). The bench reports it and judges it here; test/unit/Mcp/Safety.test.ts holds it to the same
 * budget on every unit run.
 */
export const toolsListBytes = (tools) => Buffer.byteLength(JSON.stringify({ tools }))

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const round = (x) => Math.round(x * 1000) / 1000

const relativeSpread = (rounds) => (rounds.length < 2 ? 0 : (Math.max(...rounds) - Math.min(...rounds)) / median(rounds))

/** One era's figures judged: each with its value, its target, the spread allowed and the verdict. */
const judgeEra = (where, r) => {
  const throughputSpread = median(Object.values(r.scenarios).map((one) => relativeSpread(one.bare.rounds)))
  const start = r.coldStartMs.bare.toolsList
  const startSpread = (start.p75 - start.p25) / start.median
  const direct = r.perCallMs.direct
  const checks = [
    ["svc_get calls/s to bare", r.scenarios.get.ratio, 1, throughputSpread, "at least"],
    ["svc_list default rows calls/s to bare, small estate", r.scenarios.list.ratio, 0.95, throughputSpread, "at least"],
    ["svc_list default rows calls/s to bare, large estate", r.scenarios.listLarge.ratio, 0.95, throughputSpread, "at least"],
    ["cold start to tools/list to bare", r.coldStartMs.ratioToolsList, 1.1, startSpread, "at most"],
    [
      "per-call overhead over a direct POST, ms",
      r.perCallMs.ours.overheadMedian,
      r.perCallMs.bare.overheadMedian + 0.1,
      direct.p75 - direct.p25,
      "at most (bare's + 0.10)",
    ],
    ["RSS to bare after the last checkpoint", r.rssMb.ratio, 1.25, throughputSpread, "at most"],
    ["tools/list bytes", r.toolsListBytes, TOOLS_LIST_BYTES, 0, "at most"],
  ]
  return checks.map(([figure, value, target, spread, way]) => {
    const low = way === "at least"
    const allowed = low ? target * (1 - spread) : way === "at most" ? target * (1 + spread) : target + spread
    return {
      where,
      figure,
      value: round(value),
      target: round(target),
      spread: round(spread),
      way,
      met: low ? value >= target : value <= target,
      held: low ? value >= allowed : value <= allowed,
    }
  })
}

/** Every Node's and era's figures judged; `held` when none missed by more than its spread. */
export const judge = (results) => {
  const checks = Object.entries(results.nodes).flatMap(([node, { eras }]) =>
    Object.entries(eras).flatMap(([era, r]) => judgeEra(`Node ${node}, ${era}`, r)),
  )
  return { held: checks.every((check) => check.held), checks }
}

export const budgetLines = (budget) => [
  `budget (a miss within the run's measured spread holds): ${budget.held ? "held" : "BROKEN"}`,
  ...budget.checks.map(
    (c) =>
      `  ${c.met ? "met " : c.held ? "near" : "MISS"} ${c.where}: ${c.figure} ${c.value} (${c.way} ${c.target}; spread ${c.spread})`,
  ),
]
