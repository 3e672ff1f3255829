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
  /** The `resource_type` an Update's target says, e.g. `Stack`, `ResourceSync`. */
  readonly target: string
  /** `info.state` of a new resource; absent for types without a state. */
  readonly initialState?: string
  /** The states a summary counts, with the summary field each one adds to. */
  readonly summary?: Readonly<Record<string, string>>
}

export const kinds: Readonly<Record<Kind, KindSpec>> = {
  stack: {
    key: "stack",
    target: "Stack",
    initialState: "down",
    summary: { running: "running", stopped: "stopped", paused: "stopped", down: "down", unhealthy: "unhealthy" },
  },
  deployment: {
    key: "deployment",
    target: "Deployment",
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
    initialState: "Ok",
    summary: { Ok: "ok", Failed: "failed", Building: "building" },
  },
  server: {
    key: "server",
    target: "Server",
    initialState: "Ok",
    summary: { Ok: "healthy", NotOk: "unhealthy", Disabled: "disabled" },
  },
  procedure: {
    key: "procedure",
    target: "Procedure",
    initialState: "Ok",
    summary: { Ok: "ok", Running: "running", Failed: "failed" },
  },
  action: {
    key: "action",
    target: "Action",
    initialState: "Ok",
    summary: { Ok: "ok", Running: "running", Failed: "failed" },
  },
  repo: {
    key: "repo",
    target: "Repo",
    initialState: "Ok",
    summary: { Ok: "ok", Cloning: "cloning", Pulling: "pulling", Building: "building", Failed: "failed" },
  },
  builder: { key: "builder", target: "Builder", initialState: "Ok", summary: { Ok: "ok" } },
  alerter: { key: "alerter", target: "Alerter", initialState: "Ok", summary: { Ok: "enabled" } },
  swarm: {
    key: "swarm",
    target: "Swarm",
    initialState: "Healthy",
    summary: { Healthy: "healthy", Unhealthy: "unhealthy" },
  },
  sync_resource: {
    key: "sync",
    target: "ResourceSync",
    initialState: "Ok",
    summary: { Ok: "ok", Syncing: "syncing", Pending: "pending", Failed: "failed" },
  },
  variable: { key: "name", target: "Variable" },
  tag: { key: "tag", target: "Tag" },
  user_group: { key: "user_group", target: "UserGroup" },
  git_provider_account: { key: "id", target: "GitProviderAccount" },
  image_registry_account: { key: "id", target: "ImageRegistryAccount" },
}

export const isKind = (value: string): value is Kind => Object.hasOwn(kinds, value)
