/**
 * Which changes the guard (SVC_GUARD) holds after a caller read untrusted
 * text: what loses data or availability, changes what runs next time, runs
 * code, or touches credentials and permissions. What only runs again what is
 * already configured is let through (and its audit line says it was guarded).
 *
 * Data, beside the guard that reads it (Guard.ts): a rule names endpoints by the
 * service's own names (`*` any run), the first rule of a tool that matches
 * decides, and every selector of every changing tool is decided by one
 * (test/unit/Hold.test.ts holds that). docs/untrusted-text.md lists the outcome.
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

export interface Rule {
  /** Endpoint names, as the service's definitions give them; `*` matches any run. */
  readonly endpoints: ReadonlyArray<string>
  readonly held: boolean
  readonly reason: Reason
}

/** The rules of each changing tool, first match wins. */
const RULES: Readonly<Record<string, ReadonlyArray<Rule>>> = {
  svc_delete: [{ endpoints: ["Delete*"], held: true, reason: "loses data" }],
  svc_rename: [{ endpoints: ["Rename*"], held: true, reason: "changes what runs next time" }],
  svc_update: [
    { endpoints: ["UpdateTagColor"], held: false, reason: "changes only a label" },
    { endpoints: ["UpdateVariableValue"], held: true, reason: "touches credentials or permissions" },
    {
      endpoints: ["UpdateGitProviderAccount", "UpdateImageRegistryAccount", "UpdateUserGroup"],
      held: true,
      reason: "touches credentials or permissions",
    },
    { endpoints: ["Update*"], held: true, reason: "changes what runs next time" },
  ],
  svc_create: [
    { endpoints: ["CreateTag"], held: false, reason: "changes only a label" },
    {
      endpoints: ["CreateVariable", "CreateGitProviderAccount", "CreateImageRegistryAccount", "CreateUserGroup"],
      held: true,
      reason: "touches credentials or permissions",
    },
    { endpoints: ["CreateProcedure", "CreateAction"], held: true, reason: "runs code" },
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
      ],
      held: false,
      reason: "runs again what is configured",
    },
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
