/**
 * Drift at a glance: a stack whose deployed commit or files differ from its repository's says
 * so in its glance, with both commits and which files differ. The files' paths are read from the
 * repository, untrusted text (Untrusted/Fields.ts, `StackInfo`): the glance fences them.
 *
 * `fields: ["drift.diff"]` shows the files' changes too, deployed (-) against repository (+), as
 * a unified diff (Shared/Diff.ts) bounded in lines, each line masked and fenced, and the lines
 * left out counted; it is made only when a `fields` path under `drift` asks for it.
 */
import * as Effect from "effect/Effect"
import * as Diff from "../../Shared/Diff.js"
import { isObject } from "../../Shared/JsonShape.js"
import { oneLine } from "../../Shared/Quote.js"
import type { Pattern } from "../../Untrusted/Derive.js"
import { mask } from "../../Untrusted/Mask.js"

/** More files than this are counted, not named. */
const MOST_FILES = 20

/** The most lines of the diff shown, files' and hunks' heads counted. */
const DIFF_LINES = 60

/** The most characters of one line of a file shown. */
const LINE_CHARS = 160

/** Where a stack's glance holds untrusted text: the paths of the files that differ. */
export const UNTRUSTED: ReadonlyArray<Pattern> = [["drift.files", "StackInfo"]]

/** Where the answer to `fields` under `drift` holds untrusted text, beside the stack's own: the files and their diff. */
export const UNTRUSTED_ASKED: ReadonlyArray<Pattern> = [
  ["drift.files", "StackInfo"],
  ["drift.diff", "StackInfo"],
]

/** The `fields` path that shows the diff, as the glance says. */
const DIFF_PATH = "drift.diff"

/**
 * Whether `fields` asks for the drift (and so its diff is made), of an answer whose reads beside it
 * make one (a stack's record: ReadsBeside.ts).
 */
export const asks = (fields: ReadonlyArray<string> | undefined): boolean =>
  fields?.some((f) => f === "drift" || f.startsWith("drift.")) === true

/** Each file's contents by its path. */
const contentsOf = (files: unknown): ReadonlyMap<string, unknown> => {
  const out = new Map<string, unknown>()
  if (Array.isArray(files))
    for (const file of files) if (isObject(file) && typeof file.path === "string") out.set(file.path, file.contents)
  return out
}

/** The drift of a stack's record, or undefined where its deployed commit and files are its repository's. */
export const of = (record: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | undefined => {
  const found = driftOf(record)
  return found === undefined ? undefined : { ...found.drift, see_diff: `fields: ${JSON.stringify([DIFF_PATH])}` }
}

interface Found {
  readonly drift: Readonly<Record<string, unknown>>
  readonly files: ReadonlyArray<string>
  readonly was: ReadonlyMap<string, unknown>
  readonly now: ReadonlyMap<string, unknown>
}

const driftOf = (record: Readonly<Record<string, unknown>>): Found | undefined => {
  const info = isObject(record.info) ? record.info : undefined
  if (info === undefined) return undefined
  const deployed = typeof info.deployed_hash === "string" && info.deployed_hash !== "" ? info.deployed_hash : undefined
  const latest = typeof info.latest_hash === "string" && info.latest_hash !== "" ? info.latest_hash : undefined
  const was = contentsOf(info.deployed_contents)
  const now = contentsOf(info.remote_contents)
  // Only where both sides were read: a stack never deployed, or whose repository was not read, says nothing of its files.
  const files =
    was.size === 0 || now.size === 0
      ? []
      : [...new Set([...was.keys(), ...now.keys()])].filter((path) => was.get(path) !== now.get(path)).sort()
  const commits = deployed !== undefined && latest !== undefined && deployed !== latest
  if (!commits && files.length === 0) return undefined
  const drift = {
    deployed_commit: deployed ?? null,
    repository_commit: latest ?? null,
    files: files.slice(0, MOST_FILES),
    ...(files.length > MOST_FILES ? { more_files: files.length - MOST_FILES } : {}),
  }
  return { drift, files: files.slice(0, MOST_FILES), was, now }
}

const textOf = (contents: unknown): string => (typeof contents === "string" ? contents : "")

/** One file's lines of the diff: its head, then its hunks' (or why they are not compared), within `room`. */
const fileLines = (path: string, diff: Diff.FileDiff | undefined, room: number): Diff.Shown => {
  const heads = [`--- deployed/${path}`, `+++ repository/${path}`]
  if (diff === undefined || room < 3) return { shown: [], left: 0, leftIn: 0 }
  if (diff._tag !== "Hunks")
    return {
      shown: [
        ...heads,
        diff._tag === "TooMany"
          ? `more than ${diff.bound} lines removed or added: not compared here`
          : `a side of more than ${diff.bound} lines: not compared here`,
      ],
      left: 0,
      leftIn: 0,
    }
  const body = Diff.shownOf(
    diff.hunks,
    room - heads.length,
    (sign, text) => `${sign}${oneLine(mask(text), LINE_CHARS)}`,
  )
  return { ...body, shown: [...heads, ...body.shown] }
}

/**
 * `record` with its drift beside it (`drift`), the diff of its files made: asked for by `fields`.
 * A stack with no drift answers as it came.
 */
export const withDiff = (record: unknown): Effect.Effect<unknown> =>
  Effect.gen(function* () {
    if (!isObject(record)) return record
    const found = driftOf(record)
    if (found === undefined) return record
    const diff: Array<string> = []
    let left = 0
    let leftIn = 0
    let unshown = 0
    for (const path of found.files) {
      const was = Diff.linesOf(textOf(found.was.get(path)))
      const now = Diff.linesOf(textOf(found.now.get(path)))
      const lines = fileLines(path, yield* Diff.diffOf(was, now), DIFF_LINES - diff.length)
      if (lines.shown.length === 0) unshown++
      diff.push(...lines.shown)
      left += lines.left
      leftIn += lines.leftIn
    }
    const not_shown =
      left === 0 && unshown === 0
        ? {}
        : { diff_not_shown: { changed_lines: left, in_hunks: leftIn, ...(unshown === 0 ? {} : { files: unshown }) } }
    return { ...record, drift: { ...found.drift, diff, ...not_shown } }
  })
