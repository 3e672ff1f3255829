/**
 * The 13 tools. Descriptions are what an assistant reads to choose a tool and
 * fill its params; they are kept short because every session pays for them.
 */
import { DEFAULT_PAGE } from "../ServiceResponse.js"
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

const LIMIT = `Lists stop at ${DEFAULT_PAGE} items unless params.limit is given (limit 0 = all; page for more).`

export const svc_list = make({
  name: "svc_list",
  narrow: "params.limit and params.page, or params.query",
  paged: true,
  title: "List resources",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.list,
  selectorDescription: "Resource type to list",
  description: `List resources of one type (id, name, tags, info). params: {query?: {names?, tags?}, limit?, page?}. ${LIMIT}`,
})

export const svc_get = make({
  name: "svc_get",
  narrow: "get one resource at a time; svc_list shows less per resource",
  title: "Get a resource",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.get,
  selectorDescription: "Resource type to get",
  description:
    "Get one resource with its config, by id or name under the type's key: stack {stack}, server {server}, build {build}, deployment {deployment}, sync_resource {sync}, tag {tag}, variable {name}.",
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
  selectorDescription: "Resource type to create",
  description:
    "Create a resource. params: {name, config?} (e.g. stack {name, config: {server_id, ...}}); tag {name}; variable {name, value}.",
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
  selectorDescription: "Resource type to update",
  description:
    'Change a resource\'s config. params: {id, config}: id or name, and a partial config merged into the current one. tag changes its colour only {tag, color} (e.g. "Red"); variable its value only {name, value}.',
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
  selectorDescription: "Resource type to delete",
  description: "Delete a resource. params: {id} (id or name). Answers the deleted record.",
})

export const svc_execute = make({
  name: "svc_execute",
  narrow: "ask for less",
  title: "Run an operation",
  tier: "operate",
  hints: changes(false),
  group: "execute",
  selectorKey: "operation",
  endpoints: Tables.execute,
  selectorDescription: "Operation to run",
  wait: "true: answer once the execution ends, with its outcome",
  description:
    "Run an operation (deploy, build, start/stop, prune...). Returns at once with an Update record (status Queued/InProgress/Complete, success) while the work goes on, or with wait: true, once it completes. params: run_build {build}; deploy_stack {stack, services?}; deploy {deployment}; run_procedure {procedure}; run_action {action}; *_stack {stack}; *_deployment {deployment}; *_container {server, container}; batch_* {pattern} (names, wildcards or regex, comma separated).",
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
  selectorDescription: "Whose logs",
  description:
    "Read recent log lines. params: stack {stack, services: [] (required, may be empty = all)}; deployment {deployment}; container {server, container}; swarm_service {swarm, service}. All take tail? (default 50, max 5000) and timestamps?.",
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
  selectorDescription: "Whose logs",
  query: "Text to search for, sent as params.terms = [query] unless params.terms is given",
  description:
    'Search log lines for a text. params as svc_logs (stack {stack, services: []}, ...), plus combinator? ("Or"|"And" over terms), invert?.',
})

export const svc_summary = make({
  name: "svc_summary",
  narrow: "ask for less",
  title: "Summarize resources",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "resource_type",
  endpoints: Tables.summary,
  selectorDescription: "Resource type to summarize",
  description: "Count resources of one type by state (running, stopped, unhealthy...). params: {} usually.",
})

export const svc_inspect = make({
  name: "svc_inspect",
  narrow: "ask for less",
  title: "Inspect Docker objects",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "inspect_type",
  endpoints: Tables.inspect,
  selectorDescription: "What to inspect",
  description:
    "Docker-level detail of one object. params: container {server, container}; image {server, image}; network {server, network}; volume {server, volume}; deployment_container {deployment}; stack_container {stack, service}; swarm_* {swarm, <object id>}.",
})

export const svc_list_detail = make({
  name: "svc_list_detail",
  narrow: "params.limit and params.page, or params.query",
  paged: true,
  title: "List details",
  tier: "read",
  hints: READS,
  group: "read",
  selectorKey: "list_type",
  endpoints: Tables.list_detail,
  selectorDescription: "What to list",
  description: `Other lists: Docker objects of a server (containers, images, networks, volumes {server}), updates {query?, page?} (answers {updates, next_page}), full_* (resources with full config), swarm_* {swarm}, permissions, api_keys, schedules... ${LIMIT}`,
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
  selectorDescription: "Resource type to copy",
  description: "Copy a resource under a new name. params: {name, id}: the new name, and the source's id or name.",
})

export const svc_rename = make({
  name: "svc_rename",
  narrow: "ask for less",
  title: "Rename a resource",
  tier: "write",
  hints: changes(false),
  group: "write",
  selectorKey: "resource_type",
  endpoints: Tables.rename,
  selectorDescription: "Resource type to rename",
  description: "Rename a resource. params: {id, name}: its id or current name, and the new name.",
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
