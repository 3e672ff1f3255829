/**
 * Which endpoint each selector calls that SVC_REACH=all adds to the 13 tools:
 * the 76 endpoints of the service's client that interface.md leaves without a
 * tool (spec/service-api-all.schema.json, `withoutTool`), each in the tool of
 * its kind. Each is written with its group, as a check, a refresh or a commit
 * is a `write/` endpoint that svc_execute runs. Read only when the reach is all
 * (Reach.ts): a start with the default reach loads none of it.
 */
export const list = {
  alert: "read/ListAlerts",
} as const

export const get = {
  alert: "read/GetAlert",
  update: "read/GetUpdate",
  user: "read/FindUser",
  username: "read/GetUsername",
  permission: "read/GetPermission",
  version: "read/GetVersion",
  core_info: "read/GetCoreInfo",
  server_state: "read/GetServerState",
  periphery_information: "read/GetPeripheryInformation",
  system_information: "read/GetSystemInformation",
  system_stats: "read/GetSystemStats",
  deployment_stats: "read/GetDeploymentStats",
  deployment_container_state: "read/GetDeploymentContainer",
  resource_matching_container: "read/GetResourceMatchingContainer",
  stack_action_state: "read/GetStackActionState",
  deployment_action_state: "read/GetDeploymentActionState",
  build_action_state: "read/GetBuildActionState",
  repo_action_state: "read/GetRepoActionState",
  procedure_action_state: "read/GetProcedureActionState",
  action_action_state: "read/GetActionActionState",
  sync_resource_action_state: "read/GetResourceSyncActionState",
  server_action_state: "read/GetServerActionState",
  swarm_action_state: "read/GetSwarmActionState",
  resources_toml: "read/ExportResourcesToToml",
  all_resources_toml: "read/ExportAllResourcesToToml",
} as const

export const summary = {
  container: "read/GetContainersSummary",
} as const

export const list_detail = {
  historical_server_stats: "read/GetHistoricalServerStats",
  build_monthly_stats: "read/GetBuildMonthlyStats",
  stack_services: "read/ListStackServices",
  terminals: "read/ListTerminals",
} as const

export const create = {
  network: "write/CreateNetwork",
  terminal: "write/CreateTerminal",
  deployment_from_container: "write/CreateDeploymentFromContainer",
  onboarding_key: "write/CreateOnboardingKey",
  local_user: "write/CreateLocalUser",
  service_user: "write/CreateServiceUser",
  api_key_for_service_user: "write/CreateApiKeyForServiceUser",
} as const

export const update = {
  resource_meta: "write/UpdateResourceMeta",
  stack_file: "write/WriteStackFileContents",
  build_file: "write/WriteBuildFileContents",
  sync_resource_file: "write/WriteSyncFileContents",
  variable_description: "write/UpdateVariableDescription",
  variable_is_secret: "write/UpdateVariableIsSecret",
  user_group_add_user: "write/AddUserToUserGroup",
  user_group_remove_user: "write/RemoveUserFromUserGroup",
  user_group_users: "write/SetUsersInUserGroup",
  user_group_everyone: "write/SetEveryoneUserGroup",
  user_admin: "write/UpdateUserAdmin",
  user_base_permissions: "write/UpdateUserBasePermissions",
  permission_on_target: "write/UpdatePermissionOnTarget",
  permission_on_resource_type: "write/UpdatePermissionOnResourceType",
  service_user_description: "write/UpdateServiceUserDescription",
  server_public_key: "write/UpdateServerPublicKey",
  onboarding_key: "write/UpdateOnboardingKey",
  last_seen_update: "write/SetLastSeenUpdate",
  recently_viewed: "write/PushRecentlyViewed",
} as const

export const delete_ = {
  user: "write/DeleteUser",
  api_key_for_service_user: "write/DeleteApiKeyForServiceUser",
  onboarding_key: "write/DeleteOnboardingKey",
  image_registry_account: "write/DeleteImageRegistryAccount",
  terminal: "write/DeleteTerminal",
  all_terminals: "write/DeleteAllTerminals",
  batch_all_terminals: "write/BatchDeleteAllTerminals",
} as const

export const rename = {
  sync_resource: "write/RenameResourceSync",
} as const

export const execute = {
  check_stack_for_update: "write/CheckStackForUpdate",
  check_deployment_for_update: "write/CheckDeploymentForUpdate",
  batch_check_stack_for_update: "write/BatchCheckStackForUpdate",
  batch_check_deployment_for_update: "write/BatchCheckDeploymentForUpdate",
  refresh_stack_cache: "write/RefreshStackCache",
  refresh_build_cache: "write/RefreshBuildCache",
  refresh_repo_cache: "write/RefreshRepoCache",
  refresh_sync_pending: "write/RefreshResourceSyncPending",
  commit_sync: "write/CommitSync",
  rotate_server_keys: "write/RotateServerKeys",
  close_alert: "write/CloseAlert",
} as const

/** Each tool's added selectors, for a refusal under the default reach to say which SVC_REACH=all offers. */
export const byTool: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  svc_list: list,
  svc_get: get,
  svc_summary: summary,
  svc_list_detail: list_detail,
  svc_create: create,
  svc_update: update,
  svc_delete: delete_,
  svc_rename: rename,
  svc_execute: execute,
}
