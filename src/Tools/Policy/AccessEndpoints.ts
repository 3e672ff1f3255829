/**
 * The endpoints that change who may do what, and the words that keep them away while
 * SVC_ACCESS_CHANGES (or the mode) says so: all the policy needs to publish the tools, apart from
 * the readers of a sync's files and plans (AccessChanges.ts), which only a call loads.
 */
import * as Option from "effect/Option"
import { accessDenied, type ServerSettingsShape } from "../../Settings/ToolSettings.js"

/**
 * The endpoints that change who may do what, each with what it changes. A server's or the core's
 * keys (RotateServerKeys, UpdateServerPublicKey) are the machines' trust, not a person's rights,
 * and a service user's description grants nothing: they are not here.
 */
export const ACCESS_ENDPOINTS: Readonly<Record<string, string>> = {
  CreateUserGroup: "makes a user group",
  UpdateUserGroup: "changes a user group",
  RenameUserGroup: "renames a user group, which a sync's files match by name",
  DeleteUserGroup: "removes a user group",
  AddUserToUserGroup: "adds a user to a group",
  RemoveUserFromUserGroup: "removes a user from a group",
  SetUsersInUserGroup: "sets a group's members",
  SetEveryoneUserGroup: "gives a group's rights to everyone",
  UpdateUserAdmin: "makes or unmakes an admin",
  UpdateUserBasePermissions: "changes a user's base permissions",
  UpdatePermissionOnTarget: "changes a permission on a resource",
  UpdatePermissionOnResourceType: "changes a permission on a resource type",
  CreateLocalUser: "makes a user",
  CreateServiceUser: "makes a service user",
  DeleteUser: "removes a user",
  CreateApiKeyForServiceUser: "makes an API key",
  DeleteApiKeyForServiceUser: "removes an API key",
  CreateOnboardingKey: "makes an onboarding key",
  UpdateOnboardingKey: "changes an onboarding key",
  DeleteOnboardingKey: "removes an onboarding key",
}

/**
 * Whose call it is, as far as access changes go: `minted` when the signed-in person's calls are
 * sent with a key minted for them, whose grant is the most they may do. For them access changes
 * are kept away whatever the mode and SVC_ACCESS_CHANGES say.
 */
export interface CallerAccess {
  readonly minted?: boolean
}

/**
 * The endpoints refused to a minted person beside ACCESS_ENDPOINTS: those that run what cannot be
 * read first. An action's script runs at the service with the service's own credentials, not the
 * caller's key, and may call any endpoint, those that change who may do what among them.
 */
export const UNREAD_RUNS: Readonly<Record<string, string>> = {
  BatchRunProcedure: "runs every procedure its pattern matches, whose stages may run a sync",
  RunAction: "runs an action's script, which acts with the service's own credentials and may change who may do what",
  BatchRunAction:
    "runs the scripts of every action its pattern matches, which act with the service's own credentials and may change who may do what",
}

/** Whether a minted person is refused `endpoint` (and so does not see it in tools/list). */
export const refusedToMinted = (endpoint: string): boolean =>
  Object.hasOwn(ACCESS_ENDPOINTS, endpoint) || Object.hasOwn(UNREAD_RUNS, endpoint)

/** What a minted person is told, in place of the setting's words. */
export const MINTED_WORDS =
  "this person's calls are sent with a key minted for them, and its grant is the most they may do: none of their calls changes who may do what, whatever the mode and SVC_ACCESS_CHANGES say"

/**
 * Why changes of who may do what are refused, in the words of the setting that decides it; undefined
 * when they are allowed.
 */
export const accessWords = (
  settings: Pick<ServerSettingsShape, "mode"> & Partial<Pick<ServerSettingsShape, "accessChanges">> & CallerAccess,
  variable: (name: string) => string,
): string | undefined => {
  if (settings.minted === true) return MINTED_WORDS
  const accessChanges = settings.accessChanges ?? Option.none()
  if (!accessDenied({ mode: settings.mode, accessChanges })) return undefined
  return Option.isSome(accessChanges)
    ? `${variable("SVC_ACCESS_CHANGES")}=deny keeps users, groups, permissions and keys away from the assistant`
    : `the server runs in ${settings.mode} mode (${variable("SVC_MODE")}), which keeps users, groups, permissions and keys away from the assistant unless ${variable("SVC_ACCESS_CHANGES")}=allow`
}
