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

const P0: Patterns = [["logs.[].command","Log"],["logs.[].stderr","Log"],["logs.[].stdout","Log"]]
const P1: Patterns = [["[].data.logs.[].command","Log"],["[].data.logs.[].stderr","Log"],["[].data.logs.[].stdout","Log"]]
const P2: Patterns = [["toml","TomlResponse"]]
const P3: Patterns = [["description","Resource<ActionConfig,NoData>"]]
const P4: Patterns = [["data.data.core_version","Alert"],["data.data.details","Alert"],["data.data.err.error","Alert"],["data.data.err.trace","Alert"],["data.data.image","Alert"],["data.data.images","Alert"],["data.data.message","Alert"],["data.data.name","Alert"],["data.data.path","Alert"],["data.data.region","Alert"],["data.data.server_name","Alert"],["data.data.server_version","Alert"],["data.data.service","Alert"],["data.data.swarm_name","Alert"]]
const P5: Patterns = [["description","Resource<AlerterConfig,undefined>"]]
const P6: Patterns = [["description","Resource<BuildConfig,BuildInfo>"],["info.built_contents","BuildInfo"],["info.built_message","BuildInfo"],["info.latest_message","BuildInfo"],["info.remote_contents","BuildInfo"],["info.remote_error","BuildInfo"]]
const P7: Patterns = [["description","Resource<BuilderConfig,undefined>"]]
const P8: Patterns = [["command","Log"],["stderr","Log"],["stdout","Log"]]
const P9: Patterns = [["description","Resource<DeploymentConfig,DeploymentInfo>"]]
const P10: Patterns = [["container.labels","ContainerListItem"],["container.labels.{}","ContainerListItem"]]
const P11: Patterns = [["description","Resource<ProcedureConfig,undefined>"]]
const P12: Patterns = [["description","Resource<RepoConfig,RepoInfo>"],["info.built_message","RepoInfo"],["info.latest_message","RepoInfo"]]
const P13: Patterns = [["description","Resource<ResourceSyncConfig,ResourceSyncInfo>"],["info.last_sync_message","ResourceSyncInfo"],["info.pending_error","ResourceSyncInfo"],["info.pending_message","ResourceSyncInfo"],["info.remote_contents","ResourceSyncInfo"],["info.remote_errors","ResourceSyncInfo"],["info.resource_updates.[].data.data","DiffData"],["info.user_group_updates.[].data","DiffData"],["info.variable_updates.[].data","DiffData"]]
const P14: Patterns = [["description","Resource<ServerConfig,ServerInfo>"]]
const P15: Patterns = [["description","Resource<StackConfig,StackInfo>"],["info.deployed_contents","StackInfo"],["info.deployed_message","StackInfo"],["info.latest_message","StackInfo"],["info.remote_contents.[].contents","StackInfo"],["info.remote_contents.[].path","StackInfo"],["info.remote_contents.[].services","StackInfo"],["info.remote_errors","StackInfo"]]
const P16: Patterns = [["description","Resource<SwarmConfig,SwarmInfo>"]]
const P17: Patterns = [["description","Variable"]]
const P18: Patterns = [["Args","Container"],["Config.Cmd","ContainerConfig"],["Config.Entrypoint","ContainerConfig"],["Config.Env","ContainerConfig"],["Config.Labels","ContainerConfig"],["Config.Labels.{}","ContainerConfig"],["Path","Container"],["State.Health.Log.[].Output","HealthcheckResult"]]
const P19: Patterns = [["Spec.TaskTemplate.ContainerSpec.Args","TaskSpecContainerSpec"],["Spec.TaskTemplate.ContainerSpec.Command","TaskSpecContainerSpec"],["Spec.TaskTemplate.ContainerSpec.Env","TaskSpecContainerSpec"],["Spec.TaskTemplate.ContainerSpec.Labels","TaskSpecContainerSpec"],["Spec.TaskTemplate.ContainerSpec.Labels.{}","TaskSpecContainerSpec"]]
const P20: Patterns = [["Author","Image"],["Comment","Image"],["Config.Cmd","ImageConfig"],["Config.Entrypoint","ImageConfig"],["Config.Env","ImageConfig"],["Config.Labels","ImageConfig"],["Config.Labels.{}","ImageConfig"]]
const P21: Patterns = [["Labels","Network"],["Labels.{}","Network"]]
const P22: Patterns = [["Labels","SwarmTask"],["Labels.{}","SwarmTask"],["Spec.ContainerSpec.Args","TaskSpecContainerSpec"],["Spec.ContainerSpec.Command","TaskSpecContainerSpec"],["Spec.ContainerSpec.Env","TaskSpecContainerSpec"],["Spec.ContainerSpec.Labels","TaskSpecContainerSpec"],["Spec.ContainerSpec.Labels.{}","TaskSpecContainerSpec"],["Status.Err","TaskStatus"],["Status.Message","TaskStatus"]]
const P23: Patterns = [["Labels","Volume"],["Labels.{}","Volume"]]
const P24: Patterns = [["alerts.[].data.data.core_version","Alert"],["alerts.[].data.data.details","Alert"],["alerts.[].data.data.err.error","Alert"],["alerts.[].data.data.err.trace","Alert"],["alerts.[].data.data.image","Alert"],["alerts.[].data.data.images","Alert"],["alerts.[].data.data.message","Alert"],["alerts.[].data.data.name","Alert"],["alerts.[].data.data.path","Alert"],["alerts.[].data.data.region","Alert"],["alerts.[].data.data.server_name","Alert"],["alerts.[].data.data.server_version","Alert"],["alerts.[].data.data.service","Alert"],["alerts.[].data.data.swarm_name","Alert"]]
const P25: Patterns = [["[].labels","ContainerListItem"],["[].labels.{}","ContainerListItem"]]
const P26: Patterns = [["[].container.labels","ContainerListItem"],["[].container.labels.{}","ContainerListItem"],["[].service","StackService"]]
const P27: Patterns = [["[].description","Resource<ActionConfig,NoData>"]]
const P28: Patterns = [["[].description","Resource<AlerterConfig,undefined>"]]
const P29: Patterns = [["[].description","Resource<BuilderConfig,undefined>"]]
const P30: Patterns = [["[].description","Resource<BuildConfig,BuildInfo>"],["[].info.built_contents","BuildInfo"],["[].info.built_message","BuildInfo"],["[].info.latest_message","BuildInfo"],["[].info.remote_contents","BuildInfo"],["[].info.remote_error","BuildInfo"]]
const P31: Patterns = [["[].description","Resource<DeploymentConfig,DeploymentInfo>"]]
const P32: Patterns = [["[].description","Resource<ProcedureConfig,undefined>"]]
const P33: Patterns = [["[].description","Resource<RepoConfig,RepoInfo>"],["[].info.built_message","RepoInfo"],["[].info.latest_message","RepoInfo"]]
const P34: Patterns = [["[].description","Resource<ResourceSyncConfig,ResourceSyncInfo>"],["[].info.last_sync_message","ResourceSyncInfo"],["[].info.pending_error","ResourceSyncInfo"],["[].info.pending_message","ResourceSyncInfo"],["[].info.remote_contents","ResourceSyncInfo"],["[].info.remote_errors","ResourceSyncInfo"],["[].info.resource_updates.[].data.data","DiffData"],["[].info.user_group_updates.[].data","DiffData"],["[].info.variable_updates.[].data","DiffData"]]
const P35: Patterns = [["[].description","Resource<ServerConfig,ServerInfo>"]]
const P36: Patterns = [["[].description","Resource<StackConfig,StackInfo>"],["[].info.deployed_contents","StackInfo"],["[].info.deployed_message","StackInfo"],["[].info.latest_message","StackInfo"],["[].info.remote_contents.[].contents","StackInfo"],["[].info.remote_contents.[].path","StackInfo"],["[].info.remote_contents.[].services","StackInfo"],["[].info.remote_errors","StackInfo"]]
const P37: Patterns = [["[].description","Resource<SwarmConfig,SwarmInfo>"]]
const P38: Patterns = [["[].Comment","ImageHistoryResponseItem"],["[].CreatedBy","ImageHistoryResponseItem"]]
const P39: Patterns = [["[].info.cloned_message","RepoListItemInfo"]]
const P40: Patterns = [["[].info.last_sync_message","ResourceSyncListItemInfo"]]
const P41: Patterns = [["[].description","Variable"]]

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
  "read/GetAction": P3,
  "read/GetAlert": P4,
  "read/GetAlerter": P5,
  "read/GetBuild": P6,
  "read/GetBuilder": P7,
  "read/GetContainerLog": P8,
  "read/GetDeployment": P9,
  "read/GetDeploymentContainer": P10,
  "read/GetDeploymentLog": P8,
  "read/GetProcedure": P11,
  "read/GetRepo": P12,
  "read/GetResourceSync": P13,
  "read/GetServer": P14,
  "read/GetStack": P15,
  "read/GetStackLog": P8,
  "read/GetSwarm": P16,
  "read/GetSwarmServiceLog": P8,
  "read/GetUpdate": P0,
  "read/GetVariable": P17,
  "read/InspectContainer": P18,
  "read/InspectDeploymentContainer": P18,
  "read/InspectDeploymentSwarmService": P19,
  "read/InspectImage": P20,
  "read/InspectNetwork": P21,
  "read/InspectStackContainer": P18,
  "read/InspectStackSwarmService": P19,
  "read/InspectSwarmService": P19,
  "read/InspectSwarmTask": P22,
  "read/InspectVolume": P23,
  "read/ListAlerts": P24,
  "read/ListAllContainers": P25,
  "read/ListAllStackServices": P26,
  "read/ListContainers": P25,
  "read/ListFullActions": P27,
  "read/ListFullAlerters": P28,
  "read/ListFullBuilders": P29,
  "read/ListFullBuilds": P30,
  "read/ListFullDeployments": P31,
  "read/ListFullProcedures": P32,
  "read/ListFullRepos": P33,
  "read/ListFullResourceSyncs": P34,
  "read/ListFullServers": P35,
  "read/ListFullStacks": P36,
  "read/ListFullSwarms": P37,
  "read/ListImageHistory": P38,
  "read/ListRepos": P39,
  "read/ListResourceSyncs": P40,
  "read/ListStackServices": P26,
  "read/ListVariables": P41,
  "read/SearchContainerLog": P8,
  "read/SearchDeploymentLog": P8,
  "read/SearchStackLog": P8,
  "read/SearchSwarmServiceLog": P8,
  "write/CommitSync": P0,
  "write/CopyAction": P3,
  "write/CopyAlerter": P5,
  "write/CopyBuild": P6,
  "write/CopyBuilder": P7,
  "write/CopyDeployment": P9,
  "write/CopyProcedure": P11,
  "write/CopyRepo": P12,
  "write/CopyResourceSync": P13,
  "write/CopyServer": P14,
  "write/CopyStack": P15,
  "write/CopySwarm": P16,
  "write/CreateAction": P3,
  "write/CreateAlerter": P5,
  "write/CreateBuild": P6,
  "write/CreateBuilder": P7,
  "write/CreateDeployment": P9,
  "write/CreateDeploymentFromContainer": P9,
  "write/CreateNetwork": P0,
  "write/CreateProcedure": P11,
  "write/CreateRepo": P12,
  "write/CreateResourceSync": P13,
  "write/CreateServer": P14,
  "write/CreateStack": P15,
  "write/CreateSwarm": P16,
  "write/CreateVariable": P17,
  "write/DeleteAction": P3,
  "write/DeleteAlerter": P5,
  "write/DeleteBuild": P6,
  "write/DeleteBuilder": P7,
  "write/DeleteDeployment": P9,
  "write/DeleteProcedure": P11,
  "write/DeleteRepo": P12,
  "write/DeleteResourceSync": P13,
  "write/DeleteServer": P14,
  "write/DeleteStack": P15,
  "write/DeleteSwarm": P16,
  "write/DeleteVariable": P17,
  "write/RefreshResourceSyncPending": P13,
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
  "write/UpdateAction": P3,
  "write/UpdateAlerter": P5,
  "write/UpdateBuild": P6,
  "write/UpdateBuilder": P7,
  "write/UpdateDeployment": P9,
  "write/UpdateProcedure": P11,
  "write/UpdateRepo": P12,
  "write/UpdateResourceSync": P13,
  "write/UpdateServer": P14,
  "write/UpdateServerPublicKey": P0,
  "write/UpdateStack": P15,
  "write/UpdateSwarm": P16,
  "write/UpdateVariableDescription": P17,
  "write/UpdateVariableIsSecret": P17,
  "write/UpdateVariableValue": P17,
  "write/WriteBuildFileContents": P0,
  "write/WriteStackFileContents": P0,
  "write/WriteSyncFileContents": P0,
}
