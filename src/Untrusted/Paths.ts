/**
 * The untrusted paths of each endpoint's answer, derived from the service's
 * definitions of every endpoint (spec/service-api-all.schema.json: those SVC_REACH=all adds
 * too) by Derive.ts with the rules of Fields.ts (test/unit/Untrusted.test.ts
 * derives them again and holds this table to it). Each path names a field whose
 * every string is untrusted: `[]` is each item of an array, `*` each value of a map.
 * Generated: `npm run build && node scripts/untrusted-paths.mjs` writes it anew.
 */
import type { Pattern } from "./Derive.js"

type Patterns = ReadonlyArray<Pattern>

const P0: Patterns = [
  ["logs.[].command", "Log"],
  ["logs.[].stderr", "Log"],
  ["logs.[].stdout", "Log"],
]
const P1: Patterns = [
  ["[].data.logs.[].command", "Log"],
  ["[].data.logs.[].stderr", "Log"],
  ["[].data.logs.[].stdout", "Log"],
]
const P2: Patterns = [["toml", "TomlResponse"]]
const P3: Patterns = [["data", "Alert"]]
const P4: Patterns = [
  ["info.built_contents", "BuildInfo"],
  ["info.built_message", "BuildInfo"],
  ["info.latest_message", "BuildInfo"],
  ["info.remote_contents", "BuildInfo"],
  ["info.remote_error", "BuildInfo"],
]
const P5: Patterns = [
  ["command", "Log"],
  ["stderr", "Log"],
  ["stdout", "Log"],
]
const P6: Patterns = [
  ["container.labels", "ContainerListItem"],
  ["container.labels.{}", "ContainerListItem"],
]
const P7: Patterns = [
  ["info.built_message", "RepoInfo"],
  ["info.latest_message", "RepoInfo"],
]
const P8: Patterns = [
  ["info.last_sync_message", "ResourceSyncInfo"],
  ["info.pending_error", "ResourceSyncInfo"],
  ["info.pending_message", "ResourceSyncInfo"],
  ["info.remote_contents", "ResourceSyncInfo"],
  ["info.remote_errors", "ResourceSyncInfo"],
  ["info.resource_updates.[].data.data", "DiffData"],
  ["info.user_group_updates.[].data", "DiffData"],
  ["info.variable_updates.[].data", "DiffData"],
]
const P9: Patterns = [
  ["info.deployed_contents", "StackInfo"],
  ["info.deployed_message", "StackInfo"],
  ["info.latest_message", "StackInfo"],
  ["info.remote_contents", "StackInfo"],
  ["info.remote_errors", "StackInfo"],
]
const P10: Patterns = [
  ["Args", "Container"],
  ["Config.Cmd", "ContainerConfig"],
  ["Config.Entrypoint", "ContainerConfig"],
  ["Config.Env", "ContainerConfig"],
  ["Config.Labels", "ContainerConfig"],
  ["Config.Labels.{}", "ContainerConfig"],
  ["Path", "Container"],
  ["State.Health.Log.[].Output", "HealthcheckResult"],
]
const P11: Patterns = [
  ["Spec.TaskTemplate.ContainerSpec.Args", "TaskSpecContainerSpec"],
  ["Spec.TaskTemplate.ContainerSpec.Command", "TaskSpecContainerSpec"],
  ["Spec.TaskTemplate.ContainerSpec.Env", "TaskSpecContainerSpec"],
  ["Spec.TaskTemplate.ContainerSpec.Labels", "TaskSpecContainerSpec"],
  ["Spec.TaskTemplate.ContainerSpec.Labels.{}", "TaskSpecContainerSpec"],
]
const P12: Patterns = [
  ["Author", "Image"],
  ["Comment", "Image"],
  ["Config.Cmd", "ImageConfig"],
  ["Config.Entrypoint", "ImageConfig"],
  ["Config.Env", "ImageConfig"],
  ["Config.Labels", "ImageConfig"],
  ["Config.Labels.{}", "ImageConfig"],
]
const P13: Patterns = [
  ["Labels", "Network"],
  ["Labels.{}", "Network"],
]
const P14: Patterns = [
  ["Labels", "SwarmTask"],
  ["Labels.{}", "SwarmTask"],
  ["Spec.ContainerSpec.Args", "TaskSpecContainerSpec"],
  ["Spec.ContainerSpec.Command", "TaskSpecContainerSpec"],
  ["Spec.ContainerSpec.Env", "TaskSpecContainerSpec"],
  ["Spec.ContainerSpec.Labels", "TaskSpecContainerSpec"],
  ["Spec.ContainerSpec.Labels.{}", "TaskSpecContainerSpec"],
  ["Status.Err", "TaskStatus"],
  ["Status.Message", "TaskStatus"],
]
const P15: Patterns = [
  ["Labels", "Volume"],
  ["Labels.{}", "Volume"],
]
const P16: Patterns = [["alerts.[].data", "Alert"]]
const P17: Patterns = [
  ["[].labels", "ContainerListItem"],
  ["[].labels.{}", "ContainerListItem"],
]
const P18: Patterns = [
  ["[].container.labels", "ContainerListItem"],
  ["[].container.labels.{}", "ContainerListItem"],
]
const P19: Patterns = [
  ["[].info.built_contents", "BuildInfo"],
  ["[].info.built_message", "BuildInfo"],
  ["[].info.latest_message", "BuildInfo"],
  ["[].info.remote_contents", "BuildInfo"],
  ["[].info.remote_error", "BuildInfo"],
]
const P20: Patterns = [
  ["[].info.built_message", "RepoInfo"],
  ["[].info.latest_message", "RepoInfo"],
]
const P21: Patterns = [
  ["[].info.last_sync_message", "ResourceSyncInfo"],
  ["[].info.pending_error", "ResourceSyncInfo"],
  ["[].info.pending_message", "ResourceSyncInfo"],
  ["[].info.remote_contents", "ResourceSyncInfo"],
  ["[].info.remote_errors", "ResourceSyncInfo"],
  ["[].info.resource_updates.[].data.data", "DiffData"],
  ["[].info.user_group_updates.[].data", "DiffData"],
  ["[].info.variable_updates.[].data", "DiffData"],
]
const P22: Patterns = [
  ["[].info.deployed_contents", "StackInfo"],
  ["[].info.deployed_message", "StackInfo"],
  ["[].info.latest_message", "StackInfo"],
  ["[].info.remote_contents", "StackInfo"],
  ["[].info.remote_errors", "StackInfo"],
]
const P23: Patterns = [
  ["[].Comment", "ImageHistoryResponseItem"],
  ["[].CreatedBy", "ImageHistoryResponseItem"],
]
const P24: Patterns = [["[].info.cloned_message", "RepoListItemInfo"]]
const P25: Patterns = [["[].info.last_sync_message", "ResourceSyncListItemInfo"]]

export const PATHS: Readonly<Record<string, Patterns>> = {
  "execute/BackupCoreDatabase": P0,
  "execute/BatchBuildRepo": P1,
  "execute/BatchCloneRepo": P1,
  "execute/BatchDeploy": P1,
  "execute/BatchDeployStack": P1,
  "execute/BatchDeployStackIfChanged": P1,
  "execute/BatchDestroyDeployment": P1,
  "execute/BatchDestroyStack": P1,
  "execute/BatchPullRepo": P1,
  "execute/BatchPullStack": P1,
  "execute/BatchRunAction": P1,
  "execute/BatchRunBuild": P1,
  "execute/BatchRunProcedure": P1,
  "execute/BuildRepo": P0,
  "execute/CancelAction": P0,
  "execute/CancelBuild": P0,
  "execute/CancelProcedure": P0,
  "execute/CancelRepoBuild": P0,
  "execute/ClearRepoCache": P0,
  "execute/CloneRepo": P0,
  "execute/CreateSwarmConfig": P0,
  "execute/CreateSwarmSecret": P0,
  "execute/DeleteImage": P0,
  "execute/DeleteNetwork": P0,
  "execute/DeleteVolume": P0,
  "execute/Deploy": P0,
  "execute/DeployStack": P0,
  "execute/DeployStackIfChanged": P0,
  "execute/DestroyContainer": P0,
  "execute/DestroyDeployment": P0,
  "execute/DestroyStack": P0,
  "execute/GlobalAutoUpdate": P0,
  "execute/PauseAllContainers": P0,
  "execute/PauseContainer": P0,
  "execute/PauseDeployment": P0,
  "execute/PauseStack": P0,
  "execute/PruneBuildx": P0,
  "execute/PruneContainers": P0,
  "execute/PruneDockerBuilders": P0,
  "execute/PruneImages": P0,
  "execute/PruneNetworks": P0,
  "execute/PruneSystem": P0,
  "execute/PruneVolumes": P0,
  "execute/PullDeployment": P0,
  "execute/PullRepo": P0,
  "execute/PullStack": P0,
  "execute/RemoveSwarmConfigs": P0,
  "execute/RemoveSwarmNodes": P0,
  "execute/RemoveSwarmSecrets": P0,
  "execute/RemoveSwarmServices": P0,
  "execute/RemoveSwarmStacks": P0,
  "execute/RestartAllContainers": P0,
  "execute/RestartContainer": P0,
  "execute/RestartDeployment": P0,
  "execute/RestartStack": P0,
  "execute/RotateAllServerKeys": P0,
  "execute/RotateCoreKeys": P0,
  "execute/RotateSwarmConfig": P0,
  "execute/RotateSwarmSecret": P0,
  "execute/RunAction": P0,
  "execute/RunBuild": P0,
  "execute/RunProcedure": P0,
  "execute/RunServerCopy": P0,
  "execute/RunServerMove": P0,
  "execute/RunServerRefreshContainers": P0,
  "execute/RunServerRunCommand": P0,
  "execute/RunServerScripts": P0,
  "execute/RunStackService": P0,
  "execute/RunSync": P0,
  "execute/SendAlert": P0,
  "execute/StartAllContainers": P0,
  "execute/StartContainer": P0,
  "execute/StartDeployment": P0,
  "execute/StartStack": P0,
  "execute/StopAllContainers": P0,
  "execute/StopContainer": P0,
  "execute/StopDeployment": P0,
  "execute/StopStack": P0,
  "execute/TestAlerter": P0,
  "execute/UnpauseAllContainers": P0,
  "execute/UnpauseContainer": P0,
  "execute/UnpauseDeployment": P0,
  "execute/UnpauseStack": P0,
  "execute/UpdateSwarmNode": P0,
  "read/ExportAllResourcesToToml": P2,
  "read/ExportResourcesToToml": P2,
  "read/GetAlert": P3,
  "read/GetBuild": P4,
  "read/GetContainerLog": P5,
  "read/GetDeploymentContainer": P6,
  "read/GetDeploymentLog": P5,
  "read/GetRepo": P7,
  "read/GetResourceSync": P8,
  "read/GetStack": P9,
  "read/GetStackLog": P5,
  "read/GetSwarmServiceLog": P5,
  "read/GetUpdate": P0,
  "read/InspectContainer": P10,
  "read/InspectDeploymentContainer": P10,
  "read/InspectDeploymentSwarmService": P11,
  "read/InspectImage": P12,
  "read/InspectNetwork": P13,
  "read/InspectStackContainer": P10,
  "read/InspectStackSwarmService": P11,
  "read/InspectSwarmService": P11,
  "read/InspectSwarmTask": P14,
  "read/InspectVolume": P15,
  "read/ListAlerts": P16,
  "read/ListAllContainers": P17,
  "read/ListAllStackServices": P18,
  "read/ListContainers": P17,
  "read/ListFullBuilds": P19,
  "read/ListFullRepos": P20,
  "read/ListFullResourceSyncs": P21,
  "read/ListFullStacks": P22,
  "read/ListImageHistory": P23,
  "read/ListRepos": P24,
  "read/ListResourceSyncs": P25,
  "read/ListStackServices": P18,
  "read/SearchContainerLog": P5,
  "read/SearchDeploymentLog": P5,
  "read/SearchStackLog": P5,
  "read/SearchSwarmServiceLog": P5,
  "write/CommitSync": P0,
  "write/CopyBuild": P4,
  "write/CopyRepo": P7,
  "write/CopyResourceSync": P8,
  "write/CopyStack": P9,
  "write/CreateBuild": P4,
  "write/CreateNetwork": P0,
  "write/CreateRepo": P7,
  "write/CreateResourceSync": P8,
  "write/CreateStack": P9,
  "write/DeleteBuild": P4,
  "write/DeleteRepo": P7,
  "write/DeleteResourceSync": P8,
  "write/DeleteStack": P9,
  "write/RefreshResourceSyncPending": P8,
  "write/RenameAction": P0,
  "write/RenameAlerter": P0,
  "write/RenameBuild": P0,
  "write/RenameBuilder": P0,
  "write/RenameDeployment": P0,
  "write/RenameProcedure": P0,
  "write/RenameRepo": P0,
  "write/RenameResourceSync": P0,
  "write/RenameServer": P0,
  "write/RenameStack": P0,
  "write/RenameSwarm": P0,
  "write/RotateServerKeys": P0,
  "write/UpdateBuild": P4,
  "write/UpdateRepo": P7,
  "write/UpdateResourceSync": P8,
  "write/UpdateServerPublicKey": P0,
  "write/UpdateStack": P9,
  "write/WriteBuildFileContents": P0,
  "write/WriteStackFileContents": P0,
  "write/WriteSyncFileContents": P0,
}
