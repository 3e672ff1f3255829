/**
 * The default answer of each list, as data: per endpoint, the columns an
 * operator looks at first, each read from a path of the service's record
 * (Columns.ts says what a column reads and how it is shown).
 * A list answered without `fields` is shown as one row per item with these
 * columns, whatever its length; `fields` picks paths of the record instead,
 * and `fields: ["*"]` keeps the whole record. Glance.ts reads this table;
 * docs/tools.md explains it.
 *
 * Each row keeps the name and id, the state and where it runs when the type
 * has them, the tag names, and only the type's own fields an operator asks
 * about first: the service's list records of the smaller types (actions,
 * procedures, alerters) hold little besides those, so their rows are about
 * half as long as their records, not less.
 *
 * No column reads an untrusted field (Untrusted/Fields.ts) nor a credential:
 * a test holds the table to both.
 */

import type { NameKind } from "../Names/Names.js"
import { ACCESS_PROJECTIONS } from "./AccessRows.js"
import {
  ACCOUNT,
  BRANCH,
  FULL,
  ID,
  LAST_RUN,
  NAME,
  OID,
  type Projection,
  REPO,
  SERVER,
  STATE,
  TAGS,
} from "./Columns.js"
import { DOCKER_PROJECTIONS } from "./DockerRows.js"
import { REACH_PROJECTIONS } from "./ReachRows.js"

// RecordViews.ts reads a full record by the same columns.
export { type Column, FULL, NAME, OID, type Projection, TAGS } from "./Columns.js"

/** The variants of an alert's data, as the definitions name them (AlertData). */
const ALERT_TYPES = [
  "None",
  "Test",
  "SwarmUnhealthy",
  "ServerUnreachable",
  "ServerCpu",
  "ServerMem",
  "ServerDisk",
  "ServerVersionMismatch",
  "ContainerStateChange",
  "DeploymentImageUpdateAvailable",
  "DeploymentAutoUpdated",
  "StackStateChange",
  "StackImageUpdateAvailable",
  "StackAutoUpdated",
  "AwsBuilderTerminationFailed",
  "ResourceSyncPendingUpdates",
  "BuildFailed",
  "RepoBuildFailed",
  "ProcedureFailed",
  "ActionFailed",
  "ScheduleRun",
  "Custom",
]

/**
 * By endpoint: the lists of svc_list (`read/ListStacks`) and the full lists of
 * svc_list_detail (`read/ListFullStacks`), its docker lists (DockerRows.ts), its
 * lists of permissions and keys (AccessRows.ts) and those SVC_REACH=all adds
 * (ReachRows.ts). Summaries (svc_summary, a build's monthly stats) are a few
 * counters already, and stay whole.
 */
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
    more: "info.missing_files",
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
    more: "info.custom_name",
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
    more: "info.alerting_thresholds",
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
    more: "info.repo_link",
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
    more: "info.last_pulled_at",
  },
  "read/ListProcedures": {
    noun: "procedures",
    // Whether and when it last ran; its number of stages is one field away.
    columns: [NAME, ID, STATE, TAGS, LAST_RUN],
    more: "info.stages",
  },
  "read/ListActions": {
    noun: "actions",
    columns: [NAME, ID, STATE, TAGS, LAST_RUN],
    more: "template",
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
    more: "template",
  },
  "read/ListBuilders": {
    noun: "builders",
    columns: [NAME, ID, { label: "type", path: "info.builder_type" }, TAGS],
    more: "template",
  },
  "read/ListResourceSyncs": {
    noun: "syncs",
    columns: [NAME, ID, STATE, TAGS, REPO, BRANCH],
    more: "info.last_sync_ts",
  },
  "read/ListSwarms": {
    noun: "swarms",
    columns: [NAME, ID, STATE, { label: "servers", path: "info.server_ids", name: "server" }, TAGS],
    more: "template",
  },
  "read/ListTags": {
    noun: "tags",
    // Tags are named wherever they are used; the id is one field away.
    columns: [NAME, { label: "color", path: "color" }],
    more: "_id.$oid",
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
    more: "last_update_view",
  },
  "read/ListVariables": {
    noun: "variables",
    // The name and the value an operator asks about; a secret one's is never shown here.
    columns: [NAME, { label: "value", path: "value", hidden: "is_secret" }],
    more: "description",
  },
  "read/ListUserGroups": {
    noun: "user groups",
    columns: [NAME, OID, { label: "users", path: "users" }, { label: "everyone", path: "everyone" }],
    more: "updated_at",
  },
  // With SVC_REACH=all: the alert's time, level, what it is about by name, and its variant; its text is fenced, one field away.
  "read/ListAlerts": {
    noun: "alerts",
    items: "alerts",
    columns: [
      { label: "ts", path: "ts" },
      { label: "level", path: "level" },
      { label: "target", path: "target", target: true },
      { label: "what", path: "data.type", of: ALERT_TYPES },
      { label: "resolved", path: "resolved" },
      OID,
    ],
    more: "data",
  },
  "read/ListGitProviderAccounts": { noun: "accounts", columns: ACCOUNT, more: "https" },
  // Its record holds nothing else but the token, which is redacted.
  "read/ListImageRegistryAccounts": { noun: "accounts", columns: ACCOUNT },

  "read/ListFullStacks": {
    noun: "stacks",
    columns: [NAME, OID, FULL.SERVER, TAGS, FULL.REPO, FULL.BRANCH, { label: "files", path: "config.file_paths" }],
    more: "config.auto_update",
  },
  "read/ListFullDeployments": {
    noun: "deployments",
    columns: [
      NAME,
      OID,
      FULL.SERVER,
      TAGS,
      { label: "image", path: "config.image.params.image" },
      { label: "restart", path: "config.restart" },
    ],
    more: "config.ports",
  },
  "read/ListFullServers": {
    noun: "servers",
    columns: [
      NAME,
      OID,
      TAGS,
      { label: "address", path: "config.address" },
      { label: "region", path: "config.region" },
      { label: "enabled", path: "config.enabled" },
    ],
    more: "config.cpu_warning",
  },
  "read/ListFullBuilds": {
    noun: "builds",
    columns: [
      NAME,
      OID,
      TAGS,
      { label: "builder", path: "config.builder_id", name: "builder" },
      FULL.REPO,
      FULL.BRANCH,
      { label: "version", path: "config.version" },
    ],
    more: "config.image_name",
  },
  "read/ListFullProcedures": {
    noun: "procedures",
    columns: [NAME, OID, TAGS, FULL.SCHEDULE, FULL.SCHEDULED, { label: "stages", path: "config.stages.name" }],
    more: "config.stages.executions",
  },
  "read/ListFullRepos": {
    noun: "repos",
    columns: [NAME, OID, FULL.SERVER, TAGS, FULL.REPO, FULL.BRANCH, { label: "path", path: "config.path" }],
    more: "info.latest_hash",
  },
  "read/ListFullBuilders": {
    noun: "builders",
    columns: [NAME, OID, TAGS, { label: "type", path: "config.type" }],
    more: "config.params",
  },
  "read/ListFullSwarms": {
    noun: "swarms",
    columns: [NAME, OID, TAGS, { label: "servers", path: "config.server_ids", name: "server" }],
    more: "config.maintenance_windows",
  },
  "read/ListFullActions": {
    noun: "actions",
    columns: [NAME, OID, TAGS, FULL.SCHEDULE, FULL.SCHEDULED],
    more: "config.arguments",
  },
  "read/ListFullAlerters": {
    noun: "alerters",
    columns: [
      NAME,
      OID,
      TAGS,
      { label: "enabled", path: "config.enabled" },
      { label: "endpoint", path: "config.endpoint.type" },
    ],
    more: "config.alert_types",
  },
  "read/ListFullResourceSyncs": {
    noun: "syncs",
    columns: [NAME, OID, TAGS, FULL.REPO, FULL.BRANCH, { label: "managed", path: "config.managed" }],
    more: "info.last_sync_ts",
  },
  ...DOCKER_PROJECTIONS,
  ...ACCESS_PROJECTIONS,
  ...REACH_PROJECTIONS,
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
