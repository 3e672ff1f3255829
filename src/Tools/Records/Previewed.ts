/**
 * What a confirmation's question (SVC_CONFIRM, the guard) shows of a call before asking, by the
 * endpoint the call calls: the one table saying which endpoints a question previews, each in the
 * words `schema: true` says as `preview` (SchemaHelp.ts, through ReadsBeside.ts). What each preview
 * reads is the confirmation's: Confirmation/Previews.ts holds a plan for exactly these keys, typed
 * over `PreviewedEndpoint`, so that a preview without words or words without a preview is a type
 * error. An endpoint not here previews nothing: its question says what the call sends, and why.
 */

const READ = "read just before asking"
const PRUNED = `each with its size, the total, and how many are kept in use, ${READ}`
const COMMITS = `the commit deployed now and the repository's latest (or the compose file's hash as deployed and now), ${READ}`

/** An update of a record: its fields now and after (Confirmation/Changes.ts). */
const CHANGES = `each field it changes, its value now (read with the record's get, where it has one; secrets shown as an answer shows them) and after, ${READ}`

/** A delete: the record, and what refers to it (Confirmation/Plan.ts, References.ts). */
const DELETED = `the record it deletes; for a stack, deployment, build, repo, procedure, action, server or sync: the procedures' stages, alerters and syncs that refer to it; for a stack, its services; ${READ}`

/** A batch: what its pattern (and tags) match now, by name (Confirmation/Plan.ts). */
const matched = (what: string) => `the ${what} the pattern (and tags) match now, the first 30 by name, ${READ}`

/** A change of who may do what (Confirmation/AccessPlan.ts). */
const access = (what: string) => `${what}, by name, ${READ}`

/** The updates whose question shows each field they change: one family of keys, in both tables. */
export const UPDATES = [
  "write/UpdateStack",
  "write/UpdateBuild",
  "write/UpdateServer",
  "write/UpdateProcedure",
  "write/UpdateDeployment",
  "write/UpdateAlerter",
  "write/UpdateImageRegistryAccount",
  "write/UpdateResourceSync",
  "write/UpdateTagColor",
  "write/UpdateAction",
  "write/UpdateRepo",
  "write/UpdateBuilder",
  "write/UpdateSwarm",
  "write/UpdateVariableValue",
  "write/UpdateUserGroup",
  "write/UpdateGitProviderAccount",
  "write/UpdateVariableDescription",
  "write/UpdateVariableIsSecret",
  "write/UpdateServiceUserDescription",
  "write/UpdateServerPublicKey",
  "write/UpdateOnboardingKey",
  "write/SetLastSeenUpdate",
  "write/PushRecentlyViewed",
] as const

/** The deletes whose question shows the record and what refers to it. */
export const DELETES = [
  "write/DeleteStack",
  "write/DeleteBuild",
  "write/DeleteServer",
  "write/DeleteProcedure",
  "write/DeleteDeployment",
  "write/DeleteAlerter",
  "write/DeleteResourceSync",
  "write/DeleteTag",
  "write/DeleteAction",
  "write/DeleteRepo",
  "write/DeleteBuilder",
  "write/DeleteSwarm",
  "write/DeleteVariable",
  "write/DeleteUserGroup",
  "write/DeleteGitProviderAccount",
  "write/DeleteUser",
  "write/DeleteImageRegistryAccount",
  "write/DeleteTerminal",
  "write/DeleteAllTerminals",
  "write/BatchDeleteAllTerminals",
] as const

/** Each of `endpoints` with the same entry: a family of keys, typed as the keys themselves. */
export const each = <const K extends string, V>(endpoints: ReadonlyArray<K>, value: V): Record<K, V> =>
  Object.fromEntries(endpoints.map((endpoint) => [endpoint, value])) as Record<K, V>

export const PREVIEWED = {
  // svc_update: a record's fields, now and after.
  ...each(UPDATES, CHANGES),
  // SVC_REACH=all's changes of a resource itself (Confirmation/ResourcePlan.ts).
  "write/UpdateResourceMeta": `the resource by name, and its tags (by name, a new one said so), description and template flag now and after, ${READ}`,
  "write/WriteStackFileContents": `the file's lines now and after and what changes, as a diff, each line masked, and where the service writes it, ${READ}`,
  "write/WriteBuildFileContents": `the Dockerfile's lines now and after and what changes, as a diff, each line masked, and where the service writes it, ${READ}`,
  "write/WriteSyncFileContents": `the file's lines now and after and what changes, as a diff, each line masked and each secret variable's value hidden, ${READ}`,
  // SVC_REACH=all's changes of who may do what.
  "write/UpdatePermissionOnTarget": access("who gets which permission on which resource, and what they hold on it now"),
  "write/UpdatePermissionOnResourceType": access(
    "who gets which permission on every resource of the type, and what they hold now",
  ),
  "write/UpdateUserAdmin": access("the user, and whether they are an admin now"),
  "write/UpdateUserBasePermissions": access("the user, and each base permission now and after"),
  "write/AddUserToUserGroup": access("the user and the group, and the group's members now"),
  "write/RemoveUserFromUserGroup": access("the user and the group, and the group's members now"),
  "write/SetUsersInUserGroup": access("the group's members after, and whom that adds and removes"),
  "write/SetEveryoneUserGroup": access("the group, and its members now"),
  "write/CreateApiKeyForServiceUser": access("the key's name and the user it is made for"),
  "write/DeleteApiKeyForServiceUser": access("the API key and the service user who holds it"),
  "write/DeleteOnboardingKey": access("the onboarding key, whether it is enabled, and how many servers joined with it"),
  // svc_delete: the record and what refers to it.
  ...each(DELETES, DELETED),
  // svc_execute: what a prune removes (Confirmation/PrunePlan.ts).
  "execute/PruneImages": `the images it removes, ${PRUNED}`,
  "execute/PruneVolumes": `the volumes it removes, ${PRUNED}`,
  "execute/PruneNetworks": `the networks it removes, ${PRUNED}`,
  "execute/PruneContainers": `the stopped containers it removes, ${PRUNED}`,
  "execute/PruneSystem": `the stopped containers, then the networks, images and volumes no container left uses, ${PRUNED}`,
  // What a deploy changes (Confirmation/DeployPlan.ts).
  "execute/Deploy": `the image the deployment's container runs now and the image its config names, ${READ}`,
  "execute/DeployStack": COMMITS,
  "execute/DeployStackIfChanged": COMMITS,
  // What a batch runs on, and for a batch deploy what each of its first matches changes.
  "execute/BatchDeploy": `the deployments the pattern matches now and, for the first 10, each one's image now and after, ${READ}`,
  "execute/BatchDeployStack": `the stacks the pattern matches now and, for the first 10, each one's commit now and after, ${READ}`,
  "execute/BatchDeployStackIfChanged": `the stacks the pattern matches now and, for the first 10, each one's commit now and after, ${READ}`,
  "execute/BatchDestroyDeployment": matched("deployments"),
  "execute/BatchDestroyStack": matched("stacks"),
  "execute/BatchPullStack": matched("stacks"),
  "execute/BatchRunBuild": matched("builds"),
  "execute/BatchPullRepo": matched("repos"),
  "execute/BatchBuildRepo": matched("repos"),
  "execute/BatchCloneRepo": matched("repos"),
  "execute/BatchRunProcedure": matched("procedures"),
  "execute/BatchRunAction": matched("actions"),
  // What a sync's run applies (Confirmation/Plan.ts).
  "execute/RunSync": `the changes pending as of the sync's last refresh (the first 20, deletes first) and what the call limits the run to, ${READ}`,
} satisfies Readonly<Record<string, string>>

/** An endpoint whose question previews what the call will do. */
export type PreviewedEndpoint = keyof typeof PREVIEWED
