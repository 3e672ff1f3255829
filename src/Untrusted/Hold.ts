/**
 * Which changes the guard (SVC_GUARD) holds after a caller read untrusted
 * text: what loses data or availability, changes what runs next time, runs
 * code, touches credentials and permissions, or writes free text that a later
 * reader would take as the team's own (a description, a tag's name). What only
 * runs again what is already configured is let through (and its audit line
 * says it was guarded).
 *
 * Data, beside the guard that reads it (Guard.ts): a rule names endpoints by the
 * service's own names (`*` any run), the first rule of a tool that matches
 * decides, and every selector of every changing tool is decided by one
 * (test/unit/Untrusted/Hold.test.ts holds that). docs/untrusted-text.md lists the outcome.
 */
import { wildcard } from "../Shared/Wildcard.js"

/** Why a change is held, or why it is not: the words the refusal and the docs use. */
export type Reason =
  | "loses data"
  | "loses availability"
  | "changes what runs next time"
  | "runs code"
  | "touches credentials or permissions"
  | "sends data out"
  | "runs again what is configured"
  | "changes only a label"
  | "writes text others will read"

export interface Rule {
  /** Endpoint names, as the service's definitions give them; `*` matches any run. */
  readonly endpoints: ReadonlyArray<string>
  readonly held: boolean
  readonly reason: Reason
}

/** The rules of each changing tool, first match wins. */
const RULES: Readonly<Record<string, ReadonlyArray<Rule>>> = {
  svc_delete: [
    // SVC_REACH=all: a user, a service user's API key, a server's onboarding key.
    {
      endpoints: ["DeleteUser", "DeleteApiKeyForServiceUser", "DeleteOnboardingKey"],
      held: true,
      reason: "touches credentials or permissions",
    },
    { endpoints: ["Delete*", "BatchDelete*"], held: true, reason: "loses data" },
  ],
  svc_rename: [{ endpoints: ["Rename*"], held: true, reason: "changes what runs next time" }],
  svc_update: [
    // SVC_REACH=all: free text that the next reader takes as the team's own words: a resource's
    // description and tags (a name no tag has is made a tag), the descriptions of a variable and
    // a service user. Written after untrusted text, it would carry that text into a field a later
    // conversation reads (Fields.ts reads these fields as untrusted too).
    {
      endpoints: ["UpdateResourceMeta", "UpdateVariableDescription", "UpdateServiceUserDescription"],
      held: true,
      reason: "writes text others will read",
    },
    // A tag's colour, and what the service's web page last showed its user.
    {
      endpoints: ["UpdateTagColor", "SetLastSeenUpdate", "PushRecentlyViewed"],
      held: false,
      reason: "changes only a label",
    },
    // SVC_REACH=all: who belongs to a group, a user's rights, a server's key, a secret made plain.
    {
      endpoints: [
        "AddUserToUserGroup",
        "RemoveUserFromUserGroup",
        "SetUsersInUserGroup",
        "SetEveryoneUserGroup",
        "UpdateUserAdmin",
        "UpdateUserBasePermissions",
        "UpdatePermissionOn*",
        "UpdateServerPublicKey",
        "UpdateOnboardingKey",
        "UpdateVariableIsSecret",
      ],
      held: true,
      reason: "touches credentials or permissions",
    },
    // SVC_REACH=all: a stack's compose file, a build's Dockerfile, a sync's resource file.
    { endpoints: ["Write*FileContents"], held: true, reason: "changes what runs next time" },
    { endpoints: ["UpdateVariableValue"], held: true, reason: "touches credentials or permissions" },
    {
      endpoints: ["UpdateGitProviderAccount", "UpdateImageRegistryAccount", "UpdateUserGroup"],
      held: true,
      reason: "touches credentials or permissions",
    },
    { endpoints: ["Update*"], held: true, reason: "changes what runs next time" },
  ],
  svc_create: [
    // A tag's name is free text every list of tags shows.
    { endpoints: ["CreateTag"], held: true, reason: "writes text others will read" },
    {
      endpoints: [
        "CreateVariable",
        "CreateGitProviderAccount",
        "CreateImageRegistryAccount",
        "CreateUserGroup",
        // SVC_REACH=all.
        "CreateLocalUser",
        "CreateServiceUser",
        "CreateApiKeyForServiceUser",
        "CreateOnboardingKey",
      ],
      held: true,
      reason: "touches credentials or permissions",
    },
    // A terminal (SVC_REACH=all) is a shell on a server or in a container.
    { endpoints: ["CreateProcedure", "CreateAction", "CreateTerminal"], held: true, reason: "runs code" },
    { endpoints: ["CreateAlerter"], held: true, reason: "sends data out" },
    { endpoints: ["Create*"], held: true, reason: "changes what runs next time" },
  ],
  // A copy carries the configuration it copies: deploying it runs what already runs.
  svc_copy: [{ endpoints: ["Copy*"], held: false, reason: "runs again what is configured" }],
  svc_execute: [
    {
      endpoints: [
        "Deploy",
        "DeployStack",
        "DeployStackIfChanged",
        "BatchDeploy",
        "BatchDeployStack",
        "BatchDeployStackIfChanged",
        "Pull*",
        "BatchPull*",
        "CloneRepo",
        "BatchCloneRepo",
        "RunBuild",
        "BatchRunBuild",
        "BuildRepo",
        "BatchBuildRepo",
        "Start*",
        "Restart*",
        "Unpause*",
        "RunServerRefreshContainers",
        "BackupCoreDatabase",
        "TestAlerter",
        // SVC_REACH=all: a check for a newer image (its auto update is the resource's own
        // configuration), and a cache or a sync's pending changes read anew.
        "CheckStackForUpdate",
        "CheckDeploymentForUpdate",
        "BatchCheckStackForUpdate",
        "BatchCheckDeploymentForUpdate",
        "Refresh*",
      ],
      held: false,
      reason: "runs again what is configured",
    },
    // SVC_REACH=all: an alert marked resolved.
    { endpoints: ["CloseAlert"], held: false, reason: "changes only a label" },
    // SVC_REACH=all: the resources written into a sync's file, committed to its repository.
    { endpoints: ["CommitSync"], held: true, reason: "changes what runs next time" },
    {
      endpoints: ["Destroy*", "BatchDestroy*", "Prune*", "Delete*", "Remove*", "ClearRepoCache"],
      held: true,
      reason: "loses data",
    },
    { endpoints: ["Stop*", "Pause*", "Cancel*"], held: true, reason: "loses availability" },
    {
      endpoints: [
        "RunProcedure",
        "RunAction",
        "RunSync",
        "BatchRunProcedure",
        "BatchRunAction",
        "RunStackService",
        "RunServer*",
        "GlobalAutoUpdate",
      ],
      held: true,
      reason: "runs code",
    },
    {
      endpoints: ["Rotate*", "CreateSwarmSecret", "CreateSwarmConfig", "UpdateSwarmNode"],
      held: true,
      reason: "touches credentials or permissions",
    },
    { endpoints: ["SendAlert"], held: true, reason: "sends data out" },
  ],
}

const compiled = Object.fromEntries(
  Object.entries(RULES).map(([tool, rules]) => [
    tool,
    rules.map((rule) => ({ rule, tests: rule.endpoints.map(wildcard) })),
  ]),
)

/** The rule that decides a change of `tool` to `endpoint`; undefined for a tool that changes nothing. */
export const ruleOf = (tool: string, endpoint: string): Rule | undefined =>
  compiled[tool]?.find(({ tests }) => tests.some((test) => test.test(endpoint)))?.rule
