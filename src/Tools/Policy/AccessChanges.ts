/**
 * What changes who may do what, as data, and the readers SVC_ACCESS_CHANGES
 * keeps it away with: the endpoints that make, change or remove users, user
 * groups, permissions and keys; a sync's file text that declares user groups
 * (and the permissions they carry); a sync's pending plan that changes them.
 * The policy refuses the endpoints before anything is sent (Policy.ts, with
 * AccessEndpoints.ts, which a start loads); a sync's file writes, its run or
 * commit, and a procedure's whose stages run a sync, are refused by the call's
 * program (Invoke.ts), the last on the sync's plan, read just before.
 */
import * as Effect from "effect/Effect"
import type { ServerSettingsShape } from "../../Settings/Policy.js"
import { isObject } from "../../Shared/JsonShape.js"
import type { SvcClientShape } from "../../SvcClient.js"
import { diff, list, record, text } from "../Sync/SyncChanges.js"
import { decodeBasic } from "../Sync/Toml.js"
import { accessWords, type CallerAccess } from "./AccessEndpoints.js"

/** The endpoints whose params carry a sync's file text, and where. */
const SYNC_TEXTS: Readonly<Record<string, ReadonlyArray<ReadonlyArray<string>>>> = {
  WriteSyncFileContents: [["contents"]],
  CreateResourceSync: [["config", "file_contents"]],
  UpdateResourceSync: [["config", "file_contents"]],
}

/** The endpoints whose run applies, or whose commit writes, the sync's pending plan. */
const SYNC_RUNS: ReadonlySet<string> = new Set(["RunSync", "CommitSync"])

const KEY = /^[A-Za-z0-9_-]+/
/** The dotted key at the start of `text` (bare, "basic" or 'literal' parts), and what follows it. */
const keyAt = (text: string): { readonly path: ReadonlyArray<string>; readonly rest: string } | undefined => {
  const path: Array<string> = []
  let rest = text.trimStart()
  for (;;) {
    const quote = rest[0]
    if (quote === '"' || quote === "'") {
      // A basic string's body ends at the first quote no backslash escapes.
      const end = quote === "'" ? rest.indexOf("'", 1) : /^"((?:[^"\\]|\\.)*)"/.exec(rest)?.[0].length
      if (end === undefined || end < 0) return undefined
      const body = quote === "'" ? rest.slice(1, end) : rest.slice(1, end - 1)
      path.push(quote === "'" ? body : decodeBasic(body))
      rest = rest.slice(quote === "'" ? end + 1 : end).trimStart()
    } else {
      const bare = KEY.exec(rest)?.[0]
      if (bare === undefined) return undefined
      path.push(bare)
      rest = rest.slice(bare.length).trimStart()
    }
    if (rest[0] !== ".") return { path, rest }
    rest = rest.slice(1).trimStart()
  }
}

/** A string value at the start of `text`, basic or literal, on its line. */
const stringAt = (text: string): string | undefined => {
  const value = text.trimStart()
  const literal = /^'([^'\n]*)'/.exec(value)
  if (literal !== null) return literal[1]
  const quoted = /^"((?:[^"\\\n]|\\.)*)"/.exec(value)
  return quoted === null ? undefined : decodeBasic(quoted[1] ?? "")
}

const GROUP = "user_group"

/**
 * The user groups a sync's file text declares, by name (`(unnamed)` where it names none), or
 * none. Read line by line in one pass, every line as TOML would read it outside a string: a line
 * inside a multi-line string that reads as a table of user groups counts too, which refuses more
 * and never less. Keys are compared decoded, so `["user\u005fgroup"]` is a user group as well.
 */
export const declaredGroups = (text: string): ReadonlyArray<string> => {
  const groups: Array<string> = []
  let table: ReadonlyArray<string> = []
  let start = 0
  while (start <= text.length) {
    const newline = text.indexOf("\n", start)
    const end = newline < 0 ? text.length : newline
    const line = text.slice(start, end).trim()
    start = end + 1
    if (line.startsWith("[")) {
      const array = line.startsWith("[[")
      const key = keyAt(line.slice(array ? 2 : 1))
      if (key === undefined) continue
      table = key.path
      if (table[0] === GROUP && table.length === 1 && array) groups.push("(unnamed)")
      else if (table[0] === GROUP && groups.length === 0) groups.push("(unnamed)")
      continue
    }
    const key = keyAt(line)
    if (key === undefined || !key.rest.startsWith("=")) continue
    const path = [...table, ...key.path]
    if (path[0] !== GROUP) continue
    if (groups.length === 0) groups.push("(unnamed)")
    const name = path.length === 2 && path[1] === "name" ? stringAt(key.rest.slice(1)) : undefined
    if (name !== undefined && groups[groups.length - 1] === "(unnamed)") groups[groups.length - 1] = name
  }
  return groups
}

const at = (value: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), value)

/** A name from a sync's files or record as a refusal shows it: on one line, quoted, cut to a length. */
const quoted = (name: string): string => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)

/** The user groups the sync's file text in a call's params declares (quoted), where the endpoint writes such a text. */
const groupsWritten = (endpoint: string, params: unknown): ReadonlyArray<string> =>
  (SYNC_TEXTS[endpoint] ?? []).flatMap((path) => {
    const text = at(params, path)
    return typeof text === "string" ? declaredGroups(text).map(quoted) : []
  })

/** The user groups a sync's record's pending plan creates, updates or deletes, each after its change. */
const groupsPending = (sync: unknown): ReadonlyArray<string> =>
  list(record(record(sync).info).user_group_updates).flatMap((update) => {
    const d = diff(update)
    return d === undefined ? [] : [`${d.kind.toLowerCase()} ${quoted(d.name ?? "(unnamed)")}`]
  })

/** A list of what a refusal names: the first few, and how many more. */
const listed = (items: ReadonlyArray<string>, shown = 5): string =>
  `${items.slice(0, shown).join(", ")}${items.length > shown ? ` and ${items.length - shown} more` : ""}`

/**
 * Why a sync's run or commit is refused while access changes are kept away: the user groups its
 * pending plan changes, or that the plan could not be read. The plan is computed afresh first
 * (RefreshResourceSyncPending, which changes nothing of the estate), as the run computes its own
 * from the files: a plan as of an older refresh may not show what the files declare now.
 */
const pendingRefusal = (
  client: SvcClientShape,
  params: Readonly<Record<string, unknown>>,
  words: string,
): Effect.Effect<string | undefined> => {
  const sync = typeof params.sync === "string" ? params.sync : ""
  return client.call("write", "RefreshResourceSyncPending", { sync }).pipe(
    Effect.flatMap((refreshed) =>
      isObject(refreshed) && isObject(refreshed.info)
        ? Effect.succeed(refreshed)
        : client.call("read", "GetResourceSync", { sync }),
    ),
    Effect.map((record_) => {
      const error = text(record(record(record_).info).pending_error)
      if (error !== undefined)
        return `the sync's pending changes could not be computed, so whether they change user groups is unknown: ${words}`
      const groups = groupsPending(record_)
      return groups.length === 0
        ? undefined
        : `the sync's pending changes touch user groups (${listed(groups)}): ${words}`
    }),
    Effect.orElseSucceed(
      () =>
        `the sync's pending changes could not be read first, so whether they change user groups is unknown: ${words}`,
    ),
  )
}

/** The settings a call's program reads to keep access changes away (Invoke.ts). */
export interface AccessSettings extends Partial<Pick<ServerSettingsShape, "mode" | "accessChanges">>, CallerAccess {}

/**
 * Why a call is refused while access changes are kept away, if it is: a write of a sync's file text
 * (`endpoint`, with `params`) that declares user groups, naming them; or a sync's run or commit: its pending plan, read just before, touches user groups. A procedure's run is
 * refused so for each sync its stages run (and the stages of the procedures they run). A batch of
 * procedures, and an action's script, are not read.
 */
export const syncRefusal = (
  client: SvcClientShape,
  endpoint: string,
  params: Readonly<Record<string, unknown>>,
  settings: AccessSettings,
  variable: (name: string) => string,
): Effect.Effect<string | undefined> => {
  const words = accessWords({ mode: settings.mode ?? "full", ...settings }, variable)
  if (words === undefined) return Effect.succeed(undefined)
  const written = groupsWritten(endpoint, params)
  if (written.length > 0)
    return Effect.succeed(
      `the sync's file text declares the user groups ${listed(written)}, which a run would apply: ${words}`,
    )
  if (!SYNC_RUNS.has(endpoint) && endpoint !== "RunProcedure") return Effect.succeed(undefined)
  if (endpoint !== "RunProcedure") return pendingRefusal(client, params, words)
  // A procedure's stages may run a sync: each is refused as its own run would be.
  return Effect.flatMap(syncsRun(client, text(params.procedure) ?? "", 0), (syncs) =>
    Effect.reduce([...new Set(syncs)], undefined as string | undefined, (found, sync) =>
      found !== undefined
        ? Effect.succeed(found)
        : Effect.map(pendingRefusal(client, { sync }, words), (reason) =>
            reason === undefined ? undefined : `a stage runs the sync ${quoted(sync)}, and ${reason}`,
          ),
    ),
  )
}

/** How deep procedures that run procedures are followed. */
const MAX_NESTED = 3

/** The executions a procedure's enabled stages run, as the definitions give them. */
const executionsOf = (procedure: unknown): ReadonlyArray<Record<string, unknown>> =>
  list(record(record(procedure).config).stages)
    .filter((stage) => record(stage).enabled !== false)
    .flatMap((stage) => list(record(stage).executions))
    .filter((execution) => record(execution).enabled !== false)
    .map((execution) => record(record(execution).execution))

/** The syncs a procedure's stages run, through the procedures they run in turn; none where it cannot be read. */
const syncsRun = (client: SvcClientShape, procedure: string, depth: number): Effect.Effect<ReadonlyArray<string>> =>
  depth > MAX_NESTED
    ? Effect.succeed([])
    : client.call("read", "GetProcedure", { procedure }).pipe(
        Effect.flatMap((read) => {
          const executions = executionsOf(read)
          const named = (type: string, key: string) =>
            executions
              .flatMap((e) => (e.type === type ? [text(record(e.params)[key])] : []))
              .filter((n) => n !== undefined)
          return Effect.map(
            Effect.forEach(named("RunProcedure", "procedure"), (nested) => syncsRun(client, nested, depth + 1)),
            (deeper) => [...named("RunSync", "sync"), ...deeper.flat()],
          )
        }),
        Effect.orElseSucceed(() => []),
      )
