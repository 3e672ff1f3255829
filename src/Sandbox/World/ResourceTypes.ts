/**
 * The sandbox's 16 resource types: how each is named in params, which states
 * it reports, and what its summary counts.
 */

export type Kind =
  | "stack"
  | "build"
  | "server"
  | "procedure"
  | "deployment"
  | "alerter"
  | "action"
  | "repo"
  | "builder"
  | "swarm"
  | "variable"
  | "user_group"
  | "git_provider_account"
  | "sync_resource"
  | "image_registry_account"
  | "tag"

export interface KindSpec {
  /** The param that names one resource in Get* (and in executions), e.g. `{stack: "web"}`. */
  readonly key: string
  /** The service's name of the type, in its endpoints (`GetStack`) and in an Update's target. */
  readonly target: string
  /** The plural in its list endpoints (`ListStacks`). */
  readonly plural: string
  /** `info.state` of a new resource; absent for types without a state. */
  readonly initialState?: string
  /** The states a summary counts, with the summary field each one adds to (others count as `unknown`). */
  readonly summary?: Readonly<Record<string, string>>
}

export const kinds: Readonly<Record<Kind, KindSpec>> = {
  stack: {
    key: "stack",
    target: "Stack",
    plural: "Stacks",
    initialState: "down",
    summary: { running: "running", stopped: "stopped", paused: "stopped", down: "down", unhealthy: "unhealthy" },
  },
  deployment: {
    key: "deployment",
    target: "Deployment",
    plural: "Deployments",
    initialState: "not_deployed",
    summary: {
      running: "running",
      exited: "stopped",
      paused: "stopped",
      not_deployed: "not_deployed",
      unhealthy: "unhealthy",
    },
  },
  build: {
    key: "build",
    target: "Build",
    plural: "Builds",
    initialState: "Ok",
    summary: { Ok: "ok", Failed: "failed", Building: "building" },
  },
  server: {
    key: "server",
    target: "Server",
    plural: "Servers",
    initialState: "Ok",
    summary: { Ok: "healthy", NotOk: "unhealthy", Disabled: "disabled" },
  },
  procedure: {
    key: "procedure",
    target: "Procedure",
    plural: "Procedures",
    initialState: "Ok",
    summary: { Ok: "ok", Running: "running", Failed: "failed" },
  },
  action: {
    key: "action",
    target: "Action",
    plural: "Actions",
    initialState: "Ok",
    summary: { Ok: "ok", Running: "running", Failed: "failed" },
  },
  repo: {
    key: "repo",
    target: "Repo",
    plural: "Repos",
    initialState: "Ok",
    summary: { Ok: "ok", Cloning: "cloning", Pulling: "pulling", Building: "building", Failed: "failed" },
  },
  builder: { key: "builder", target: "Builder", plural: "Builders", initialState: "Ok" },
  alerter: { key: "alerter", target: "Alerter", plural: "Alerters", initialState: "Ok" },
  swarm: {
    key: "swarm",
    target: "Swarm",
    plural: "Swarms",
    initialState: "Healthy",
    summary: { Healthy: "healthy", Unhealthy: "unhealthy", Down: "down" },
  },
  sync_resource: {
    key: "sync",
    target: "ResourceSync",
    plural: "ResourceSyncs",
    initialState: "Ok",
    summary: { Ok: "ok", Syncing: "syncing", Pending: "pending", Failed: "failed" },
  },
  variable: { key: "name", target: "Variable", plural: "Variables" },
  tag: { key: "tag", target: "Tag", plural: "Tags" },
  user_group: { key: "user_group", target: "UserGroup", plural: "UserGroups" },
  git_provider_account: { key: "id", target: "GitProviderAccount", plural: "GitProviderAccounts" },
  image_registry_account: { key: "id", target: "ImageRegistryAccount", plural: "ImageRegistryAccounts" },
}

/** The types with a config, an info and a summary: the service's `Resource`s. */
export const resourceKinds = [
  "stack",
  "build",
  "server",
  "procedure",
  "deployment",
  "alerter",
  "sync_resource",
  "action",
  "repo",
  "builder",
  "swarm",
] as const satisfies ReadonlyArray<Kind>

export const isResource = (kind: Kind): boolean => (resourceKinds as ReadonlyArray<Kind>).includes(kind)
