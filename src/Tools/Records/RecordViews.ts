/**
 * The default answer of each record, as data: per endpoint, the fields an
 * operator looks at first, each read from a path of the service's record and
 * shown under its label, ids as names, as a list's row shows them
 * (Projections.ts, whose columns these are). svc_get and svc_inspect answer
 * without `fields` by these; `fields: ["*"]` keeps the whole record, and a
 * label works as `fields` for the path it reads. RecordGlance.ts reads this
 * table; docs/tools.md explains it.
 *
 * A record whose every field is one an operator reads (a tag, a variable, an
 * account, a volume) has no entry and is answered whole. No label reads an
 * untrusted field (Untrusted/Fields.ts) nor a credential: a test holds the
 * table to both. `more` is a path no label reads, for the first line's example.
 */
import { type Column, FULL, OID as ID, NAME, PROJECTIONS, type Projection, TAGS } from "../Lists/Projections.js"

/** A record's view: its `noun` in the singular ("stack"), its columns, a path of `more`. */
export type RecordView = Projection

// A full record's columns, as svc_list_detail's rows read them (Projections.ts).
const { SERVER, SWARM, BUILDER, REPO, BRANCH } = FULL
const SCHEDULE: ReadonlyArray<Column> = [FULL.SCHEDULE, FULL.SCHEDULED]
const config = (...names: ReadonlyArray<string>): ReadonlyArray<Column> =>
  names.map((name) => ({ label: name, path: `config.${name}` }))
const info = (...names: ReadonlyArray<string>): ReadonlyArray<Column> =>
  names.map((name) => ({ label: name, path: `info.${name}` }))

/** A container as Docker inspects it: a server's, a deployment's, a stack service's. */
const CONTAINER: RecordView = {
  noun: "container",
  columns: [
    { label: "name", path: "Name" },
    { label: "image", path: "Config.Image" },
    { label: "state", path: "State.Status" },
    { label: "health", path: "State.Health.Status" },
    { label: "exit_code", path: "State.ExitCode" },
    { label: "error", path: "State.Error" },
    { label: "oom_killed", path: "State.OOMKilled" },
    { label: "started_at", path: "State.StartedAt" },
    { label: "finished_at", path: "State.FinishedAt" },
    { label: "restarts", path: "RestartCount" },
    { label: "restart_policy", path: "HostConfig.RestartPolicy.Name" },
    { label: "created", path: "Created" },
    { label: "mounts", path: "Mounts.Destination" },
  ],
  more: "NetworkSettings",
}

/** A swarm service as Docker inspects it: the swarm's, a deployment's. */
const SWARM_SERVICE: RecordView = {
  noun: "service",
  columns: [
    { label: "name", path: "Spec.Name" },
    { label: "id", path: "ID" },
    { label: "state", path: "State" },
    { label: "mode", path: "Mode" },
    { label: "replicas", path: "Replicas" },
    { label: "running", path: "ServiceStatus.RunningTasks" },
    { label: "desired", path: "ServiceStatus.DesiredTasks" },
    { label: "image", path: "Spec.TaskTemplate.ContainerSpec.Image" },
    { label: "update", path: "UpdateStatus.State" },
    { label: "updated_at", path: "UpdatedAt" },
  ],
  more: "Endpoint",
}

/**
 * By endpoint: svc_get's resources and svc_inspect's Docker objects. The
 * sync's get (read/GetResourceSync) is not here: its default answer is its
 * pending changes (RecordGlance.ts).
 */
export const RECORD_VIEWS: Readonly<Record<string, RecordView>> = {
  "read/GetStack": {
    noun: "stack",
    columns: [
      NAME,
      ID,
      SERVER,
      SWARM,
      TAGS,
      REPO,
      BRANCH,
      { label: "files", path: "config.file_paths" },
      ...config("auto_update", "poll_for_updates", "send_alerts"),
      { label: "services", path: "info.deployed_services.service_name" },
      ...info("deployed_hash", "latest_hash", "missing_files"),
    ],
    more: "config.environment",
  },
  "read/GetDeployment": {
    noun: "deployment",
    columns: [
      NAME,
      ID,
      SERVER,
      SWARM,
      TAGS,
      { label: "image", path: "config.image.params.image" },
      { label: "build", path: "config.image.params.build_id", name: "build" },
      ...config("restart", "network", "ports", "volumes", "auto_update", "send_alerts"),
    ],
    more: "config.environment",
  },
  "read/GetBuild": {
    noun: "build",
    columns: [
      NAME,
      ID,
      BUILDER,
      TAGS,
      REPO,
      BRANCH,
      ...config("version", "image_name", "image_tag"),
      ...info("last_built_at", "built_hash", "latest_hash"),
    ],
    more: "config.build_args",
  },
  "read/GetServer": {
    noun: "server",
    columns: [
      NAME,
      ID,
      TAGS,
      ...config("address", "external_address", "region", "enabled", "stats_monitoring", "auto_prune"),
      { label: "maintenance", path: "config.maintenance_windows.name" },
    ],
    more: "config.cpu_warning",
  },
  "read/GetProcedure": {
    noun: "procedure",
    columns: [NAME, ID, TAGS, { label: "stages", path: "config.stages.name" }, ...SCHEDULE],
    more: "config.stages.executions",
  },
  "read/GetAction": {
    noun: "action",
    columns: [NAME, ID, TAGS, ...SCHEDULE, ...config("run_at_startup")],
    more: "config.file_contents",
  },
  "read/GetAlerter": {
    noun: "alerter",
    columns: [
      NAME,
      ID,
      TAGS,
      ...config("enabled"),
      { label: "endpoint", path: "config.endpoint.type" },
      ...config("alert_types"),
    ],
    more: "config.resources",
  },
  "read/GetRepo": {
    noun: "repo",
    columns: [
      NAME,
      ID,
      SERVER,
      BUILDER,
      TAGS,
      REPO,
      BRANCH,
      ...config("path"),
      ...info("latest_hash", "last_pulled_at", "built_hash", "last_built_at"),
    ],
    more: "info.latest_message",
  },
  "read/GetBuilder": {
    noun: "builder",
    columns: [
      NAME,
      ID,
      TAGS,
      { label: "type", path: "config.type" },
      { label: "servers", path: "config.params.server_ids", name: "server" },
      { label: "address", path: "config.params.address" },
      { label: "region", path: "config.params.region" },
      { label: "instance_type", path: "config.params.instance_type" },
    ],
    more: "config.params",
  },
  "read/GetSwarm": {
    noun: "swarm",
    columns: [NAME, ID, TAGS, { label: "servers", path: "config.server_ids", name: "server" }],
    more: "config.maintenance_windows",
  },
  "read/GetUserGroup": {
    noun: "user group",
    columns: [NAME, ID, { label: "users", path: "users" }, { label: "everyone", path: "everyone" }],
    more: "all",
  },

  // With SVC_REACH=all: an alert as its list's row shows it, its text one field away; a user.
  "read/GetAlert": { noun: "alert", columns: PROJECTIONS["read/ListAlerts"]?.columns ?? [], more: "data" },
  "read/FindUser": {
    noun: "user",
    columns: [
      { label: "username", path: "username" },
      ID,
      { label: "type", path: "config.type" },
      { label: "enabled", path: "enabled" },
      { label: "admin", path: "admin" },
      { label: "super_admin", path: "super_admin" },
      { label: "create_servers", path: "create_server_permissions" },
      { label: "create_builds", path: "create_build_permissions" },
    ],
    more: "all",
  },

  "read/InspectContainer": CONTAINER,
  "read/InspectDeploymentContainer": CONTAINER,
  "read/InspectStackContainer": CONTAINER,
  "read/InspectImage": {
    noun: "image",
    columns: [
      { label: "tags", path: "RepoTags" },
      { label: "id", path: "Id" },
      { label: "created", path: "Created" },
      { label: "size", path: "Size" },
      { label: "os", path: "Os" },
      { label: "architecture", path: "Architecture" },
    ],
    more: "RootFS",
  },
  "read/InspectNetwork": {
    noun: "network",
    columns: [
      { label: "name", path: "Name" },
      { label: "id", path: "Id" },
      { label: "driver", path: "Driver" },
      { label: "scope", path: "Scope" },
      { label: "internal", path: "Internal" },
      { label: "subnet", path: "IPAM.Config.Subnet" },
      { label: "containers", path: "Containers.Name" },
    ],
    more: "Options",
  },
  "read/InspectSwarmService": SWARM_SERVICE,
  "read/InspectDeploymentSwarmService": SWARM_SERVICE,
  "read/InspectStackSwarmService": SWARM_SERVICE,
  "read/InspectSwarm": {
    noun: "swarm",
    columns: [
      { label: "name", path: "Spec.Name" },
      { label: "id", path: "ID" },
      { label: "created", path: "CreatedAt" },
      { label: "updated", path: "UpdatedAt" },
      { label: "root_rotation", path: "RootRotationInProgress" },
    ],
    more: "Spec",
  },
  "read/InspectSwarmStack": {
    noun: "stack",
    columns: [
      { label: "name", path: "Name" },
      { label: "state", path: "State" },
      { label: "services", path: "Services.Name" },
      { label: "tasks", path: "Tasks.State" },
    ],
    more: "Tasks",
  },
  "read/InspectSwarmNode": {
    noun: "node",
    columns: [
      { label: "hostname", path: "Description.Hostname" },
      { label: "id", path: "ID" },
      { label: "role", path: "Spec.Role" },
      { label: "availability", path: "Spec.Availability" },
      { label: "state", path: "Status.State" },
      { label: "address", path: "Status.Addr" },
      { label: "leader", path: "ManagerStatus.Leader" },
      { label: "engine", path: "Description.Engine.EngineVersion" },
    ],
    more: "Description.Resources",
  },
  "read/InspectSwarmTask": {
    noun: "task",
    columns: [
      { label: "id", path: "ID" },
      { label: "service", path: "ServiceID" },
      { label: "node", path: "NodeID" },
      { label: "slot", path: "Slot" },
      { label: "state", path: "Status.State" },
      { label: "desired", path: "DesiredState" },
      { label: "exit_code", path: "Status.ContainerStatus.ExitCode" },
      { label: "updated_at", path: "UpdatedAt" },
    ],
    more: "Spec",
  },
}
