/**
 * Drift at a glance: a stack whose deployed commit or files differ from its repository's says
 * so in its glance, with both commits and which files differ. The files' paths are read from the
 * repository, untrusted text (Untrusted/Fields.ts, `StackInfo`): the glance fences them.
 */
import { isObject } from "../../Shared/JsonShape.js"
import type { Pattern } from "../../Untrusted/Derive.js"

/** More files than this are counted, not named. */
const MOST_FILES = 20

/** Where a stack's glance holds untrusted text: the paths of the files that differ. */
export const UNTRUSTED: ReadonlyArray<Pattern> = [["drift.files", "StackInfo"]]

/** Each file's contents by its path. */
const contentsOf = (files: unknown): ReadonlyMap<string, unknown> => {
  const out = new Map<string, unknown>()
  if (Array.isArray(files))
    for (const file of files) if (isObject(file) && typeof file.path === "string") out.set(file.path, file.contents)
  return out
}

/** The drift of a stack's record, or undefined where its deployed commit and files are its repository's. */
export const of = (record: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | undefined => {
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
  return {
    deployed_commit: deployed ?? null,
    repository_commit: latest ?? null,
    files: files.slice(0, MOST_FILES),
    ...(files.length > MOST_FILES ? { more_files: files.length - MOST_FILES } : {}),
  }
}
