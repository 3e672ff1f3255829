/**
 * A resource sync at a glance: its pending changes as a plan, in place of the
 * whole record (whose TOML texts an assistant would otherwise read and
 * compare). Each change's kind, the resource's type and name, and for an update
 * the fields it changes, from what to what; the pending deploys by name; the
 * commit the changes come from, its message fenced once. `fields: ["*"]` gives
 * the whole record.
 *
 * The changes are read as a confirmation's plan reads them (SyncChanges.ts).
 * What a change writes comes from the sync's files, untrusted (Untrusted/Fields.ts,
 * `DiffData`): a name read from them and every field and value are at UNTRUSTED
 * paths, fenced; a name read from the service for the target's id is fenced
 * along with them, as the one path holds both. A field named like a credential,
 * and a secret variable's value, show `[redacted]`, as a row's do, whatever the
 * settings.
 */
import { wordOf } from "../../Kinds/Kinds.js"
import { REDACTED } from "../../Shared/Secrets.js"
import type { Pattern } from "../../Untrusted/Derive.js"
import { CREDENTIAL } from "../Bounds/AnswerBounds.js"
import type { NameKind, NameMaps } from "../Names/Names.js"
import type { Glimpse, Step } from "../Records/Records.js"
import { type Diff, diff, list, record, resourceDiffs, text } from "./SyncChanges.js"
import { type Changed, changed, resourceOf } from "./Toml.js"

/** Where a plan holds text from the sync's files and commits. */
const UNTRUSTED: ReadonlyArray<Pattern> = [
  ["message", "ResourceSyncInfo"],
  ["error", "ResourceSyncInfo"],
  ["file_errors", "ResourceSyncInfo"],
  ["changes.[].name", "DiffData"],
  ["changes.[].fields", "DiffData"],
]

const LINE =
  "[svc-mcp: the sync's pending changes, from its repository at `commit` as last refreshed; an update's fields as [field, before, after], a long value's as [field]; fields: [\"*\"]: the whole record]\n"

/** The step that computes the plan anew: named as a call only where it is offered (Hints.ts). */
export const REFRESH: Step = {
  tool: "svc_execute",
  selector: "refresh_sync_pending",
  does: "computes the plan anew from the sync's repository",
  want: "to compute the plan anew from the sync's repository",
}

/** A value longer than this, or of several lines, is left out of a change: the field's name says it changes. */
const SHORT = 80

type Json = Readonly<Record<string, unknown>>

/** A field of a change as shown: a credential's values redacted, a long one's left out. */
const shownField = ([field, before, after]: Changed, secret: boolean): ReadonlyArray<string | null> => {
  const leaf = field.slice(field.lastIndexOf(".") + 1)
  if (CREDENTIAL.test(leaf) || (secret && field === "value"))
    return [field, before === null ? null : REDACTED, after === null ? null : REDACTED]
  const long = (value: string | null) => value !== null && (value.length > SHORT || value.includes("\n"))
  return long(before) || long(after) ? [field] : [field, before, after]
}

/** What an update's fields show where either text cannot be read as TOML. */
const UNREAD: ReadonlyArray<ReadonlyArray<string>> = [["(its text could not be read as TOML)"]]

/**
 * One change as shown: its kind, its type and name, and what an update changes. A `value` is secret
 * where either text says `is_secret = true`; a variable the service holds secret was hidden in both
 * texts already, unless SVC_REVEAL_SECRETS (TomlSecrets.ts).
 */
const changeOf = (type: string, name: string, d: Diff): Json => {
  const change = d.kind.toLowerCase()
  if (d.kind !== "Update") return { change, type, name }
  const secret = secretIn(d.current) || secretIn(d.proposed)
  const fields = changed(d.current ?? "", d.proposed ?? "")?.map((c) => shownField(c, secret)) ?? UNREAD
  return { change, type, name, fields }
}

/** Whether a change's text says its value is secret (`is_secret = true`), or cannot be read to say. */
const secretIn = (toml: string | undefined): boolean => {
  if (toml === undefined) return false
  const table = resourceOf(toml)
  return table === undefined || table.is_secret === true
}

const nameIn = (names: NameMaps, type: string, id: string): string | undefined => {
  const kind = wordOf(type)
  return kind === undefined || id === "" ? undefined : names[kind]?.get(id)
}

/** A ResourceTarget as a deploy shows it: `Stack web`, by the service's name for its id where there is one. */
const targetOf = (value: unknown, names: NameMaps): string => {
  const t = record(value)
  const type = text(t.type) ?? "Resource"
  const id = text(t.id)
  return id === undefined ? type : `${type} ${nameIn(names, type, id) ?? id}`
}

const changesOf = (info: Json, names: NameMaps): ReadonlyArray<Json> => [
  // A target's name as the files write it (the service matches them by it), else as the service names its id.
  ...resourceDiffs(info).map((d) => changeOf(d.type, d.name ?? nameIn(names, d.type, d.id) ?? d.id, d)),
  ...[
    ["Variable", info.variable_updates],
    ["UserGroup", info.user_group_updates],
  ].flatMap(([type, updates]) =>
    list(updates).flatMap((value) => {
      const d = diff(value)
      return d === undefined ? [] : [changeOf(type as string, d.name ?? "", d)]
    }),
  ),
]

const deploysOf = (info: Json, names: NameMaps): ReadonlyArray<Json> =>
  list(info.pending_deploys).map((value) => {
    const deploy = record(value)
    const after = list(deploy.after).map((t) => targetOf(t, names))
    const reason = text(deploy.reason)
    return {
      target: targetOf(deploy.target, names),
      ...(reason === undefined ? {} : { reason }),
      ...(after.length === 0 ? {} : { after }),
    }
  })

/** A sync's record at a glance: the plan of its pending changes, and where it holds untrusted text. */
export const glance = (data: unknown, names: NameMaps): Glimpse => {
  const sync = record(data)
  const config = record(sync.config)
  const info = record(sync.info)
  const id = text(record(sync._id).$oid)
  const repo = text(config.repo)
  const linked = text(config.linked_repo)
  const optional = (key: string, value: unknown) => (value === undefined ? {} : { [key]: value })
  const files = list(info.remote_errors).map((f) => [text(record(f).path) ?? "", text(record(f).contents) ?? ""])
  const value = {
    name: sync.name,
    ...optional("id", id),
    ...optional("repo", repo ?? (linked === undefined ? undefined : (names.repo?.get(linked) ?? linked))),
    ...optional("branch", repo === undefined && linked === undefined ? undefined : text(config.branch)),
    ...optional("last_sync", text(info.last_sync_hash)),
    ...optional("commit", text(info.pending_hash)),
    ...optional("message", text(info.pending_message)),
    changes: changesOf(info, names),
    deploys: deploysOf(info, names),
    ...optional("error", text(info.pending_error)),
    ...optional("deploy_error", text(info.pending_deploy_error)),
    ...(files.length === 0 ? {} : { file_errors: files }),
  }
  return { value, untrusted: UNTRUSTED, line: LINE, next: REFRESH }
}

/**
 * The kinds of names a sync's plan reads from the service: its deploys' targets', a linked repo's,
 * and a change's target's where the files give no name (they name what they change, so mostly none).
 */
export const kindsFor = (data: unknown): ReadonlyArray<NameKind> => {
  const info = record(record(data).info)
  const types = [
    ...resourceDiffs(info).flatMap((d) => (d.id === "" || d.name !== undefined ? [] : [d.type])),
    ...list(info.pending_deploys).flatMap((value) => {
      const deploy = record(value)
      return [record(deploy.target).type, ...list(deploy.after).map((t) => record(t).type)]
    }),
    ...(text(record(record(data).config).linked_repo) === undefined ? [] : ["Repo"]),
  ]
  const kinds = new Set<NameKind>()
  for (const type of types) {
    const kind = typeof type === "string" ? wordOf(type) : undefined
    if (kind !== undefined) kinds.add(kind)
  }
  return [...kinds]
}
