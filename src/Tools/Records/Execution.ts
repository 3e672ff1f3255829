/**
 * An execution's result at a glance: what svc_execute answers, with or
 * without `wait`, in place of the whole Update. The operation, the target by
 * name, the status, success and how long it took; each stage, with the lines
 * of output and stderr that say how it ended (OK_LINES below); the Update's
 * id, to follow it. `fields: ["*"]` gives
 * the whole Update, other `fields` the paths of it they name.
 *
 * The output and stderr are a process's own words, untrusted as the Update's
 * logs are (Untrusted/Fields.ts, `Log`): their paths here are UNTRUSTED, and
 * rendering fences them. Nothing else here is read from them.
 */
import { wordOf } from "../../Kinds/Kinds.js"
import type { Pattern } from "../../Untrusted/Derive.js"
import type { NameKind, NameMaps } from "../Names/Names.js"
import * as Listed from "./Listed.js"
import type { Glimpse } from "./Records.js"

/**
 * The last lines of a stage's output kept. Of an Update that succeeded, the last line of its last
 * stage's output, which says how it ended; the stages before it are named only. Of one that failed
 * or has not ended, a few lines of each stage that failed, of its output and of its stderr, as an
 * error says most at its end. A stage that succeeded shows no stderr: there docker compose, git and
 * docker's build write their progress, and an assistant would read it as an error.
 */
const OK_LINES = 1
const ERR_LINES = 5

/** Where a glance holds untrusted text: a stage's output and stderr, for one Update and for a batch's. */
const UNTRUSTED: ReadonlyArray<Pattern> = [
  ["stages.[].out", "Log"],
  ["stages.[].err", "Log"],
]
const UNTRUSTED_BATCH: ReadonlyArray<Pattern> = [
  ["[].stages.[].out", "Log"],
  ["[].stages.[].err", "Log"],
]

type Json = Readonly<Record<string, unknown>>

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const isUpdate = (value: unknown): value is Json =>
  isJson(value) && typeof value.operation === "string" && typeof value.status === "string"

/** A batch's answer: `{status: "Ok", data: Update}` or `{status: "Err", data: {name, error}}` per target. */
const isBatch = (value: unknown): value is ReadonlyArray<Json> =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every((item) => isJson(item) && (item.status === "Ok" || item.status === "Err"))

/** Whether `data` is what an execution answers: an Update, or a batch of them. */
export const isExecution = (data: unknown): boolean => isUpdate(data) || isBatch(data)

/** `text`'s last `count` lines, and how many came before them. */
const tail = (text: string, count: number): { readonly text: string; readonly cut: number } => {
  const lines = text.replace(/\n+$/, "").split("\n")
  return lines.length <= count
    ? { text: lines.join("\n"), cut: 0 }
    : { text: lines.slice(-count).join("\n"), cut: lines.length - count }
}

/**
 * One stage at a glance; `succeeded` when the Update succeeded, `last` when this is its last stage.
 * Of an Update that succeeded, a stage that did says nothing of it: the Update's `success` says it once.
 */
const stageOf = (log: unknown, succeeded: boolean, last: boolean): Json | undefined => {
  if (!isJson(log)) return undefined
  const ok = typeof log.success === "boolean" ? log.success : null
  const shown = ok !== true || (succeeded && last)
  const lines = ok === true ? OK_LINES : ERR_LINES
  const out = shown && typeof log.stdout === "string" && log.stdout.trim() !== "" ? tail(log.stdout, lines) : undefined
  const err =
    ok !== true && typeof log.stderr === "string" && log.stderr.trim() !== "" ? tail(log.stderr, ERR_LINES) : undefined
  const cut = (out?.cut ?? 0) + (err?.cut ?? 0)
  return {
    stage: typeof log.stage === "string" ? log.stage : "",
    ...(succeeded && ok === true ? {} : { ok }),
    ...(out === undefined ? {} : { out: out.text }),
    ...(err === undefined ? {} : { err: err.text }),
    // Lines left out, before those shown: fields ["logs"] shows them all.
    ...(cut === 0 ? {} : { lines_before: cut }),
  }
}

/** Each stage at a glance: of an Update that succeeded, only its last stage shows its output. */
const stagesOf = (update: Json): ReadonlyArray<Json> => {
  const logs = Array.isArray(update.logs) ? update.logs : []
  const succeeded = update.status === "Complete" && update.success === true
  return logs.flatMap((log: unknown, i) => {
    const stage = stageOf(log, succeeded, i === logs.length - 1)
    return stage === undefined ? [] : [stage]
  })
}

/** The target's name: the one `names` gives its id, else the one the call's params gave, else its id. */
const targetOf = (update: Json, names: NameMaps, given: string | undefined): string | null => {
  const target = isJson(update.target) ? update.target : undefined
  if (target === undefined) return null
  const type = typeof target.type === "string" ? target.type : ""
  const id = typeof target.id === "string" ? target.id : ""
  if (type === "System") return "System"
  const kind = wordOf(type)
  const name = (kind === undefined ? undefined : names[kind]?.get(id)) ?? given ?? id
  return `${type} ${name}`
}

const secondsOf = (update: Json): number | undefined =>
  typeof update.start_ts === "number" && typeof update.end_ts === "number" && update.end_ts >= update.start_ts
    ? Math.round((update.end_ts - update.start_ts) / 100) / 10
    : undefined

/** One Update at a glance. `given` is the target's name as the call's params gave it, if they did. */
const glanceOne = (update: Json, names: NameMaps, given: string | undefined, listed?: Json): Json => {
  const id = isJson(update._id) && typeof update._id.$oid === "string" ? update._id.$oid : undefined
  const seconds = secondsOf(update)
  return {
    operation: update.operation,
    target: targetOf(update, names, given),
    status: update.status,
    // Meaningful once Complete: before that, the service says true.
    ...(update.status === "Complete" ? { success: update.success === true } : {}),
    ...(seconds === undefined ? {} : { seconds }),
    ...(id === undefined ? {} : { update: id }),
    // What now holds: the target's state, as its list says it after the Update (Listed.ts).
    ...Listed.stateField(isJson(update.target) ? update.target.type : undefined, listed),
    stages: stagesOf(update),
  }
}

/** An execution's answer at a glance, and where it holds untrusted text. */
export const glance = (data: unknown, names: NameMaps, given: string | undefined, listed?: Json): Glimpse =>
  isUpdate(data)
    ? { value: glanceOne(data, names, given, listed), untrusted: UNTRUSTED }
    : {
        value: (data as ReadonlyArray<Json>).map((item) =>
          item.status === "Ok" && isUpdate(item.data)
            ? glanceOne(item.data, names, undefined)
            : { status: "Err", ...(isJson(item.data) ? item.data : { error: item.data }) },
        ),
        untrusted: UNTRUSTED_BATCH,
      }

/** An id as the service makes them: 24 hex digits. */
const ID = /^[0-9a-f]{24}$/

/** The target's name as the call's params gave it, when they gave a name rather than an id. */
export const givenName = (data: unknown, body: Json): string | undefined => {
  const target = isUpdate(data) && isJson(data.target) ? data.target : undefined
  // The params name a target by its kind of names: `{stack: "web"}` for a Stack (no execution targets a Builder or a user).
  const key = typeof target?.type === "string" ? wordOf(target.type) : undefined
  const value = key === undefined ? undefined : body[key]
  return typeof value === "string" && value !== "" && !ID.test(value) ? value : undefined
}

/** The kinds of names a glance of `data` needs read: a target's, where the params did not name it. */
export const kindsFor = (data: unknown, body: Json): ReadonlyArray<NameKind> => {
  const updates = isUpdate(data)
    ? givenName(data, body) === undefined
      ? [data]
      : []
    : isBatch(data)
      ? data.flatMap((item) => (item.status === "Ok" && isUpdate(item.data) ? [item.data] : []))
      : []
  const kinds = new Set<NameKind>()
  for (const update of updates) {
    const type = isJson(update.target) ? update.target.type : undefined
    const kind = typeof type === "string" ? wordOf(type) : undefined
    if (kind !== undefined) kinds.add(kind)
  }
  return [...kinds]
}
