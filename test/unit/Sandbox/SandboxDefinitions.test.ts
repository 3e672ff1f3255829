/**
 * The sandbox against the service's published definitions: every endpoint it serves is
 * called with params valid for the seeded estate, and every answer is validated against
 * the endpoint's answer schema in spec/service-api-all.schema.json.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { document, validators } from "../../support/Definitions.js"
import * as Sandboxes from "../../support/Sandbox.js"
import * as Spec from "../../support/Spec.js"

const { request } = Sandboxes

const root = Path.resolve(Path.dirname(Path.dirname(import.meta.dirname)), "..")
const validator = validators(true)

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

/** The resources with a config, as the service names them: singular, plural, the key of Get*. */
const resources = [
  ["Stack", "Stacks", "stack", "web"],
  ["Build", "Builds", "build", "api-image"],
  ["Server", "Servers", "server", "prod-01"],
  ["Procedure", "Procedures", "procedure", "release"],
  ["Deployment", "Deployments", "deployment", "api"],
  ["Alerter", "Alerters", "alerter", "ops-slack"],
  ["ResourceSync", "ResourceSyncs", "sync", "estate-sync"],
  ["Action", "Actions", "action", "rotate-logs"],
  ["Repo", "Repos", "repo", "infra"],
  ["Builder", "Builders", "builder", "local-builder"],
  ["Swarm", "Swarms", "swarm", "edge-swarm"],
] as const

/** The endpoints without a tool, called on the seeded estate. */
/** A call's params, or how to make them from the answers so far. */
type Params = unknown

const beyondTheTools = (ids: { alert: string; registry: string }): ReadonlyArray<[string, Params]> => [
  ["read/ListAlerts", {}],
  ["read/ListAlerts", { query: { resolved: false, "data.type": "ServerMem" }, page: 0 }],
  ["read/GetAlert", { id: ids.alert }],
  ["read/GetSystemStats", { server: "prod-02" }],
  ["read/GetHistoricalServerStats", { server: "prod-02", granularity: "1-min", page: 1 }],
  ["read/GetSystemInformation", { server: "prod-01" }],
  ["read/GetServerState", { server: "staging-01" }],
  ["read/GetPeripheryInformation", { server: "prod-01" }],
  ["read/GetContainersSummary", {}],
  ["read/GetResourceMatchingContainer", { server: "prod-01", container: "web-web-1" }],
  ["read/GetDeploymentContainer", { deployment: "api" }],
  ["read/GetDeploymentStats", { deployment: "api" }],
  ["read/ListStackServices", { stack: "web" }],
  ["read/GetBuildMonthlyStats", {}],
  ["read/GetStackActionState", { stack: "web" }],
  ["read/GetDeploymentActionState", { deployment: "api" }],
  ["read/GetBuildActionState", { build: "api-image" }],
  ["read/GetRepoActionState", { repo: "infra" }],
  ["read/GetProcedureActionState", { procedure: "release" }],
  ["read/GetActionActionState", { action: "rotate-logs" }],
  ["read/GetResourceSyncActionState", { sync: "estate-sync" }],
  ["read/GetServerActionState", { server: "prod-01" }],
  ["read/GetSwarmActionState", { swarm: "edge-swarm" }],
  ["read/ExportAllResourcesToToml", { include_variables: true }],
  ["read/ExportResourcesToToml", { targets: [{ type: "Stack", id: "web" }] }],
  ["write/UpdateResourceMeta", { target: { type: "Deployment", id: "docs" }, tags: ["canary"], description: "docs" }],
  ["write/PushRecentlyViewed", { resource: { type: "Stack", id: "web" } }],
  ["write/SetLastSeenUpdate", {}],
  ["write/UpdateVariableDescription", { name: "LOG_LEVEL", description: "How much the services log" }],
  ["write/UpdateVariableIsSecret", { name: "LOG_LEVEL", is_secret: false }],
  ["write/CloseAlert", { id: ids.alert }],
  ["write/RenameResourceSync", { id: "estate-sync", name: "estate" }],
  ["write/RenameResourceSync", { id: "estate", name: "estate-sync" }],
  ["write/DeleteImageRegistryAccount", { id: ids.registry }],
  ["read/FindUser", { user: "alice" }],
  ["read/GetUsername", { user_id: "alice" }],
  ["read/GetPermission", { target: { type: "Stack", id: "web" } }],
  ["write/CreateServiceUser", { username: "release-bot", description: "Release automation" }],
  ["write/UpdateServiceUserDescription", { username: "release-bot", description: "Runs the releases" }],
  ["write/CreateApiKeyForServiceUser", { user_id: "release-bot", name: "ci" }],
  [
    "write/DeleteApiKeyForServiceUser",
    (answers: Any) => ({ key: answers["write/CreateApiKeyForServiceUser"]?.key ?? "K-none" }),
  ],
  ["write/CreateLocalUser", { username: "carol", password: "carol-password" }],
  ["write/AddUserToUserGroup", { user_group: "operators", user: "carol" }],
  ["write/RemoveUserFromUserGroup", { user_group: "operators", user: "carol" }],
  ["write/SetUsersInUserGroup", { user_group: "developers", users: ["bob", "carol"] }],
  ["write/SetEveryoneUserGroup", { user_group: "developers", everyone: false }],
  ["write/UpdateUserBasePermissions", { user_id: "carol", create_servers: true }],
  [
    "write/UpdatePermissionOnResourceType",
    { user_target: { type: "User", id: "carol" }, resource_type: "Stack", permission: "Read" },
  ],
  [
    "write/UpdatePermissionOnTarget",
    {
      user_target: { type: "UserGroup", id: "operators" },
      resource_target: { type: "Stack", id: "web" },
      permission: { level: "Execute", specific: ["Logs"] },
    },
  ],
  ["write/UpdateUserAdmin", { user_id: "carol", admin: true }],
  ["write/DeleteUser", { user: "carol" }],
  ["write/CreateNetwork", { server: "prod-01", name: "backend" }],
  ["write/RotateServerKeys", { server: "prod-01" }],
  ["write/UpdateServerPublicKey", { server: "prod-01", public_key: "MCowBQYDK2VuAyEAsandboxkey" }],
  ["write/CreateTerminal", { target: { type: "Server", params: { server: "prod-01" } }, name: "shell" }],
  ["write/CreateTerminal", { target: { type: "Container", params: { server: "prod-01", container: "web-web-1" } } }],
  ["read/ListTerminals", { target: { type: "Server", params: { server: "prod-01" } } }],
  ["write/DeleteTerminal", { target: { type: "Server", params: { server: "prod-01" } }, terminal: "shell" }],
  ["write/DeleteAllTerminals", { server: "prod-01" }],
  ["write/BatchDeleteAllTerminals", { query: {} }],
  ["write/CreateOnboardingKey", { name: "new-servers", tags: ["staging"] }],
  ["write/UpdateOnboardingKey", (answers: Any) => ({ public_key: onboarding(answers), enabled: false })],
  ["write/DeleteOnboardingKey", (answers: Any) => ({ public_key: onboarding(answers) })],
  ["write/WriteStackFileContents", { stack: "web", file_path: "compose.yaml", contents: WEB_COMPOSE }],
  ["write/RefreshStackCache", { stack: "monitoring" }],
  ["write/CheckStackForUpdate", { stack: "monitoring" }],
  ["write/BatchCheckStackForUpdate", { pattern: "*" }],
  ["write/CheckDeploymentForUpdate", { deployment: "api" }],
  ["write/BatchCheckDeploymentForUpdate", { pattern: "*" }],
  [
    "write/WriteBuildFileContents",
    { build: "docs-image", contents: "FROM nginx:1.27\nCOPY site /usr/share/nginx/html\n" },
  ],
  ["write/RefreshBuildCache", { build: "api-image" }],
  ["write/RefreshRepoCache", { repo: "infra" }],
  [
    "write/WriteSyncFileContents",
    {
      sync: "estate-sync",
      resource_path: "resources",
      file_path: "cache.toml",
      contents: '[[stack]]\nname = "cache"\n',
    },
  ],
  ["write/RefreshResourceSyncPending", { sync: "estate-sync" }],
  ["write/UpdateResourceSync", { id: "estate-sync", config: { managed: true } }],
  ["write/CommitSync", { sync: "estate-sync" }],
  ["write/CreateDeploymentFromContainer", { name: "web-redis-1", server: "prod-01" }],
]

const WEB_COMPOSE =
  "services:\n  web:\n    image: nginx:1.27\n  worker:\n    image: acme/worker:2\n  redis:\n    image: redis:7\n"

const onboarding = (answers: Any) => answers["write/CreateOnboardingKey"]?.created?.public_key ?? "none"

/** Every call, in an order that leaves each later one something to act on. */
const calls = (ids: { git: string; registry: string; alert: string; update: () => string }) => {
  const list: Array<[string, unknown]> = []
  const add = (endpoint: string, params: unknown = {}) => list.push([endpoint, params])
  add("read/GetVersion")
  add("read/GetCoreInfo")
  for (const [type, plural, key, seeded] of resources) {
    add(`read/List${plural}`)
    add(`read/List${plural}`, { limit: 1, page: 1, query: { names: [seeded] } })
    add(`read/Get${type}`, { [key]: seeded })
    add(`read/ListFull${plural}`)
    add(`read/Get${plural}Summary`)
  }
  // A stack and a deployment on the swarm, for the swarm inspections.
  add("write/CreateStack", {
    name: "edge",
    config: { swarm: "edge-swarm", file_contents: "services:\n  proxy:\n    image: traefik:v3.2\n" },
  })
  add("write/CreateDeployment", {
    name: "edge-gateway",
    config: { swarm_id: "edge-swarm", image: { type: "Image", params: { image: "traefik:v3.2" } } },
  })
  for (const [endpoint, params] of [
    ["read/ListTags", { query: { name: "production" } }],
    ["read/GetTag", { tag: "production" }],
    ["read/ListVariables", {}],
    ["read/GetVariable", { name: "DB_PASSWORD" }],
    ["read/ListUserGroups", {}],
    ["read/GetUserGroup", { user_group: "operators" }],
    ["read/ListUsers", {}],
    ["read/ListGitProviderAccounts", { domain: "github.com" }],
    ["read/GetGitProviderAccount", { id: ids.git }],
    ["read/ListImageRegistryAccounts", {}],
    ["read/GetImageRegistryAccount", { id: ids.registry }],
    ["read/GetDeploymentLog", { deployment: "api", tail: 10 }],
    ["read/GetStackLog", { stack: "web", services: [] }],
    ["read/GetContainerLog", { server: "prod-01", container: "web-web-1" }],
    ["read/GetSwarmServiceLog", { swarm: "edge-swarm", service: "edge-proxy" }],
    ["read/SearchContainerLog", { server: "prod-01", container: "web-web-1", terms: ["started"] }],
    ["read/SearchDeploymentLog", { deployment: "api", terms: ["serving"] }],
    ["read/SearchStackLog", { stack: "web", services: ["web"], terms: ["healthy"], combinator: "And" }],
    ["read/SearchSwarmServiceLog", { swarm: "edge-swarm", service: "edge-proxy", terms: ["accepted"] }],
    ["read/InspectContainer", { server: "prod-01", container: "web-web-1" }],
    ["read/InspectImage", { server: "prod-01", image: "redis:7-alpine" }],
    ["read/InspectNetwork", { server: "prod-01", network: "bridge" }],
    ["read/InspectVolume", { server: "prod-01", volume: "redis-data" }],
    ["read/InspectDeploymentContainer", { deployment: "api" }],
    ["read/InspectDeploymentSwarmService", { deployment: "edge-gateway" }],
    ["read/InspectStackContainer", { stack: "web", service: "worker" }],
    ["read/InspectStackSwarmInfo", { stack: "edge" }],
    ["read/InspectStackSwarmService", { stack: "edge", service: "proxy" }],
    ["read/InspectSwarm", { swarm: "edge-swarm" }],
    ["read/InspectSwarmConfig", { swarm: "edge-swarm", config: "edge-proxy-config" }],
    ["read/InspectSwarmNode", { swarm: "edge-swarm", node: "prod-01" }],
    ["read/InspectSwarmSecret", { swarm: "edge-swarm", secret: "edge-tls-key" }],
    ["read/InspectSwarmService", { swarm: "edge-swarm", service: "edge-proxy" }],
    ["read/InspectSwarmStack", { swarm: "edge-swarm", stack: "edge" }],
    ["read/InspectSwarmTask", { swarm: "edge-swarm", task: "task1" }],
    ["read/ListContainers", { server: "prod-01" }],
    ["read/ListAllContainers", {}],
    ["read/ListImages", { server: "prod-01" }],
    ["read/ListNetworks", { server: "prod-01" }],
    ["read/ListVolumes", { server: "prod-01" }],
    ["read/ListSystemProcesses", { server: "prod-01" }],
    ["read/ListSchedules", {}],
    ["read/ListPermissions", {}],
    ["read/ListApiKeys", {}],
    ["read/ListApiKeysForServiceUser", { user: "admin" }],
    ["read/ListOnboardingKeys", {}],
    ["read/ListSecrets", {}],
    ["read/ListBuildVersions", { build: "api-image" }],
    ["read/ListComposeProjects", { server: "prod-01" }],
    ["read/ListUserTargetPermissions", { user_target: { type: "User", id: "admin" } }],
    ["read/ListSwarmConfigs", { swarm: "edge-swarm" }],
    ["read/ListSwarmNetworks", { swarm: "edge-swarm" }],
    ["read/ListSwarmNodes", { swarm: "edge-swarm" }],
    ["read/ListSwarmSecrets", { swarm: "edge-swarm" }],
    ["read/ListSwarmServices", { swarm: "edge-swarm" }],
    ["read/ListSwarmStacks", { swarm: "edge-swarm" }],
    ["read/ListSwarmTasks", { swarm: "edge-swarm" }],
    ["read/ListGitProvidersFromConfig", {}],
    ["read/ListImageRegistriesFromConfig", {}],
    ["read/ListCommonBuildExtraArgs", {}],
    ["read/ListCommonDeploymentExtraArgs", {}],
    ["read/ListCommonStackBuildExtraArgs", {}],
    ["read/ListCommonStackExtraArgs", {}],
    ["read/ListImageHistory", { server: "prod-01", image: "redis:7-alpine" }],
    ["read/ListAllStackServices", {}],
  ] as const) {
    add(endpoint, params)
  }
  // Writes: each type's life, on resources of its own.
  for (const [type, , key] of resources) {
    add(`write/Create${type}`, { name: `new-${key}` })
    // A builder's config is an enum tagged by `type`, so even a partial one names it.
    const config =
      type === "Builder"
        ? { type: "Server", params: { server_ids: [] } }
        : type === "Stack" || type === "Deployment"
          ? { send_alerts: true, unknown_field: 1 }
          : {}
    add(`write/Update${type}`, { id: `new-${key}`, config, unknown_param: "ignored" })
    add(`write/Copy${type}`, { name: `copy-${key}`, id: `new-${key}` })
    // sync_resource has no rename among the endpoints.
    const last = type === "ResourceSync" ? `copy-${key}` : `renamed-${key}`
    if (type !== "ResourceSync") add(`write/Rename${type}`, { id: `copy-${key}`, name: last })
    add(`write/Delete${type}`, { id: last })
  }
  for (const [endpoint, params] of [
    ["write/CreateTag", { name: "edge", color: "Teal" }],
    ["write/UpdateTagColor", { tag: "edge", color: "LightBlue" }],
    ["write/RenameTag", { id: "edge", name: "edge-2" }],
    ["write/DeleteTag", { id: "edge-2" }],
    ["write/CreateVariable", { name: "REGION", value: "eu", description: "where", is_secret: false }],
    ["write/UpdateVariableValue", { name: "REGION", value: "us" }],
    ["write/DeleteVariable", { name: "REGION" }],
    ["write/CreateUserGroup", { name: "sre" }],
    ["write/UpdateUserGroup", { user_group: "sre", everyone: true }],
    ["write/RenameUserGroup", { id: "sre", name: "site-reliability" }],
    ["write/DeleteUserGroup", { id: "site-reliability" }],
    ["write/CreateGitProviderAccount", { account: { domain: "gitlab.com", username: "ci", https: true } }],
    ["write/UpdateGitProviderAccount", { id: ids.git, account: { https: false } }],
    ["write/CreateImageRegistryAccount", { account: { domain: "docker.io", username: "ci" } }],
    ["write/UpdateImageRegistryAccount", { id: ids.registry, account: { username: "acme-ci" } }],
    ["write/DeleteGitProviderAccount", { id: ids.git }],
  ] as const) {
    add(endpoint, params)
  }
  for (const [endpoint, params] of beyondTheTools(ids)) add(endpoint, params)
  const executions: Array<[string, unknown]> = [
    ["RunBuild", { build: "api-image" }],
    ["DeployStack", { stack: "web", services: ["worker"] }],
    ["RunStackService", { stack: "web", service: "worker", command: ["echo", "hi"] }],
    ["Deploy", { deployment: "api" }],
    ["DeployStackIfChanged", { stack: "web" }],
    ["DeployStackIfChanged", { stack: "staging-web" }],
    ["PullStack", { stack: "web" }],
    ["PullDeployment", { deployment: "api" }],
    ["BuildRepo", { repo: "api-source" }],
    ["CloneRepo", { repo: "infra" }],
    ["PullRepo", { repo: "infra" }],
    ["CancelRepoBuild", { repo: "api-source" }],
    ["ClearRepoCache", {}],
    ["RunProcedure", { procedure: "nightly-backup" }],
    ["RunAction", { action: "rotate-logs" }],
    ["RunSync", { sync: "estate-sync" }],
    ["CancelAction", { action: "rotate-logs" }],
    ["CancelBuild", { build: "api-image" }],
    ["CancelProcedure", { procedure: "release" }],
    ["StartStack", { stack: "monitoring" }],
    ["StopStack", { stack: "monitoring" }],
    ["RestartStack", { stack: "monitoring" }],
    ["PauseStack", { stack: "monitoring" }],
    ["UnpauseStack", { stack: "monitoring" }],
    ["StartContainer", { server: "prod-01", container: "web-worker-1" }],
    ["StopContainer", { server: "prod-01", container: "web-worker-1" }],
    ["RestartContainer", { server: "prod-01", container: "web-worker-1" }],
    ["PauseContainer", { server: "prod-01", container: "web-worker-1" }],
    ["UnpauseContainer", { server: "prod-01", container: "web-worker-1" }],
    ["StartAllContainers", { server: "prod-02" }],
    ["StopAllContainers", { server: "prod-02" }],
    ["RestartAllContainers", { server: "prod-02" }],
    ["PauseAllContainers", { server: "prod-02" }],
    ["UnpauseAllContainers", { server: "prod-02" }],
    ["StartDeployment", { deployment: "docs" }],
    ["StopDeployment", { deployment: "docs" }],
    ["RestartDeployment", { deployment: "docs" }],
    ["PauseDeployment", { deployment: "docs" }],
    ["UnpauseDeployment", { deployment: "docs" }],
    ["PruneImages", { server: "prod-01" }],
    ["PruneContainers", { server: "prod-01" }],
    ["PruneNetworks", { server: "prod-01" }],
    ["RotateAllServerKeys", {}],
    ["PruneBuildx", { server: "prod-01" }],
    ["PruneDockerBuilders", { server: "prod-01" }],
    ["PruneSystem", { server: "prod-01" }],
    ["PruneVolumes", { server: "prod-01" }],
    ["DeleteImage", { server: "prod-01", name: "nginx:1.27" }],
    ["DeleteNetwork", { server: "prod-01", name: "host" }],
    ["DeleteVolume", { server: "prod-01", name: "redis-data" }],
    ["RemoveSwarmNodes", { swarm: "edge-swarm", nodes: ["prod-02"] }],
    ["RemoveSwarmServices", { swarm: "edge-swarm", services: ["edge-proxy"] }],
    ["RemoveSwarmConfigs", { swarm: "edge-swarm", configs: ["edge-proxy-config"] }],
    ["RemoveSwarmSecrets", { swarm: "edge-swarm", secrets: ["edge-tls-key"] }],
    ["RemoveSwarmStacks", { swarm: "edge-swarm", stacks: ["edge"] }],
    ["CreateSwarmConfig", { swarm: "edge-swarm", name: "c2", data: "x" }],
    ["CreateSwarmSecret", { swarm: "edge-swarm", name: "s2", data: "x" }],
    ["RotateSwarmConfig", { swarm: "edge-swarm", config: "c2", data: "y" }],
    ["RotateSwarmSecret", { swarm: "edge-swarm", secret: "s2", data: "y" }],
    ["UpdateSwarmNode", { swarm: "edge-swarm", node: "prod-01", availability: "drain" }],
    ["BatchRunBuild", { pattern: "*-image" }],
    ["BatchDeployStack", { pattern: "*web" }],
    ["BatchDeployStackIfChanged", { pattern: "web,monitoring" }],
    ["BatchDeploy", { pattern: "api" }],
    ["BatchPullStack", { pattern: "*" }],
    ["BatchPullRepo", { pattern: "infra" }],
    ["BatchBuildRepo", { pattern: "api-source" }],
    ["BatchCloneRepo", { pattern: "\\^infra$\\" }],
    ["BatchRunProcedure", { pattern: "nightly-backup" }],
    ["BatchRunAction", { pattern: "rotate-logs" }],
    ["BatchDestroyDeployment", { pattern: "legacy-cron" }],
    ["BatchDestroyStack", { pattern: "staging-web" }],
    ["BackupCoreDatabase", {}],
    ["RotateCoreKeys", {}],
    ["GlobalAutoUpdate", {}],
    ["SendAlert", { message: "hello" }],
    ["TestAlerter", { alerter: "ops-slack" }],
    ["DestroyContainer", { server: "prod-01", container: "web-redis-1" }],
    ["DestroyStack", { stack: "monitoring" }],
    ["DestroyDeployment", { deployment: "docs" }],
  ]
  for (const [endpoint, params] of executions) add(`execute/${endpoint}`, params)
  add("read/ListUpdates", {})
  add("read/ListUpdates", { page: 1 })
  list.push(["read/GetUpdate", { id: ids.update }])
  // Last, the 2.3.3 executions that the (2.3.2) definitions have no request, answer or Operation for.
  add("execute/RunServerRefreshContainers", { server: "prod-01" })
  add("execute/RunServerRunCommand", { server: "prod-01", command: "uptime" })
  add("execute/RunServerScripts", { server: "prod-01" })
  add("execute/RunServerCopy", { server: "prod-01" })
  add("execute/RunServerMove", { server: "prod-01" })
  return list
}

describe("the sandbox against the service's definitions", () => {
  it.skipIf(Spec.sharedAbsent)(
    `reads copies of the shared definitions of every endpoint, and of the notes on them, equal byte for byte ${Spec.SKIPPED_WITHOUT_SHARED}`,
    () => {
      for (const file of ["service-api-all.schema.json", "service-notes-all.md"]) {
        const shared = Fs.readFileSync(Path.join(Spec.sharedDir, file))
        expect(Fs.readFileSync(Path.join(root, "spec", file)).equals(shared), file).toBe(true)
      }
    },
  )

  it("reads the definitions of every endpoint", () => {
    expect(Object.keys(document.endpoints)).toHaveLength(341)
  })

  // Each scenario's estate, its bad day included, answers as the definitions say.
  for (const scenario of ["calm", "incident", "drift"] as const) {
    it.scopedLive(
      `answers every endpoint it serves as the definitions say, with params valid for its estate (${scenario})`,
      () =>
        Effect.gen(function* () {
          const sandbox = yield* Sandboxes.scoped({ scenario })
          const headers = { "x-api-key": sandbox.apiKey.key, "x-api-secret": sandbox.apiKey.secret }
          const call = (endpoint: string, params: unknown) =>
            Effect.promise(() => request(sandbox, endpoint, params, headers))
          const git = (yield* call("read/ListGitProviderAccounts", {})).body[0]._id.$oid
          const registry = (yield* call("read/ListImageRegistryAccounts", {})).body[0]._id.$oid
          const alert = (yield* call("read/ListAlerts", {})).body.alerts[0]._id.$oid
          let lastUpdate = ""
          const plan = calls({ git, registry, alert, update: () => lastUpdate })
          // The table covers every endpoint of the service's client, the login among them.
          const covered = new Set([...plan.map(([endpoint]) => endpoint), "auth/login/LoginLocalUser"])
          expect([...covered].sort()).toEqual(Object.keys(document.endpoints).sort())

          const failures: Array<string> = []
          const answers: Record<string, Any> = {}
          for (const [endpoint, params] of plan) {
            const given =
              endpoint === "read/GetUpdate"
                ? { id: lastUpdate }
                : typeof params === "function"
                  ? params(answers)
                  : params
            const { status, body } = yield* call(endpoint, given)
            answers[endpoint] = body
            if (status !== 200) {
              failures.push(`${endpoint} ${JSON.stringify(given)}: ${status} ${JSON.stringify(body)}`)
              continue
            }
            if (typeof body?._id?.$oid === "string" && endpoint.startsWith("execute/")) lastUpdate = body._id.$oid
            const response = document.endpoints[endpoint]?.response
            if (response === null || response === undefined) continue
            const validate = validator(response)
            if (!validate(body)) {
              const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message}`)
              failures.push(`${endpoint}: ${errors.join("; ")}`)
            }
          }
          const login = yield* Effect.promise(() =>
            request(sandbox, "auth/login/LoginLocalUser", { username: "admin", password: "sandbox-password" }, {}),
          )
          if (!validator("JwtOrTwoFactor")(login.body)) failures.push("auth/login/LoginLocalUser")
          expect(failures).toEqual([])
          expect(lastUpdate).toMatch(/^[0-9a-f]{24}$/)
        }),
      // Some 200 answers, each compiled and validated against a 345 kB document: give a loaded machine time.
      60_000,
    )
  }
})

describe("the sandbox's read-only user", () => {
  it.scopedLive(
    "is refused every write and execution of the table, as the service refuses it, and nothing changes",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const admin = { "x-api-key": sandbox.apiKey.key, "x-api-secret": sandbox.apiKey.secret }
        const viewer = { "x-api-key": sandbox.viewer.apiKey.key, "x-api-secret": sandbox.viewer.apiKey.secret }
        const call = (endpoint: string, params: unknown, headers = viewer) =>
          Effect.promise(() => request(sandbox, endpoint, params, headers))
        const git = (yield* call("read/ListGitProviderAccounts", {})).body[0]._id.$oid
        const registry = (yield* call("read/ListImageRegistryAccounts", {})).body[0]._id.$oid
        const alert = (yield* call("read/ListAlerts", {}, admin)).body.alerts[0]._id.$oid
        const snapshot = () =>
          Effect.all(
            [
              "read/ListFullStacks",
              "read/ListFullDeployments",
              "read/ListTags",
              "read/ListVariables",
              "read/ListAlerts",
              "read/ListFullResourceSyncs",
            ].map((e) => Effect.map(call(e, {}, admin), (r) => JSON.stringify(r.body))),
          )
        const before = yield* snapshot()
        const refusal =
          /^(User does not have required permissions on this \w+\. Must have at least (Write|Execute) permissions|This call is (super-)?admin-only|did not find any \w+ matching .+)$/
        const wrong: Array<string> = []
        // The web page's own state is the caller's, which any user may keep.
        const own = new Set(["write/PushRecentlyViewed", "write/SetLastSeenUpdate"])
        for (const [endpoint, params] of calls({ git, registry, alert, update: () => "" })) {
          if (endpoint.startsWith("read/") || own.has(endpoint)) continue
          const { status, body } = yield* call(endpoint, typeof params === "function" ? params({}) : params)
          // A batch leaves out what the caller may not execute: a check finds nothing it may check.
          const refused = endpoint.startsWith("execute/Batch")
            ? status === 200 && body.every((b: Any) => b.status === "Err" && refusal.test(b.data.error.error))
            : endpoint.startsWith("write/BatchCheck")
              ? status === 200 && body.length === 0
              : status === 500 && refusal.test(body.error)
          if (!refused) wrong.push(`${endpoint}: ${status} ${JSON.stringify(body)}`)
        }
        expect(wrong).toEqual([])
        expect(yield* snapshot()).toEqual(before)
        expect(sandbox.world.history.updates).toHaveLength(0)
      }),
  )
})
