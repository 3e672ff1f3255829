/**
 * The 13 tools as SVC_REACH=all makes them: each with the selectors of
 * TablesAll.ts after the interface's own, and its description saying their
 * params. Imported by the policy only when the reach is all, so that a start
 * with the default reach loads none of it.
 */
import type { Group } from "../../SvcClient.js"
import * as Definitions from "../Catalog/Definitions.js"
import * as TablesAll from "../Catalog/TablesAll.js"
import { make, type Tool } from "../Catalog/Tool.js"

/** Each tool's added selectors (`group/Endpoint`), and the words its description gains for them. */
const ADDED: Readonly<Record<string, { readonly table: Readonly<Record<string, string>>; readonly says: string }>> = {
  svc_list: { table: TablesAll.list, says: ' alert {query?: {"resolved": false}, page?}: alerts, newest first.' },
  svc_get: {
    table: TablesAll.get,
    says: ' alert, update {id}; user {user}; username {user_id}; permission {target: {type, id}}: the caller\'s; version, core_info {}; server_*, system_*, periphery_information {server}; *_action_state, deployment_*: under the type\'s key (all running now, in one call: svc_list_detail updates {query: {"status": "InProgress"}}); resource_matching_container {server, container}; resources_toml {targets}, all_resources_toml {}: as TOML.',
  },
  svc_summary: { table: TablesAll.summary, says: " container: over all servers." },
  svc_list_detail: {
    table: TablesAll.list_detail,
    says: " historical_server_stats {server, granularity, page?}; build_monthly_stats {page?}; stack_services {stack}; terminals {}.",
  },
  svc_create: {
    table: TablesAll.create,
    says: " network {server, name}; local_user {username, password}; service_user {username, description}; api_key_for_service_user {user_id, name}: its secret is shown once, and withheld here unless secrets are revealed. Others: schema: true.",
  },
  svc_update: {
    table: TablesAll.update,
    says: " resource_meta {target: {type, id}, tags?, description?}: a resource's tags (the whole set, ids or names; a new name makes the tag) and description, not its config. stack_file {stack, file_path, contents}, build_file, sync_resource_file: write a file. user_group_* {user_group, user|users|everyone}; user_*, permission_on_*: a user's rights; variable_* {name, ...}. Others: schema: true.",
  },
  svc_delete: {
    table: TablesAll.delete_,
    says: " user {user}; api_key_for_service_user {key}; onboarding_key {public_key}; image_registry_account {id}; terminals: schema: true.",
  },
  svc_rename: { table: TablesAll.rename, says: "" },
  svc_execute: {
    table: TablesAll.execute,
    says: " check_*_for_update {stack|deployment}: is there a newer image; batch_check_* {pattern}; refresh_*, commit_sync: under the type's key; rotate_server_keys {server}; close_alert {id}.",
  },
}

const extend = (tool: Tool): Tool => {
  const added = ADDED[tool.name]
  if (added === undefined) return tool
  const endpoints: Record<string, string> = { ...tool.endpoints }
  const groups: Record<string, Group> = {}
  for (const [selector, path] of Object.entries(added.table)) {
    const [group, endpoint] = path.split("/") as [Group, string]
    endpoints[selector] = endpoint
    if (group !== tool.group) groups[selector] = group
  }
  return make({ ...tool, endpoints, groups, description: `${tool.description}${added.says}` })
}

/** The 13 tools with every endpoint of the service's client in reach. */
export const all: ReadonlyArray<Tool> = Definitions.all.map(extend)
