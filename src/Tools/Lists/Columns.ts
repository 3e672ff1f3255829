/**
 * What a list's row is made of (Projections.ts's table, and svc_get's at a glance, RecordViews.ts):
 * a column, read from a path of the service's record and shown by what it holds, and the columns
 * several lists share.
 */
import type { NameKind } from "../Names/Names.js"

/**
 * A column's `path` is a dotted path of the record, read through arrays as
 * `fields` reads it (`info.services.service`: the service of each service).
 * `name` says the value is an id (or a list of ids) of that kind, shown as
 * its name (Names.ts); `given` is the record's own field for that name, used
 * when the service gave one. `key` with `when`: of the objects at `path`, the
 * `key` of those whose `when` is true. `hidden`: the record's flag that makes
 * the value a secret (a variable's `is_secret`), shown then as `[redacted]`
 * whatever the settings: a row never shows a secret, `fields` asks for one.
 *
 * `target`: the value is a ResourceTarget (`{type, id}`), shown as its type
 * and name (`Server prod-02`). `of`: the only values shown, any other as null;
 * the column may then read inside an untrusted field, as it shows only the
 * table's own words (an alert's variant, not its text).
 */
export interface Column {
  readonly label: string
  readonly path: string
  readonly name?: NameKind
  readonly given?: string
  readonly key?: string
  readonly when?: string
  readonly hidden?: string
  readonly target?: true
  readonly of?: ReadonlyArray<string>
}

/**
 * A list's rows. `items`: the field of the answer that holds the list, where the answer is an
 * object (`{alerts, next_page}`); `fields` then reads the answer's paths. `more` is a path of the
 * record no column reads (but a credential), for the first line's example of asking for more: one
 * every record has, not a list item's optional info (a deployment's `status`, absent until it has
 * a container).
 */
export interface Projection {
  /** What the items are, in the plural: "stacks" (one is "stack"). */
  readonly noun: string
  readonly columns: ReadonlyArray<Column>
  /** The answer's field that holds the items, where the answer is an object. */
  readonly items?: string
  /** A path of the record that no column reads, for the first line's example; none where only a credential is left. */
  readonly more?: string
  /** Labels of columns said once in the first line, not in each row, where every row has the same value. */
  readonly once?: ReadonlyArray<string>
  /** The label of a column said as its first value and its step, where it moves by one step each row. */
  readonly step?: string
}

export const NAME: Column = { label: "name", path: "name" }
export const ID: Column = { label: "id", path: "id" }
export const STATE: Column = { label: "state", path: "info.state" }
export const TAGS: Column = { label: "tags", path: "tags", name: "tag" }
export const SERVER: Column = { label: "server", path: "info.server_id", name: "server", given: "info.server_name" }
export const REPO: Column = { label: "repo", path: "info.repo" }
export const BRANCH: Column = { label: "branch", path: "info.branch" }
export const OID: Column = { label: "id", path: "_id.$oid" }
export const LAST_RUN: Column = { label: "last_run_at", path: "info.last_run_at" }
export const ACCOUNT: ReadonlyArray<Column> = [
  { label: "domain", path: "domain" },
  { label: "username", path: "username" },
  OID,
]

/**
 * The columns of a full record (config and info, without the list's state): svc_list_detail's
 * (`full_stacks`...) and svc_get's at a glance alike (RecordViews.ts), one table of both.
 */
export const FULL = {
  SERVER: { label: "server", path: "config.server_id", name: "server" },
  SWARM: { label: "swarm", path: "config.swarm_id", name: "swarm" },
  BUILDER: { label: "builder", path: "config.builder_id", name: "builder" },
  REPO: { label: "repo", path: "config.repo" },
  BRANCH: { label: "branch", path: "config.branch" },
  SCHEDULE: { label: "schedule", path: "config.schedule" },
  SCHEDULED: { label: "schedule_enabled", path: "config.schedule_enabled" },
} as const satisfies Record<string, Column>
