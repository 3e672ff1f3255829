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
  /** What reading it is, for the guard's question: "this follows reading the logs of stack web". */
  readonly noun: string
}

export const RULES: ReadonlyArray<Rule> = [
  // Log: what a process wrote, and the command line it ran (a deploy's, a build's, a container's).
  { definition: "Log", fields: ["stdout", "stderr", "command"], noun: "the logs" },
  // Docker objects as inspected: set by whoever built the image or started the container.
  {
    definition: "ContainerConfig",
    fields: ["Labels", "Env", "Cmd", "Entrypoint"],
    noun: "the container's labels, environment and command",
  },
  {
    definition: "ImageConfig",
    fields: ["Labels", "Env", "Cmd", "Entrypoint"],
    noun: "the image's labels, environment and command",
  },
  { definition: "Container", fields: ["Args", "Path"], noun: "the container's command" },
  { definition: "ContainerListItem", fields: ["labels"], noun: "the containers' labels" },
  { definition: "Image", fields: ["Comment", "Author"], noun: "the image's metadata" },
  { definition: "ImageHistoryResponseItem", fields: ["Comment", "CreatedBy"], noun: "the image's history" },
  { definition: "HealthcheckResult", fields: ["Output"], noun: "the container's health check output" },
  {
    definition: "TaskSpecContainerSpec",
    fields: ["Labels", "Env", "Args", "Command"],
    noun: "the service's labels, environment and command",
  },
  { definition: "TaskStatus", fields: ["Err", "Message"], noun: "the task's status messages" },
  { definition: "SwarmTask", fields: ["Labels"], noun: "the task's labels" },
  { definition: "Network", fields: ["Labels"], noun: "the network's labels" },
  { definition: "Volume", fields: ["Labels"], noun: "the volume's labels" },
  // Git: commit messages and file contents, written by anyone who can push to the repository.
  { definition: "RepoInfo", fields: ["latest_message", "built_message"], noun: "the commit messages" },
  { definition: "RepoListItemInfo", fields: ["cloned_message"], noun: "the commit messages" },
  {
    definition: "BuildInfo",
    fields: ["latest_message", "built_message", "built_contents", "remote_contents", "remote_error"],
    noun: "the build's commit messages and files",
  },
  {
    definition: "StackInfo",
    fields: ["latest_message", "deployed_message", "deployed_contents", "remote_contents", "remote_errors"],
    noun: "the stack's commit messages and files",
  },
  // A sync's files and its commit messages: read from the repository.
  {
    definition: "ResourceSyncInfo",
    fields: ["last_sync_message", "pending_message", "pending_error", "remote_contents", "remote_errors"],
    noun: "the sync's files and pending changes",
  },
  // What a pending change would write, read from the sync's files: the TOML texts and a new resource's
  // name. Its kind (Create, Update, Delete) and its target (a type and the id of one of the service's
  // resources) are the service's own.
  { definition: "DiffData", fields: ["data"], noun: "the sync's files and pending changes" },
  { definition: "ResourceSyncListItemInfo", fields: ["last_sync_message"], noun: "the sync's commit messages" },
  // SVC_REACH=all. An alert's data: the names, errors and messages the infrastructure reported.
  { definition: "Alert", fields: ["data"], noun: "the alerts' text" },
  // Resources exported as TOML: their configurations, synced files' included.
  { definition: "TomlResponse", fields: ["toml"], noun: "the exported TOML" },
]

const byDefinition = new Map(RULES.map((rule) => [rule.definition, rule]))

/** The rule for `definition`'s `field`, if that field is untrusted. */
export const ruleOf = (definition: string, field: string): Rule | undefined => {
  const rule = byDefinition.get(definition)
  return rule?.fields.includes(field) === true ? rule : undefined
}
