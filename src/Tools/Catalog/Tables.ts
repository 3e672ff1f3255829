/**
 * Which endpoint each selector of each tool calls, as interface.md (API 2.3.3) gives them.
 * Adding a selector is one line here.
 */
import { GETS, LISTS } from "../../Kinds/Kinds.js"

/** svc_list's selectors: each kind's list (Kinds/Kinds.ts, the one table of the service's kinds). */
export const list = LISTS

/** svc_get's selectors: each kind's get, where it has one (Kinds/Kinds.ts). */
export const get = GETS

export const create = {
  stack: "CreateStack",
  build: "CreateBuild",
  server: "CreateServer",
  procedure: "CreateProcedure",
  deployment: "CreateDeployment",
  alerter: "CreateAlerter",
  image_registry_account: "CreateImageRegistryAccount",
  sync_resource: "CreateResourceSync",
  tag: "CreateTag",
  action: "CreateAction",
  repo: "CreateRepo",
  builder: "CreateBuilder",
  swarm: "CreateSwarm",
  variable: "CreateVariable",
  user_group: "CreateUserGroup",
  git_provider_account: "CreateGitProviderAccount",
} as const

export const update = {
  stack: "UpdateStack",
  build: "UpdateBuild",
  server: "UpdateServer",
  procedure: "UpdateProcedure",
  deployment: "UpdateDeployment",
  alerter: "UpdateAlerter",
  image_registry_account: "UpdateImageRegistryAccount",
  sync_resource: "UpdateResourceSync",
  tag: "UpdateTagColor",
  action: "UpdateAction",
  repo: "UpdateRepo",
  builder: "UpdateBuilder",
  swarm: "UpdateSwarm",
  variable: "UpdateVariableValue",
  user_group: "UpdateUserGroup",
  git_provider_account: "UpdateGitProviderAccount",
} as const

export const delete_ = {
  stack: "DeleteStack",
  build: "DeleteBuild",
  server: "DeleteServer",
  procedure: "DeleteProcedure",
  deployment: "DeleteDeployment",
  alerter: "DeleteAlerter",
  sync_resource: "DeleteResourceSync",
  tag: "DeleteTag",
  action: "DeleteAction",
  repo: "DeleteRepo",
  builder: "DeleteBuilder",
  swarm: "DeleteSwarm",
  variable: "DeleteVariable",
  user_group: "DeleteUserGroup",
  git_provider_account: "DeleteGitProviderAccount",
} as const

export const execute = {
  run_build: "RunBuild",
  deploy_stack: "DeployStack",
  deploy_stack_service: "RunStackService",
  deploy: "Deploy",
  deploy_stack_if_changed: "DeployStackIfChanged",
  destroy_stack: "DestroyStack",
  destroy_container: "DestroyContainer",
  destroy_deployment: "DestroyDeployment",
  pull_stack: "PullStack",
  pull_deployment: "PullDeployment",
  build_repo: "BuildRepo",
  clone_repo: "CloneRepo",
  pull_repo: "PullRepo",
  cancel_repo_build: "CancelRepoBuild",
  clear_repo_cache: "ClearRepoCache",
  run_procedure: "RunProcedure",
  run_action: "RunAction",
  run_sync: "RunSync",
  cancel_action: "CancelAction",
  cancel_build: "CancelBuild",
  cancel_procedure: "CancelProcedure",
  start_stack: "StartStack",
  stop_stack: "StopStack",
  restart_stack: "RestartStack",
  pause_stack: "PauseStack",
  unpause_stack: "UnpauseStack",
  start_container: "StartContainer",
  stop_container: "StopContainer",
  restart_container: "RestartContainer",
  pause_container: "PauseContainer",
  unpause_container: "UnpauseContainer",
  start_all_containers: "StartAllContainers",
  stop_all_containers: "StopAllContainers",
  restart_all_containers: "RestartAllContainers",
  pause_all_containers: "PauseAllContainers",
  unpause_all_containers: "UnpauseAllContainers",
  start_deployment: "StartDeployment",
  stop_deployment: "StopDeployment",
  restart_deployment: "RestartDeployment",
  pause_deployment: "PauseDeployment",
  unpause_deployment: "UnpauseDeployment",
  run_server_refresh_containers: "RunServerRefreshContainers",
  run_server_prune_images: "PruneImages",
  run_server_prune_containers: "PruneContainers",
  run_server_prune_networks: "PruneNetworks",
  run_server_run_command: "RunServerRunCommand",
  run_server_scripts: "RunServerScripts",
  run_server_copy: "RunServerCopy",
  run_server_move: "RunServerMove",
  rotate_all_server_keys: "RotateAllServerKeys",
  prune_buildx: "PruneBuildx",
  prune_docker_builders: "PruneDockerBuilders",
  prune_system: "PruneSystem",
  prune_volumes: "PruneVolumes",
  delete_image: "DeleteImage",
  delete_network: "DeleteNetwork",
  delete_volume: "DeleteVolume",
  remove_swarm_nodes: "RemoveSwarmNodes",
  remove_swarm_services: "RemoveSwarmServices",
  remove_swarm_configs: "RemoveSwarmConfigs",
  remove_swarm_secrets: "RemoveSwarmSecrets",
  remove_swarm_stacks: "RemoveSwarmStacks",
  create_swarm_config: "CreateSwarmConfig",
  create_swarm_secret: "CreateSwarmSecret",
  rotate_swarm_config: "RotateSwarmConfig",
  rotate_swarm_secret: "RotateSwarmSecret",
  update_swarm_node: "UpdateSwarmNode",
  batch_run_build: "BatchRunBuild",
  batch_deploy_stack: "BatchDeployStack",
  batch_deploy_stack_if_changed: "BatchDeployStackIfChanged",
  batch_deploy: "BatchDeploy",
  batch_pull_stack: "BatchPullStack",
  batch_pull_repo: "BatchPullRepo",
  batch_build_repo: "BatchBuildRepo",
  batch_clone_repo: "BatchCloneRepo",
  batch_run_procedure: "BatchRunProcedure",
  batch_run_action: "BatchRunAction",
  batch_destroy_deployment: "BatchDestroyDeployment",
  batch_destroy_stack: "BatchDestroyStack",
  backup_core_database: "BackupCoreDatabase",
  rotate_core_keys: "RotateCoreKeys",
  global_auto_update: "GlobalAutoUpdate",
  send_alert: "SendAlert",
  test_alerter: "TestAlerter",
} as const

/**
 * What each call that loses data removes, or stops, as the service runs it (the command it runs on
 * the server), by tool and selector: the one table of what the `destructive` class holds beside
 * svc_delete's every selector (Classes.ts), and what `schema: true` on the operation says
 * (docs/tools.md lists it). A prune removes everything unused of its kind, not only what is
 * dangling; a destroy leaves the volumes; a stop removes nothing, but what it stops serves no one
 * until it is started again.
 */
export const removes: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  svc_execute: {
    destroy_stack: "the stack's containers and networks (docker compose down); its volumes stay",
    batch_destroy_stack: "of each stack matched, its containers and networks (docker compose down); volumes stay",
    destroy_deployment: "the deployment's container, stopped then removed; its volumes stay",
    batch_destroy_deployment: "of each deployment matched, its container, stopped then removed; volumes stay",
    destroy_container: "the container, stopped then removed; its volumes stay",
    clear_repo_cache: "every repository the service cloned for itself, cloned again when next needed",
    run_server_prune_images: "every image no container uses, tagged or not (docker image prune -a)",
    run_server_prune_containers: "every stopped container (docker container prune)",
    run_server_prune_networks: "every network no container uses (docker network prune)",
    prune_volumes: "every volume no container uses, named ones too, with their data (docker volume prune -a)",
    prune_system:
      "every stopped container, unused network and unused image (tagged or not), the build cache, and unused volumes with their data (docker system prune -a --volumes)",
    prune_buildx: "the whole buildx cache (docker buildx prune -a)",
    prune_docker_builders: "the whole build cache (docker builder prune -a)",
    delete_image: "the one image named (docker image rm)",
    delete_network: "the one network named (docker network rm)",
    delete_volume: "the one volume named, with its data (docker volume rm)",
    remove_swarm_nodes: "the nodes named, from the swarm",
    remove_swarm_services: "the swarm services named, with their tasks",
    remove_swarm_configs: "the swarm configs named",
    remove_swarm_secrets: "the swarm secrets named",
    remove_swarm_stacks: "the swarm stacks named, with their services",
    stop_stack: "nothing: it stops the stack's containers, which keep their data, until started again",
    stop_deployment: "nothing: it stops the deployment's container, which keeps its data, until started again",
    stop_container: "nothing: it stops the container, which keeps its data, until started again",
    stop_all_containers: "nothing: it stops every container on the server, which keep their data, until started again",
  } satisfies Partial<Record<keyof typeof execute, string>>,
  // SVC_REACH=all: who belongs to a group, and whether a user may sign in at all.
  svc_update: {
    user_group_remove_user: "the user named, from the group, with the rights it gave them",
    user_group_users: "every member not named, from the group: the list given replaces the group's",
    user_base_permissions: "with enabled: false, the user's access: they are disabled, and no key of theirs works",
  },
}

/**
 * What the confirmation's question (SVC_CONFIRM) shows of an operation, read just before asking
 * (Confirmation/PrunePlan.ts, DeployPlan.ts, References.ts): `schema: true` says it as `preview`.
 */
const PRUNED = "each with its size, the total, and how many are kept in use, read just before asking"
export const previews: Readonly<Partial<Record<keyof typeof execute, string>>> = {
  run_server_prune_images: `the images it removes, ${PRUNED}`,
  prune_volumes: `the volumes it removes, ${PRUNED}`,
  run_server_prune_networks: `the networks it removes, ${PRUNED}`,
  run_server_prune_containers: `the stopped containers it removes, ${PRUNED}`,
  prune_system: `the stopped containers, then the networks, images and volumes no container left uses, ${PRUNED}`,
  deploy: "the image the deployment's container runs now and the image its config names, read just before asking",
  deploy_stack:
    "the commit deployed now and the repository's latest (or the compose file's hash as deployed and now), read just before asking",
  deploy_stack_if_changed:
    "the commit deployed now and the repository's latest (or the compose file's hash as deployed and now), read just before asking",
  batch_deploy:
    "the deployments the pattern matches now and, for the first 10, each one's image now and after, read just before asking",
  batch_deploy_stack:
    "the stacks the pattern matches now and, for the first 10, each one's commit now and after, read just before asking",
  batch_deploy_stack_if_changed:
    "the stacks the pattern matches now and, for the first 10, each one's commit now and after, read just before asking",
}

/** What a delete's question shows, for `schema: true` on svc_delete. */
export const deletePreview =
  "the record it deletes; for a stack, deployment, build, repo, procedure, action, server or sync: the procedures' stages, alerters and syncs that refer to it; for a stack, its services; read just before asking"

export const logs = {
  deployment: "GetDeploymentLog",
  stack: "GetStackLog",
  container: "GetContainerLog",
  swarm_service: "GetSwarmServiceLog",
} as const

export const search_logs = {
  container: "SearchContainerLog",
  deployment: "SearchDeploymentLog",
  stack: "SearchStackLog",
  swarm_service: "SearchSwarmServiceLog",
} as const

export const summary = {
  build: "GetBuildsSummary",
  deployment: "GetDeploymentsSummary",
  server: "GetServersSummary",
  stack: "GetStacksSummary",
  alerter: "GetAlertersSummary",
  procedure: "GetProceduresSummary",
  sync_resource: "GetResourceSyncsSummary",
  repo: "GetReposSummary",
  builder: "GetBuildersSummary",
  swarm: "GetSwarmsSummary",
  action: "GetActionsSummary",
} as const

export const inspect = {
  container: "InspectContainer",
  image: "InspectImage",
  network: "InspectNetwork",
  volume: "InspectVolume",
  deployment_container: "InspectDeploymentContainer",
  deployment_swarm_service: "InspectDeploymentSwarmService",
  stack_container: "InspectStackContainer",
  stack_swarm_info: "InspectStackSwarmInfo",
  stack_swarm_service: "InspectStackSwarmService",
  swarm: "InspectSwarm",
  swarm_config: "InspectSwarmConfig",
  swarm_node: "InspectSwarmNode",
  swarm_secret: "InspectSwarmSecret",
  swarm_service: "InspectSwarmService",
  swarm_stack: "InspectSwarmStack",
  swarm_task: "InspectSwarmTask",
} as const

export const list_detail = {
  containers: "ListContainers",
  all_containers: "ListAllContainers",
  images: "ListImages",
  networks: "ListNetworks",
  volumes: "ListVolumes",
  system_processes: "ListSystemProcesses",
  schedules: "ListSchedules",
  permissions: "ListPermissions",
  api_keys: "ListApiKeys",
  api_keys_for_service_user: "ListApiKeysForServiceUser",
  onboarding_keys: "ListOnboardingKeys",
  secrets: "ListSecrets",
  updates: "ListUpdates",
  build_versions: "ListBuildVersions",
  compose_projects: "ListComposeProjects",
  user_target_permissions: "ListUserTargetPermissions",
  full_stacks: "ListFullStacks",
  full_builds: "ListFullBuilds",
  full_servers: "ListFullServers",
  full_deployments: "ListFullDeployments",
  full_procedures: "ListFullProcedures",
  full_repos: "ListFullRepos",
  full_builders: "ListFullBuilders",
  full_swarms: "ListFullSwarms",
  full_actions: "ListFullActions",
  full_alerters: "ListFullAlerters",
  full_resource_syncs: "ListFullResourceSyncs",
  swarm_configs: "ListSwarmConfigs",
  swarm_networks: "ListSwarmNetworks",
  swarm_nodes: "ListSwarmNodes",
  swarm_secrets: "ListSwarmSecrets",
  swarm_services: "ListSwarmServices",
  swarm_stacks: "ListSwarmStacks",
  swarm_tasks: "ListSwarmTasks",
  git_providers_from_config: "ListGitProvidersFromConfig",
  image_registries_from_config: "ListImageRegistriesFromConfig",
  common_build_extra_args: "ListCommonBuildExtraArgs",
  common_deployment_extra_args: "ListCommonDeploymentExtraArgs",
  common_stack_build_extra_args: "ListCommonStackBuildExtraArgs",
  common_stack_extra_args: "ListCommonStackExtraArgs",
  image_history: "ListImageHistory",
  all_stack_services: "ListAllStackServices",
} as const

export const copy = {
  stack: "CopyStack",
  build: "CopyBuild",
  server: "CopyServer",
  deployment: "CopyDeployment",
  procedure: "CopyProcedure",
  alerter: "CopyAlerter",
  action: "CopyAction",
  repo: "CopyRepo",
  builder: "CopyBuilder",
  swarm: "CopySwarm",
  sync_resource: "CopyResourceSync",
} as const

export const rename = {
  stack: "RenameStack",
  build: "RenameBuild",
  server: "RenameServer",
  deployment: "RenameDeployment",
  procedure: "RenameProcedure",
  alerter: "RenameAlerter",
  action: "RenameAction",
  repo: "RenameRepo",
  builder: "RenameBuilder",
  swarm: "RenameSwarm",
  tag: "RenameTag",
  user_group: "RenameUserGroup",
} as const
