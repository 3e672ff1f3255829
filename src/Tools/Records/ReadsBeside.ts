/**
 * What is read beside an answer, by the endpoint that answered: the one table that says which
 * endpoint gets which read. Each read's behaviour is its own module's (each field below names
 * it); the tools' program looks an answer's entry up once and runs what it holds (Tools/Invoke.ts,
 * Tools/Beside.ts). An endpoint not in the table reads nothing beside its answer but the names
 * its view shows, which any answer may.
 *
 * Three families are drawn from the table that decides them, not listed again here: the lists the
 * service pages (Lists/Pages.ts, as service-notes.md gives them), the records whose glance asks
 * a state only their list holds (Questions.ts, the glance's own table of what is asked), and the
 * changes whose question previews what they will do, read before asking (Previewed.ts, in the words
 * `schema: true` says; the reads are the confirmation's, Confirmation/Previews.ts).
 */
import type * as Kinds from "../../Kinds/Kinds.js"
import * as Definitions from "../Catalog/Definitions.js"
import { pathOf } from "../Catalog/Tool.js"
import { PAGINATED } from "../Lists/Pages.js"
import { kindsChangedBy, type NameKind } from "../Names/Names.js"
import * as EmptyLog from "./EmptyLog.js"
import * as Executed from "./Executed.js"
import { PREVIEWED } from "./Previewed.js"
import { listOf, QUESTIONS } from "./Questions.js"
import * as ReadBack from "./ReadBack.js"
import * as Access from "./ReadBackAccess.js"
import type { ReadBack as ReadOfChange } from "./ReadBackParts.js"
import * as Stale from "./Stale.js"

export interface ReadsBeside {
  /** `fields` under `drift` make a stack's drift beside its record, with the diff of its files (StackDrift.ts). */
  readonly drift?: true
  /** A change answered with nothing, at a glance: what now holds, read back (ReadBack.ts). */
  readonly readBack?: ReadOfChange
  /** An empty log: why, read from its containers (EmptyLog.ts). */
  readonly emptyLog?: ReadOfChange
  /** Items on a server that cannot be reached: where each names its server (Stale.ts). */
  readonly stale?: Stale.StaleRead
  /** An execution answered without an Update: the first line of what it did and found (Executed.ts). */
  readonly executed?: Executed.Said
  /** The list whose item holds what the record lacks, read for its glance (Listed.ts). */
  readonly listed?: Kinds.Kind
  /** A list the service pages: the default page read, for the note that more may exist (Pages.ts). */
  readonly paged?: true
  /** The kinds of names the change may change, forgotten after it so that the next answer reads them (Names.ts). */
  readonly renews?: ReadonlyArray<NameKind>
  /** Before asking: what the question shows of the change, read just before, in `schema: true`'s words (Previewed.ts). */
  readonly preview?: string
}

/** The reads decided here, by endpoint. */
const LISTED_HERE: Readonly<Record<string, ReadsBeside>> = {
  "read/GetStack": { drift: true, stale: Stale.RECORD },
  "read/GetDeployment": { stale: Stale.RECORD },
  "read/ListStacks": { stale: Stale.LIST },
  "read/ListDeployments": { stale: Stale.LIST },
  "read/GetDeploymentLog": { emptyLog: EmptyLog.DEPLOYMENT },
  "read/GetStackLog": { emptyLog: EmptyLog.STACK },
  "write/CheckStackForUpdate": { executed: Executed.CHECK_STACK },
  "write/CheckDeploymentForUpdate": { executed: Executed.CHECK_DEPLOYMENT },
  "write/BatchCheckStackForUpdate": { executed: Executed.BATCH_STACKS },
  "write/BatchCheckDeploymentForUpdate": { executed: Executed.BATCH_DEPLOYMENTS },
  "write/RefreshResourceSyncPending": { executed: Executed.REFRESH_SYNC },
  "write/UpdateResourceMeta": { readBack: ReadBack.RESOURCE_META, renews: ["tag"] },
  "write/CloseAlert": { readBack: ReadBack.CLOSE_ALERT },
  "write/RefreshStackCache": { readBack: ReadBack.REFRESH_STACK },
  "write/RefreshBuildCache": { readBack: ReadBack.REFRESH_BUILD },
  "write/RefreshRepoCache": { readBack: ReadBack.REFRESH_REPO },
  "write/DeleteTerminal": { readBack: ReadBack.DELETE_TERMINAL },
  "write/DeleteAllTerminals": { readBack: ReadBack.DELETE_ALL_TERMINALS },
  "write/BatchDeleteAllTerminals": { readBack: ReadBack.BATCH_DELETE_ALL_TERMINALS },
  "execute/RunServerRefreshContainers": { readBack: ReadBack.REFRESH_CONTAINERS },
  "write/UpdatePermissionOnTarget": { readBack: Access.PERMISSION_ON_TARGET },
  "write/UpdatePermissionOnResourceType": { readBack: Access.PERMISSION_ON_TYPE },
  "write/UpdateUserBasePermissions": { readBack: Access.USER_BASE_PERMISSIONS },
  "write/UpdateUserAdmin": { readBack: Access.USER_ADMIN },
  "write/UpdateUserGroup": { readBack: Access.USER_GROUP },
  // The changes of names SVC_REACH=all offers beside the default tools' (Catalog/TablesAll.ts, loaded
  // only with it; a resource's meta above, which may make tags): a test holds them to the selectors'
  // kinds (Names.ts `kindsChangedBy`).
  "write/CreateLocalUser": { renews: ["user"] },
  "write/CreateServiceUser": { renews: ["user"] },
  "write/DeleteUser": { renews: ["user"] },
  "write/AddUserToUserGroup": { renews: ["user_group"] },
  "write/RemoveUserFromUserGroup": { renews: ["user_group"] },
  "write/SetUsersInUserGroup": { renews: ["user_group"] },
  "write/SetEveryoneUserGroup": { renews: ["user_group"] },
  "write/RenameResourceSync": { renews: ["sync"] },
}

/** The default tools that change what names hold. */
const CHANGES = [
  Definitions.svc_create,
  Definitions.svc_update,
  Definitions.svc_delete,
  Definitions.svc_rename,
  Definitions.svc_copy,
]

/** Each change's endpoint, with the kinds of names it may change. */
const renewed = CHANGES.flatMap((tool) =>
  tool.selectors.flatMap((selector) => {
    const renews = kindsChangedBy(selector)
    return renews.length === 0 ? [] : [[pathOf(tool, selector), { renews }] as const]
  }),
)

/** Each record whose glance asks what only its list holds, with that list's kind. */
const listed = Object.keys(QUESTIONS).flatMap((endpoint) => {
  const kind = listOf(endpoint)
  return kind === undefined ? [] : [[endpoint, { listed: kind }] as const]
})

/** Each list the service pages. */
const paged = [...PAGINATED].map((endpoint) => [endpoint, { paged: true } as const] as const)

/** Each change whose question previews it, with the words `schema: true` says. */
const previewed = Object.entries(PREVIEWED).map(([endpoint, preview]) => [endpoint, { preview }] as const)

/** Every endpoint's reads, merged from those decided here and the families drawn from their tables. */
const merged = (families: ReadonlyArray<ReadonlyArray<readonly [string, ReadsBeside]>>) => {
  const table: Record<string, ReadsBeside> = { ...LISTED_HERE }
  for (const family of families)
    for (const [endpoint, reads] of family) table[endpoint] = { ...table[endpoint], ...reads }
  return table
}

/** By endpoint: what is read beside its answer. */
export const READS_BESIDE: Readonly<Record<string, ReadsBeside>> = merged([renewed, listed, paged, previewed])

const NOTHING: ReadsBeside = {}

/** The reads beside the answer of `endpoint`: none where the table has no entry. */
export const readsBeside = (endpoint: string): ReadsBeside =>
  Object.hasOwn(READS_BESIDE, endpoint) ? (READS_BESIDE[endpoint] as ReadsBeside) : NOTHING
