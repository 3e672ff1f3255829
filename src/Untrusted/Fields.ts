/**
 * Which text in the service's answers comes from outside the team's own
 * configuration, as data: each rule names a definition of the service's
 * published definitions (spec/service-api.schema.json) and the fields of it
 * whose text anyone who can write a log line, push a commit, label an image or
 * edit a synced file can influence. Every string at or below such a field is
 * untrusted. docs/untrusted-text.md explains each choice.
 *
 * `Paths.ts` holds what these rules give per endpoint (derived from the
 * definitions by `Derive.ts`; a test holds the two together).
 */

export interface Rule {
  /** The definition's name in the service's definitions. */
  readonly definition: string
  readonly fields: ReadonlyArray<string>
}

/** The resources' records, as the definitions name them: each has a `description` its writers set. */
const RESOURCES = [
  "Resource<ActionConfig,NoData>",
  "Resource<AlerterConfig,undefined>",
  "Resource<BuildConfig,BuildInfo>",
  "Resource<BuilderConfig,undefined>",
  "Resource<DeploymentConfig,DeploymentInfo>",
  "Resource<ProcedureConfig,undefined>",
  "Resource<RepoConfig,RepoInfo>",
  "Resource<ResourceSyncConfig,ResourceSyncInfo>",
  "Resource<ServerConfig,ServerInfo>",
  "Resource<StackConfig,StackInfo>",
  "Resource<SwarmConfig,SwarmInfo>",
]

/**
 * Free text anyone with write access on a resource may write, that a later conversation would
 * take as the team's own words (the guard holds these writes in the window: Hold.ts). Derived
 * from the definitions: the string fields that UpdateResourceMeta (`description`) and
 * UpdateVariableDescription write, as the answers carry them, and a compose file's service names
 * (WriteStackFileContents), as ListStackServices answers them. A list at a glance whose column
 * reads one is shown as its records, fenced (Render.ts). Tag names are left out: every list at a
 * glance names its records' tags (Names.ts), so a tag's name is guarded where it is written
 * (CreateTag, UpdateResourceMeta, RenameTag: Hold.ts).
 */
export const WRITTEN: ReadonlyArray<Rule> = [
  ...RESOURCES.map((definition) => ({ definition, fields: ["description"] })),
  { definition: "Variable", fields: ["description"] },
  { definition: "StackService", fields: ["service"] },
]

export const RULES: ReadonlyArray<Rule> = [
  // Log: what a process wrote, and the command line it ran (a deploy's, a build's, a container's).
  { definition: "Log", fields: ["stdout", "stderr", "command"] },
  // Docker objects as inspected: set by whoever built the image or started the container.
  {
    definition: "ContainerConfig",
    fields: ["Labels", "Env", "Cmd", "Entrypoint"],
  },
  {
    definition: "ImageConfig",
    fields: ["Labels", "Env", "Cmd", "Entrypoint"],
  },
  { definition: "Container", fields: ["Args", "Path"] },
  { definition: "ContainerListItem", fields: ["labels"] },
  { definition: "Image", fields: ["Comment", "Author"] },
  { definition: "ImageHistoryResponseItem", fields: ["Comment", "CreatedBy"] },
  { definition: "HealthcheckResult", fields: ["Output"] },
  {
    definition: "TaskSpecContainerSpec",
    fields: ["Labels", "Env", "Args", "Command"],
  },
  { definition: "TaskStatus", fields: ["Err", "Message"] },
  { definition: "SwarmTask", fields: ["Labels"] },
  { definition: "Network", fields: ["Labels"] },
  { definition: "Volume", fields: ["Labels"] },
  // Git: commit messages and file contents, written by anyone who can push to the repository.
  { definition: "RepoInfo", fields: ["latest_message", "built_message"] },
  { definition: "RepoListItemInfo", fields: ["cloned_message"] },
  {
    definition: "BuildInfo",
    fields: ["latest_message", "built_message", "built_contents", "remote_contents", "remote_error"],
  },
  {
    definition: "StackInfo",
    fields: ["latest_message", "deployed_message", "deployed_contents", "remote_contents", "remote_errors"],
  },
  // A sync's files and its commit messages: read from the repository.
  {
    definition: "ResourceSyncInfo",
    fields: ["last_sync_message", "pending_message", "pending_error", "remote_contents", "remote_errors"],
  },
  // What a pending change would write, read from the sync's files: the TOML texts and a new resource's
  // name. Its kind (Create, Update, Delete) and its target (a type and the id of one of the service's
  // resources) are the service's own.
  { definition: "DiffData", fields: ["data"] },
  { definition: "ResourceSyncListItemInfo", fields: ["last_sync_message"] },
  // SVC_REACH=all. An alert's data: the names, errors and messages the infrastructure reported.
  { definition: "Alert", fields: ["data"] },
  // Resources exported as TOML: their configurations, synced files' included.
  { definition: "TomlResponse", fields: ["toml"] },
  // Free text the service's own writers set (above).
  ...WRITTEN,
]

const byDefinition = new Map(RULES.map((rule) => [rule.definition, rule]))

/** The rule for `definition`'s `field`, if that field is untrusted. */
export const ruleOf = (definition: string, field: string): Rule | undefined => {
  const rule = byDefinition.get(definition)
  return rule?.fields.includes(field) === true ? rule : undefined
}
