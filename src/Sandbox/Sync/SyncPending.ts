/**
 * A resource sync against its repository, as the service diffs and applies it.
 * The repository's head commit declares resources (World.repositories); a
 * refresh diffs them against the estate into the shape the service answers
 * (ResourceSyncInfo: TOML text per resource, variable and user group, the
 * deploys the sync would run, the commit they come from); a run applies the
 * same diff to the estate, so that nothing is pending after it.
 */

import * as Toml from "../Resources/SyncToml.js"
import { type Kind, kinds } from "../World/ResourceTypes.js"
import { isRecord } from "../World/Schema.js"
import type { Params, Resource } from "../World/Store.js"
import type { Declared, RepoCommit, UpdateRecord, World } from "../World/World.js"

type Value = NonNullable<Declared["fields"]>[string]

const SECTION: Partial<Record<Kind, string>> = { sync_resource: "resource_sync" }
const section = (kind: Kind) => SECTION[kind] ?? kind

const toml = (kind: Kind, fields: Readonly<Record<string, unknown>>) =>
  `[[${section(kind)}]]\n${Object.entries(fields)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join("\n")}\n`

/** Fields a file names by another resource's name, stored as that resource's id. */
const REFS: Readonly<Record<string, readonly [string, Kind]>> = {
  server: ["server_id", "server"],
  builder: ["builder_id", "builder"],
  swarm: ["swarm_id", "swarm"],
}

/** The kinds a sync's file declares, by their table's name. */
const DECLARABLE: ReadonlyArray<Kind> = [
  "server",
  "swarm",
  "stack",
  "deployment",
  "build",
  "repo",
  "procedure",
  "action",
  "builder",
  "alerter",
  "sync_resource",
  "variable",
  "user_group",
]

/**
 * What a sync's TOML file declares: each `[[deployment]]` and the like, its config's fields dotted,
 * a variable's and a user group's fields as they are. Throws TomlError for a text that is not TOML.
 */
export const declaredIn = (text: string): ReadonlyArray<Declared> => {
  const tables = Toml.parse(text)
  return DECLARABLE.flatMap((kind) => {
    const entries = tables[section(kind)]
    if (!Array.isArray(entries)) return []
    return entries.filter(isRecord).flatMap((entry): ReadonlyArray<Declared> => {
      const { name, description, tags, deploy, config, ...rest } = entry
      if (typeof name !== "string") return []
      const body = isSetting(kind) ? rest : isRecord(config) ? config : {}
      const fields = Object.fromEntries(Toml.leavesOf(body)) as NonNullable<Declared["fields"]>
      return [
        {
          kind,
          name,
          fields,
          ...(deploy === true ? { deploy: true } : {}),
          ...(typeof description === "string" ? { description } : {}),
          ...(Array.isArray(tags) ? { tags: tags.map(String) } : {}),
        },
      ]
    })
  })
}

/** A declared field's value in the estate: a dotted key reads into the config, a reference by name. */
const currentOf = (world: World, r: Resource, key: string): unknown => {
  const reference = REFS[key]
  if (reference !== undefined) {
    const id = r.config[reference[0]]
    return world.store.all(reference[1]).find((x) => x.id === id)?.name ?? ""
  }
  return key.split(".").reduce<unknown>((value, k) => (isRecord(value) ? value[k] : undefined), r.config)
}

/** The config patch a declaration makes: references by id, dotted keys nested. */
const patchOf = (world: World, fields: Readonly<Record<string, Value>>): Record<string, unknown> => {
  const patch: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) {
    const reference = REFS[key]
    if (reference !== undefined) {
      patch[reference[0]] = world.store.all(reference[1]).find((x) => x.name === value)?.id ?? ""
      continue
    }
    const path = key.split(".")
    const last = path.pop() ?? key
    let at = patch
    for (const k of path) {
      const next = isRecord(at[k]) ? at[k] : {}
      at[k] = next
      at = next
    }
    at[last] = value
  }
  return patch
}

/** One declaration that differs from the estate, with the service's DiffData for it. */
interface Change {
  readonly declared: Declared
  readonly existing: Resource | undefined
  readonly data: Record<string, unknown>
  /** Only its description or tags differ: nothing to deploy for it. */
  readonly metaOnly?: true
}

const changeOf = (world: World, d: Declared): Change | undefined => {
  const existing = world.store.all(d.kind).find((x) => x.name === d.name)
  if (d.fields === undefined) {
    return existing === undefined
      ? undefined
      : { declared: d, existing, data: { type: "Delete", data: { current: toml(d.kind, { name: d.name }) } } }
  }
  const proposed = toml(d.kind, { name: d.name, ...metaOf(d), ...d.fields })
  if (existing === undefined)
    return { declared: d, existing, data: { type: "Create", data: { name: d.name, proposed } } }
  const current = Object.fromEntries(Object.keys(d.fields).map((k) => [k, currentOf(world, existing, k)]))
  // A run applies the file's description and tags too, so a difference in them alone is an update.
  const meta = {
    ...(d.description === undefined ? {} : { description: existing.description }),
    ...(d.tags === undefined ? {} : { tags: tagNames(world, existing.tags) }),
  }
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
  const configSame = same(current, d.fields)
  if (configSame && same(meta, metaOf(d))) return undefined
  return {
    declared: d,
    existing,
    ...(configSame ? { metaOnly: true as const } : {}),
    data: { type: "Update", data: { current: toml(d.kind, { name: d.name, ...meta, ...current }), proposed } },
  }
}

/** The description and tags a declaration gives, in the order a comparison reads them. */
const metaOf = (d: Declared) => ({
  ...(d.description === undefined ? {} : { description: d.description }),
  ...(d.tags === undefined ? {} : { tags: d.tags }),
})

/** Tags by id as their names, as a sync's file writes them. */
const tagNames = (world: World, ids: ReadonlyArray<string>) =>
  ids.map((id) => world.store.all("tag").find((t) => t.id === id)?.name ?? id)

/** Whether a change calls for its resource's deploy: made or its config changed, not deleted. */
const deploys = (c: Change) => c.declared.fields !== undefined && c.metaOnly !== true

const isSetting = (kind: Kind) => kind === "variable" || kind === "user_group"

/** The setting of a sync's config that lets it change each sort of thing: resources, variables, user groups. */
const INCLUDES: ReadonlyArray<readonly [(kind: Kind) => boolean, string]> = [
  [(kind) => kind === "variable", "include_variables"],
  [(kind) => kind === "user_group", "include_user_groups"],
  [(kind) => !isSetting(kind), "include_resources"],
]

/**
 * Whether a sync's settings let it make a change: its sort included, and a delete only with
 * `delete` on. A setting left out is false, as the service's definitions complete it.
 */
const allowed = (config: Readonly<Record<string, unknown>>) => (c: Change) => {
  const setting = INCLUDES.find(([of]) => of(c.declared.kind))?.[1] ?? "include_resources"
  return config[setting] === true && (c.declared.fields !== undefined || config.delete === true)
}

/** What the commit declares beyond the estate that the sync's settings let it change, in the commit's order. */
const changesOf = (
  world: World,
  commit: RepoCommit,
  config: Readonly<Record<string, unknown>>,
): ReadonlyArray<Change> => commit.declared.flatMap((d) => changeOf(world, d) ?? []).filter(allowed(config))

/** The pending changes of a sync with `config` whose repository's head is `commit`, as a refresh computes them. */
export const pendingInfo = (
  world: World,
  commit: RepoCommit,
  config: Readonly<Record<string, unknown>>,
): Record<string, unknown> => {
  const changes = changesOf(world, commit, config)
  const of = (kind: Kind) => changes.filter((c) => c.declared.kind === kind).map((c) => c.data)
  return {
    state: changes.length === 0 ? "Ok" : "Pending",
    pending_hash: changes.length === 0 ? "" : commit.hash,
    pending_message: changes.length === 0 ? "" : commit.message,
    pending_error: "",
    pending_deploy_error: "",
    resource_updates: changes
      .filter((c) => !isSetting(c.declared.kind))
      .map((c) => ({ target: { type: kinds[c.declared.kind].target, id: c.existing?.id ?? "" }, data: c.data })),
    variable_updates: of("variable"),
    user_group_updates: of("user_group"),
    pending_deploys: changes
      .filter((c) => c.declared.deploy === true && c.existing !== undefined && deploys(c))
      .map((c) => ({
        target: { type: kinds[c.declared.kind].target, id: c.existing?.id ?? "" },
        reason: "config changed",
        after: [],
      })),
  }
}

/** The head of the repository a sync reads, if the sandbox knows it. */
export const headOf = (world: World, sync: Resource): RepoCommit | undefined =>
  world.repositories.get(String(sync.config.repo ?? ""))

/** Whether a run limited by `resource_type` and `resources` (names or ids) covers the change. */
const covered = (params: Params, c: Change) => {
  const type = typeof params.resource_type === "string" ? params.resource_type : undefined
  const only = Array.isArray(params.resources) ? (params.resources as ReadonlyArray<unknown>) : undefined
  if (type === undefined && only === undefined) return true
  if (isSetting(c.declared.kind)) return false
  if (type !== undefined && kinds[c.declared.kind].target !== type) return false
  return only === undefined || only.includes(c.declared.name) || only.includes(c.existing?.id)
}

/** Tags by name as ids; a name no tag has is made a tag, as the service's sync makes it. */
const tagIds = (world: World, names: ReadonlyArray<string>) =>
  names.map((name) => (world.store.all("tag").find((t) => t.name === name) ?? world.store.create("tag", name)).id)

/** Applies one change to the estate; answers the line the run logs for it. */
const apply = (world: World, c: Change): string => {
  const { kind, name, fields } = c.declared
  const target = kinds[kind].target
  if (fields === undefined) {
    world.store.delete(kind, c.existing?.id ?? name)
    return `deleted ${target} ${name}`
  }
  const made =
    c.existing === undefined
      ? world.store.create(kind, name, { config: patchOf(world, fields) })
      : world.store.update(kind, c.existing.id, patchOf(world, fields))
  if (c.declared.description !== undefined) made.description = c.declared.description
  if (c.declared.tags !== undefined) made.tags = tagIds(world, c.declared.tags)
  return `${c.existing === undefined ? "created" : "updated"} ${target} ${name}`
}

/** Each type's changes as a stage of the run's Update, as the service logs them, in the commit's order. */
const stages = (world: World, update: UpdateRecord, applied: ReadonlyArray<readonly [Kind, string]>) => {
  const order = [...new Set(applied.map(([kind]) => kind))]
  for (const kind of order) {
    const ts = world.now()
    const lines = applied.filter(([k]) => k === kind).map(([, line]) => line)
    const stage = `Sync ${kind === "user_group" ? "User Groups" : kinds[kind].plural}`
    update.logs.push({
      stage,
      command: "",
      stdout: lines.join("\n"),
      stderr: "",
      success: true,
      start_ts: ts,
      end_ts: ts,
    })
  }
}

/**
 * Runs a sync: the changes its repository's head declares beyond the estate
 * applied (those `params` limit it to), each type's a stage of `update`, then
 * the deploys they call for, each through `deploy`, as a stage. Answers the
 * line of the run's last stage.
 */
export const run = (
  world: World,
  sync: Resource,
  params: Params,
  update: UpdateRecord,
  deploy: (kind: Kind, r: Resource) => ReadonlyArray<string>,
): ReadonlyArray<string> => {
  const commit = headOf(world, sync)
  if (commit === undefined) {
    // A repository the sandbox does not hold: what the last refresh found is recorded as synced.
    const hash = typeof sync.info.pending_hash === "string" ? sync.info.pending_hash : ""
    const message = typeof sync.info.pending_message === "string" ? sync.info.pending_message : ""
    sync.info = { ...sync.info, ...synced(world.now()), last_sync_hash: hash, last_sync_message: message }
    return [`${sync.name}: in sync, nothing to change`]
  }
  const changes = changesOf(world, commit, sync.config).filter((c) => covered(params, c))
  stages(
    world,
    update,
    changes.map((c) => [c.declared.kind, apply(world, c)] as const),
  )
  const deployed: Array<string> = []
  for (const c of changes) {
    if (c.declared.deploy !== true || !deploys(c)) continue
    const r = world.store.all(c.declared.kind).find((x) => x.name === c.declared.name)
    if (r !== undefined) deployed.push(...deploy(c.declared.kind, r))
  }
  if (deployed.length > 0) {
    const ts = world.now()
    update.logs.push({
      stage: "Deploy",
      command: "",
      stdout: deployed.join("\n"),
      stderr: "",
      success: true,
      start_ts: ts,
      end_ts: ts,
    })
  }
  sync.info = {
    ...sync.info,
    ...synced(world.now()),
    last_sync_hash: commit.hash,
    last_sync_message: commit.message,
    ...pendingInfo(world, commit, sync.config),
  }
  const count = changes.length
  return [
    `${sync.name}: ${count === 0 ? "in sync, nothing to change" : `applied ${count} changes from ${commit.hash}`}`,
  ]
}

/** The info of a sync once run: nothing pending, the time it ran. */
const synced = (now: number): Record<string, unknown> => ({
  state: "Ok",
  last_sync_ts: now,
  pending_hash: "",
  pending_message: "",
  resource_updates: [],
  variable_updates: [],
  user_group_updates: [],
  pending_deploys: [],
})
