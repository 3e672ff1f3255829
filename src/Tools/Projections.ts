/**
 * The default answer of each list, as data: per endpoint, the columns an
 * operator looks at first, each read from a path of the service's record.
 * A list answered without `fields` is shown as one row per item with these
 * columns; `fields` picks paths of the record instead, and `fields: ["*"]`
 * keeps the whole record. Glance.ts reads this table; docs/tools.md explains it.
 *
 * A column's `path` is a dotted path of the record, read through arrays as
 * `fields` reads it (`info.services.service`: the service of each service).
 * `name` says the value is an id (or a list of ids) of that kind, shown as
 * its name (Names.ts); `given` is the record's own field for that name, used
 * when the service gave one. `key` with `when`: of the objects at `path`, the
 * `key` of those whose `when` is true.
 *
 * No column reads an untrusted field (Untrusted/Fields.ts) nor a credential:
 * a test holds the table to both.
 */
import type { NameKind } from "./Names.js"

export interface Column {
  readonly label: string
  readonly path: string
  readonly name?: NameKind
  readonly given?: string
  readonly key?: string
  readonly when?: string
}

export interface Projection {
  /** What one item is, in the plural: "stacks". */
  readonly noun: string
  readonly columns: ReadonlyArray<Column>
}

const NAME: Column = { label: "name", path: "name" }
const ID: Column = { label: "id", path: "id" }
const STATE: Column = { label: "state", path: "info.state" }
const TAGS: Column = { label: "tags", path: "tags", name: "tag" }
const SERVER: Column = { label: "server", path: "info.server_id", name: "server", given: "info.server_name" }
const REPO: Column = { label: "repo", path: "info.repo" }
const BRANCH: Column = { label: "branch", path: "info.branch" }
const OID: Column = { label: "id", path: "_id.$oid" }

/** By endpoint (`read/ListStacks`): the lists of svc_list. Summaries are counters already, and stay whole. */
export const PROJECTIONS: Readonly<Record<string, Projection>> = {
  "read/ListStacks": {
    noun: "stacks",
    columns: [
      NAME,
      ID,
      STATE,
      SERVER,
      TAGS,
      REPO,
      BRANCH,
      { label: "services", path: "info.services.service" },
      { label: "updates", path: "info.services", key: "service", when: "update_available" },
    ],
  },
  "read/ListDeployments": {
    noun: "deployments",
    columns: [
      NAME,
      ID,
      STATE,
      SERVER,
      TAGS,
      { label: "image", path: "info.image" },
      { label: "update", path: "info.update_available" },
    ],
  },
  "read/ListServers": {
    noun: "servers",
    columns: [
      NAME,
      ID,
      STATE,
      TAGS,
      { label: "region", path: "info.region" },
      // The definitions give CPU in percent, memory and disk as used and total gigabytes.
      { label: "cpu_perc", path: "info.stats.cpu_perc" },
      { label: "mem_used_gb", path: "info.stats.mem_used_gb" },
      { label: "mem_total_gb", path: "info.stats.mem_total_gb" },
      { label: "disk_used_gb", path: "info.stats.disk_used_gb" },
      { label: "disk_total_gb", path: "info.stats.disk_total_gb" },
    ],
  },
  "read/ListBuilds": {
    noun: "builds",
    columns: [
      NAME,
      ID,
      STATE,
      TAGS,
      { label: "builder", path: "info.builder_id", name: "builder" },
      { label: "version", path: "info.version" },
      REPO,
      BRANCH,
      { label: "last_built_at", path: "info.last_built_at" },
    ],
  },
  "read/ListRepos": {
    noun: "repos",
    columns: [
      NAME,
      ID,
      STATE,
      SERVER,
      { label: "builder", path: "info.builder_id", name: "builder" },
      TAGS,
      REPO,
      BRANCH,
    ],
  },
  "read/ListProcedures": {
    noun: "procedures",
    columns: [
      NAME,
      ID,
      STATE,
      TAGS,
      { label: "stages", path: "info.stages" },
      { label: "last_run_at", path: "info.last_run_at" },
    ],
  },
  "read/ListActions": {
    noun: "actions",
    columns: [NAME, ID, STATE, TAGS, { label: "last_run_at", path: "info.last_run_at" }],
  },
  "read/ListAlerters": {
    noun: "alerters",
    columns: [
      NAME,
      ID,
      { label: "enabled", path: "info.enabled" },
      { label: "endpoint", path: "info.endpoint_type" },
      TAGS,
    ],
  },
  "read/ListBuilders": {
    noun: "builders",
    columns: [NAME, ID, { label: "type", path: "info.builder_type" }, TAGS],
  },
  "read/ListResourceSyncs": {
    noun: "syncs",
    columns: [NAME, ID, STATE, TAGS, REPO, BRANCH],
  },
  "read/ListSwarms": {
    noun: "swarms",
    columns: [NAME, ID, STATE, { label: "servers", path: "info.server_ids", name: "server" }, TAGS],
  },
  "read/ListTags": {
    noun: "tags",
    // Tags are named wherever they are used; the id is one field away.
    columns: [NAME, { label: "color", path: "color" }],
  },
  "read/ListUsers": {
    noun: "users",
    columns: [
      { label: "username", path: "username" },
      OID,
      { label: "type", path: "config.type" },
      { label: "enabled", path: "enabled" },
      { label: "admin", path: "admin" },
    ],
  },
  "read/ListVariables": {
    noun: "variables",
    // The value is left out: a secret one's is hidden anyway, and `fields: ["name", "value"]` shows the others'.
    columns: [NAME, { label: "description", path: "description" }, { label: "is_secret", path: "is_secret" }],
  },
  "read/ListUserGroups": {
    noun: "user groups",
    columns: [NAME, OID, { label: "users", path: "users" }, { label: "everyone", path: "everyone" }],
  },
  "read/ListGitProviderAccounts": {
    noun: "accounts",
    columns: [{ label: "domain", path: "domain" }, { label: "username", path: "username" }, OID],
  },
  "read/ListImageRegistryAccounts": {
    noun: "accounts",
    columns: [{ label: "domain", path: "domain" }, { label: "username", path: "username" }, OID],
  },
}

/**
 * Where the service gives ids whose names an answer shaped by `fields` shows:
 * beside the kept id, its name under the `beside` field (`info.server_id` ->
 * `info.server_name`), unless the record has that field already.
 */
export interface IdField {
  readonly path: string
  readonly name: NameKind
  readonly beside: string
}

export const ID_FIELDS: ReadonlyArray<IdField> = [
  { path: "info.server_id", name: "server", beside: "server_name" },
  { path: "config.server_id", name: "server", beside: "server_name" },
  { path: "info.builder_id", name: "builder", beside: "builder_name" },
  { path: "config.builder_id", name: "builder", beside: "builder_name" },
  { path: "info.server_ids", name: "server", beside: "server_names" },
  { path: "config.server_ids", name: "server", beside: "server_names" },
  { path: "tags", name: "tag", beside: "tag_names" },
]
