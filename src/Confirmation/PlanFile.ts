/**
 * A file write in the words of its question: which file of which resource,
 * its lines now and after, and every change as a unified diff. The question is
 * the user's one view of a write the assistant may have made after reading
 * untrusted text, so no change hides behind another: each hunk is shown, up to
 * a bound, and past it the changes not shown are counted. Each line of the
 * files is masked (ResourcePlan.ts), escaped onto its own line, cut, and
 * fenced as untrusted text is, since either side may hold what anyone wrote.
 */
import * as Either from "effect/Either"
import { type Hunk, shownOf } from "../Shared/Diff.js"
import { oneLine, quote } from "../Shared/Quote.js"
import { fence, header, token } from "../Untrusted/Fence.js"
import type { FilePlan } from "./PlanShape.js"

/** The most lines of a diff a question shows, the hunks' heads counted. */
const DIFF_LINES = 40

/** The most characters of one line of a file a question shows. */
const LINE_CHARS = 160

const noun = (kind: string) => kind.replace(/_/g, " ")
const lines = (n: number) => `${n} ${n === 1 ? "line" : "lines"}`
const hunks = (n: number) => `${n} ${n === 1 ? "hunk" : "hunks"}`

const diffText = (sizes: string, all: ReadonlyArray<Hunk>): string => {
  const fenceToken = token()
  const { shown, left, leftIn } = shownOf(
    all,
    DIFF_LINES,
    (sign, text) => `${sign}${fence(oneLine(text, LINE_CHARS), fenceToken)}`,
  )
  const fences = header(fenceToken, "the lines of the file below, now (-) and after (+)").trimEnd()
  const rest =
    left === 0
      ? []
      : [`… and ${lines(left)} removed or added, in ${hunks(leftIn)}, not shown here (of ${hunks(all.length)}).`]
  return [`${sizes}; what changes, in ${hunks(all.length)}:`, fences, ...shown, ...rest].join("\n")
}

export const fileText = (plan: FilePlan): string =>
  Either.match(plan.record, {
    onLeft: (why) =>
      `The ${noun(plan.kind)} ${quote(plan.target)} could not be read before asking (${oneLine(why)}), so its file ${quote(plan.path)} now cannot be shown; the new contents have ${lines(plan.lines)}.`,
    onRight: (r) => {
      const head = `This writes ${quote(plan.path)} of the ${noun(plan.kind)} ${quote(r.name)}${r.where === undefined ? "" : ` (${r.where})`}:`
      if (r.now === "unread")
        return `${head} ${lines(plan.lines)}; its contents now are not in the service's cache (a refresh of its cache reads them), so what changes cannot be shown.`
      const sizes =
        r.now === "new"
          ? `${head} a new file of ${lines(plan.lines)}`
          : `${head} ${lines(r.now)} now, ${lines(plan.lines)} after`
      switch (r.diff?._tag) {
        case undefined:
          return r.now === "new"
            ? `${sizes}.`
            : `${head} ${lines(plan.lines)}, the same as now: its contents do not change.`
        case "TooMany":
          return `${sizes}; more than ${lines(r.diff.bound)} are removed or added, too many to show here.`
        case "TooLong":
          return `${sizes}; a file of more than ${lines(r.diff.bound)} is not compared here, so what changes cannot be shown.`
        case "Hunks":
          return diffText(sizes, r.diff.hunks)
      }
    },
  })
