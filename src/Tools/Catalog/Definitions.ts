/**
 * The 13 tools. Descriptions are what an assistant reads to choose a tool and
 * fill its params; they are kept short because every session pays for them.
 */
import * as Tables from "./Tables.js"
import { type Hints, make, type Tool } from "./Tool.js"

// Every tool reaches an outside service, hence openWorldHint on all.
const READS: Hints = { readOnlyHint: true, openWorldHint: true }
const ADDS: Hints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true }
const changes = (idempotent: boolean): Hints => ({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: idempotent,
  openWorldHint: true,
})

// The secret params (a variable's value, an account's token) the person types on a page of svc-mcp's, out of the model's sight.
const FROM_PERSON = 'typed by the person, unseen: ["value"]'

// Rows at a glance ({columns, result}), or the records `fields` kept ({result}).
const ROWS = {
  type: "object",
  properties: { columns: { type: "array", items: { type: "string" } }, result: { type: "array" } },
} as const

export const svc_list = make({
  name: "svc_list",
  shows: { rows: true, names: true },
  fields: true,
  narrow: "params.limit and params.page, params.query, or fields (the paths to keep)",
  title: "List resources",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.list,
  description:
    'List resources as rows of main fields. params: paged types (stack, build...) {query?: {names?, tags?}, limit?, page?}: 50 a page unless limit (0 = all); tag {query?: {"name": "prod"}} (a db filter); user {service_users?}; *_account {domain?, username?}; variable, user_group {}. fields: paths to keep, e.g. ["name","info.state"]; ["*"]: whole records.',
  outputSchema: ROWS,
})

export const svc_get = make({
  name: "svc_get",
  shows: { record: true, names: true },
  fields: true,
  narrow: "fields (the paths to keep); svc_list shows less per resource",
  title: "Get a resource",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.get,
  description:
    "Get one resource's main fields. params: id or name under the type's key, e.g. stack {stack}, sync_resource {sync}; variable {name}; *_account {id}.",
})

export const svc_create = make({
  name: "svc_create",
  narrow: "ask for less",
  title: "Create a resource",
  tier: "write",
  hints: ADDS,
  group: "write",
  selectorKey: "resource_type",
  endpoints: Tables.create,
  fromPerson: FROM_PERSON,
  description:
    "Create a resource. params: {name, config} (config partial, may be {}); tag {name, color?}; variable {name, value?}; user_group {name}; *_account {account}.",
})

export const svc_update = make({
  name: "svc_update",
  narrow: "ask for less",
  title: "Update a resource",
  tier: "write",
  hints: changes(true),
  group: "write",
  selectorKey: "resource_type",
  endpoints: Tables.update,
  fromPerson: FROM_PERSON,
  shows: { changed: true },
  description:
    "Change a resource. params: {id, config}: id or name, partial config; tag {tag, color}; variable {name, value}; *_account {id, account}.",
})

export const svc_delete = make({
  name: "svc_delete",
  narrow: "ask for less",
  title: "Delete a resource",
  tier: "write",
  hints: changes(true),
  group: "write",
  selectorKey: "resource_type",
  endpoints: Tables.delete_,
  description: "Delete a resource, answering its record. params: {id} (id or name); variable {name}.",
})

export const svc_execute = make({
  name: "svc_execute",
  shows: { execution: true },
  fields: true,
  narrow: "ask for less",
  title: "Run an operation",
  tier: "operate",
  hints: changes(false),
  group: "execute",
  selectorKey: "operation",
  endpoints: Tables.execute,
  wait: "true: answer once it ends, with its outcome",
  description:
    'Run an operation; answers status, last output, update id (fields ["*"]: the Update). params: deploy_stack {stack, services?}; deploy_stack_service, a one-off command {stack, service, command?}; *_stack, deploy_stack_if_changed {stack}; deploy, *_deployment {deployment}; *_container {server, container}; *_containers, prune_*, run_server_* {server}; *_build {build}; *_repo, cancel_repo_build {repo}; *_procedure {procedure}; *_action {action}; run_sync {sync}; test_alerter {alerter}; *_swarm_* {swarm, <object>}; batch_* {pattern}; others: schema: true. Prunes remove all unused: images tagged or not; prune_system volumes too.',
})

export const svc_logs = make({
  name: "svc_logs",
  narrow: "params.tail (fewer lines) or a service list",
  title: "Read logs",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.logs,
  description:
    "Recent log lines. params: stack {stack, services?}; deployment {deployment}; container {server, container}; swarm_service {swarm, service}; tail? (50).",
})

export const svc_search_logs = make({
  name: "svc_search_logs",
  narrow: 'more precise terms, combinator "And", or fewer services',
  title: "Search logs",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.search_logs,
  query: "Search text: params.terms [query] unless given",
  description:
    'Search log lines for query. params as svc_logs, no tail (the last 5000 lines); combinator? ("Or"|"And"), invert?.',
})

export const svc_summary = make({
  name: "svc_summary",
  fields: true,
  narrow: "fields (the paths to keep)",
  title: "Summarize resources",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.summary,
  description: "Count resources of one type by state. params: {}.",
})

export const svc_inspect = make({
  name: "svc_inspect",
  shows: { record: true },
  fields: true,
  narrow: "fields (the paths to keep)",
  title: "Inspect Docker objects",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "inspect_type",
  endpoints: Tables.inspect,
  description:
    "Docker detail of one object. params: container {server, container}; image {server, image} (network, volume too); deployment_* {deployment}; stack_* {stack, service}, stack_swarm_info {stack}; swarm_* {swarm, <object>}: swarm_node {swarm, node}.",
})

export const svc_list_detail = make({
  name: "svc_list_detail",
  shows: { rows: true },
  fields: true,
  narrow: "params.limit and params.page, params.query, or fields (the paths to keep)",
  title: "List details",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "list_type",
  endpoints: Tables.list_detail,
  description:
    'Other lists. params: containers, images, networks, volumes {server}; swarm_* {swarm}; updates {query?, page?} (100 a page); running now: updates {query: {"status": "InProgress"}}; full_*, all_containers, all_stack_services, schedules: paged, and fields, as svc_list.',
  outputSchema: ROWS,
})

export const svc_copy = make({
  name: "svc_copy",
  narrow: "ask for less",
  title: "Copy a resource",
  tier: "write",
  hints: ADDS,
  group: "write",
  selectorKey: "resource_type",
  endpoints: Tables.copy,
  description: "Copy a resource. params: {name, id}: new name, source's id or name.",
})

export const svc_rename = make({
  name: "svc_rename",
  // A rename of a resource answers an Update: shown as an execution's, at a glance.
  shows: { execution: true },
  narrow: "ask for less",
  title: "Rename a resource",
  tier: "write",
  hints: changes(false),
  group: "write",
  selectorKey: "resource_type",
  endpoints: Tables.rename,
  description: "Rename a resource. params: {id, name}: id or name, new name.",
})

/** In the order interface.md lists them. */
export const all: ReadonlyArray<Tool> = [
  svc_list,
  svc_get,
  svc_create,
  svc_update,
  svc_delete,
  svc_execute,
  svc_logs,
  svc_summary,
  svc_inspect,
  svc_search_logs,
  svc_list_detail,
  svc_copy,
  svc_rename,
]

export const byName: ReadonlyMap<string, Tool> = new Map(all.map((tool) => [tool.name, tool]))
