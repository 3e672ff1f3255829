/**
 * What a question shows of a call before asking, by the endpoint it calls: the one table of the
 * reads a confirmation makes before it asks. Its keys are exactly the endpoints Tools/Records/
 * Previewed.ts gives words for (`schema: true`'s `preview`): a plan missing here, or one here
 * with no words there, does not compile. Each entry's reads are its module's: an update's changes
 * (Changes.ts), a delete's record and referrers (Plan.ts, References.ts), a batch's matches and
 * a sync run's changes (Plan.ts), a prune's (PrunePlan.ts), a deploy's (DeployPlan.ts), and
 * SVC_REACH=all's meta, files (ResourcePlan.ts) and access (AccessPlan.ts). An endpoint not here
 * previews nothing. The call's endpoint is looked up once, as it was resolved.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { DELETES, each, type PreviewedEndpoint, UPDATES } from "../Tools/Records/Previewed.js"
import * as Access from "./AccessPlan.js"
import { CHANGES } from "./Changes.js"
import * as Deploy from "./DeployPlan.js"
import { BATCH, DELETED_RECORD, SYNC } from "./Plan.js"
import type { Asking, Needs, Planned, Preview } from "./PlanShape.js"
import { render } from "./PlanText.js"
import * as Prune from "./PrunePlan.js"
import { REFERRERS } from "./References.js"
import { FILE, META } from "./ResourcePlan.js"

/** A delete: the record it removes, then what refers to it. */
const DELETE: Preview = { ...DELETED_RECORD, lines: REFERRERS }

/** By endpoint: what its question reads and shows before asking. */
export const PREVIEWS: Readonly<Record<PreviewedEndpoint, Preview>> = {
  ...each(UPDATES, CHANGES),
  "write/UpdateResourceMeta": META,
  "write/WriteStackFileContents": FILE,
  "write/WriteBuildFileContents": FILE,
  "write/WriteSyncFileContents": FILE,
  "write/UpdatePermissionOnTarget": Access.ON_TARGET,
  "write/UpdatePermissionOnResourceType": Access.ON_TYPE,
  "write/UpdateUserAdmin": Access.ADMIN,
  "write/UpdateUserBasePermissions": Access.BASE_PERMISSIONS,
  "write/AddUserToUserGroup": Access.ADD_USER,
  "write/RemoveUserFromUserGroup": Access.REMOVE_USER,
  "write/SetUsersInUserGroup": Access.SET_USERS,
  "write/SetEveryoneUserGroup": Access.EVERYONE,
  "write/CreateApiKeyForServiceUser": Access.API_KEY_CREATE,
  "write/DeleteApiKeyForServiceUser": Access.API_KEY_DELETE,
  "write/DeleteOnboardingKey": Access.ONBOARDING_KEY_DELETE,
  ...each(DELETES, DELETE),
  "execute/PruneImages": Prune.IMAGES_PRUNE,
  "execute/PruneVolumes": Prune.VOLUMES_PRUNE,
  "execute/PruneNetworks": Prune.NETWORKS_PRUNE,
  "execute/PruneContainers": Prune.CONTAINERS_PRUNE,
  "execute/PruneSystem": Prune.SYSTEM_PRUNE,
  "execute/Deploy": Deploy.DEPLOYMENT_DEPLOY,
  "execute/DeployStack": Deploy.STACK_DEPLOY,
  "execute/DeployStackIfChanged": Deploy.STACK_DEPLOY,
  "execute/BatchDeploy": { ...BATCH, lines: Deploy.EACH_DEPLOYMENT },
  "execute/BatchDeployStack": { ...BATCH, lines: Deploy.EACH_STACK },
  "execute/BatchDeployStackIfChanged": { ...BATCH, lines: Deploy.EACH_STACK },
  "execute/BatchDestroyDeployment": BATCH,
  "execute/BatchDestroyStack": BATCH,
  "execute/BatchPullStack": BATCH,
  "execute/BatchRunBuild": BATCH,
  "execute/BatchPullRepo": BATCH,
  "execute/BatchBuildRepo": BATCH,
  "execute/BatchCloneRepo": BATCH,
  "execute/BatchRunProcedure": BATCH,
  "execute/BatchRunAction": BATCH,
  "execute/RunSync": SYNC,
}

const NONE: Preview = {}

/** The preview of `endpoint`: none where the table has no entry. */
const previewOf = (endpoint: string): Preview =>
  Object.hasOwn(PREVIEWS, endpoint) ? PREVIEWS[endpoint as PreviewedEndpoint] : NONE

/** The plan a call's question shows, where its preview has one, and the words it is said in. */
export const planOf = (asking: Asking): Effect.Effect<Option.Option<Planned>, never, Needs> => {
  const { plan } = previewOf(asking.invocation.endpoint)
  if (plan === undefined) return Effect.succeed(Option.none())
  return Effect.map(plan(asking), (made) => Option.some({ plan: made, text: render(made) }))
}

/** The lines a call's question shows between what it calls and why it is asked: its plan's, then the rest. */
export const lines = (asking: Asking): Effect.Effect<ReadonlyArray<string>, never, Needs> => {
  const preview = previewOf(asking.invocation.endpoint)
  if (preview.plan === undefined && preview.lines === undefined) return Effect.succeed([])
  return Effect.gen(function* () {
    const plan = preview.plan === undefined ? undefined : yield* preview.plan(asking)
    const beside = preview.lines === undefined ? [] : yield* preview.lines(asking, plan)
    return [...(plan === undefined ? [] : [render(plan)]), ...beside]
  })
}
