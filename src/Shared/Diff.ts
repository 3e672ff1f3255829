/**
 * A bounded unified diff of two texts' lines: what a file write's question shows
 * (Confirmation/PlanFile.ts) and what a stack's drift shows of its files
 * (Tools/Records/StackDrift.ts). `diff`'s structuredPatch is loaded with the
 * first diff asked for; its edit-length bound keeps a comparison of texts far
 * apart within a few milliseconds, and past it, or past the lines it compares,
 * the diff says so rather than grow. Each line's text stays the caller's to
 * mask and fence: this file knows nothing of where the texts came from.
 */
import * as Effect from "effect/Effect"

/** A run of changed lines with the lines around them, as a unified diff has it: each line `+`, `-` or ` `, then its text. */
export interface Hunk {
  readonly oldStart: number
  readonly oldLines: number
  readonly newStart: number
  readonly newLines: number
  readonly lines: ReadonlyArray<string>
}

/**
 * The changes from one text to another: its hunks; or, past the bounds of what is compared,
 * more lines removed and added than `bound`, or more lines on a side than `bound`.
 */
export type FileDiff =
  | { readonly _tag: "Hunks"; readonly hunks: ReadonlyArray<Hunk> }
  | { readonly _tag: "TooMany"; readonly bound: number }
  | { readonly _tag: "TooLong"; readonly bound: number }

/** The most lines a diff compares on either side, and the most lines removed and added it looks for: past either, it says so. */
const DIFF_BOUNDS = { lines: 10_000, edits: 200 } as const

/** A text's lines, without the empty one after its last line break. */
export const linesOf = (text: string): ReadonlyArray<string> =>
  text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/)

/**
 * What changes from `now` to `next`, in hunks of changed lines with two lines around each;
 * undefined where nothing does.
 */
export const diffOf = (now: ReadonlyArray<string>, next: ReadonlyArray<string>): Effect.Effect<FileDiff | undefined> =>
  Effect.gen(function* () {
    if (now.length === next.length && now.every((line, i) => line === next[i])) return undefined
    if (now.length > DIFF_BOUNDS.lines || next.length > DIFF_BOUNDS.lines)
      return { _tag: "TooLong", bound: DIFF_BOUNDS.lines }
    const { structuredPatch } = yield* Effect.promise(() => import("diff"))
    const joined = (lines: ReadonlyArray<string>) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`)
    const patch = structuredPatch("now", "after", joined(now), joined(next), undefined, undefined, {
      context: 2,
      maxEditLength: DIFF_BOUNDS.edits,
    })
    return patch === undefined
      ? { _tag: "TooMany", bound: DIFF_BOUNDS.edits }
      : {
          _tag: "Hunks",
          hunks: patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({
            oldStart,
            oldLines,
            newStart,
            newLines,
            lines,
          })),
        }
  })

/** A hunk's head as unified diffs write it: a side of no lines starts at the line before. */
const head = (hunk: Hunk): string => {
  const at = (start: number, count: number) => `${count === 0 ? start - 1 : start},${count}`
  return `@@ -${at(hunk.oldStart, hunk.oldLines)} +${at(hunk.newStart, hunk.newLines)} @@`
}

const isChange = (line: string) => line.startsWith("+") || line.startsWith("-")

/** The lines shown of a diff, and the changed lines left out and the hunks they are in. */
export interface Shown {
  readonly shown: ReadonlyArray<string>
  readonly left: number
  readonly leftIn: number
}

/**
 * The diff's lines, at most `most` with the hunks' heads counted, each line written by `line`
 * (its `+`, `-` or ` `, and its text); and the changed lines left out, with their hunks.
 */
export const shownOf = (
  all: ReadonlyArray<Hunk>,
  most: number,
  line: (sign: string, text: string) => string,
): Shown => {
  const shown: Array<string> = []
  let left = 0
  let leftIn = 0
  for (const hunk of all) {
    let out = 0
    // A hunk's head is shown only with room for a line under it.
    const room = most - shown.length >= 2
    if (room) shown.push(head(hunk))
    for (const each of hunk.lines) {
      if (room && shown.length < most) shown.push(line(each.slice(0, 1), each.slice(1)))
      else if (isChange(each)) out++
    }
    if (out > 0) {
      left += out
      leftIn++
    }
  }
  return { shown, left, leftIn }
}
