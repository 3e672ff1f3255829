/**
 * The service's kinds of resource, as one table: by the tools' word for each (svc_list's and
 * svc_get's `resource_type`), its type where a ResourceTarget or a UserTarget names it, the kind of
 * names its ids are shown by (Tools/Names), its list and its get (all `read/`), the param its get
 * names one by (its id or its name), and where its state is. Everything that lists, reads, names or
 * plans a resource by its kind reads it here: the tools' tables of selectors (Tools/Catalog/Tables.ts),
 * the names of ids, a read back, a question's plan, and below them the settings (a pattern's `@`
 * types, Settings/Touches.ts; a minted identity's targets, Settings/Identities.ts), which is why it
 * stands in a layer of its own, just above Sandbox. A test holds every endpoint and param to the
 * service's definitions. Nothing here imports the program.
 */

/** Where a kind's state is: a path of its list item; its full record (GetStack) holds none (service-notes.md). */
const LISTED_STATE = "info.state"

export interface Kind {
  /** Its type in a ResourceTarget (`ResourceSync`), or a permission's UserTarget (`User`), where one names it. */
  readonly type?: string
  /** The kind of names its ids are shown by (Tools/Names/Names.ts): `sync` for a sync. */
  readonly names?: string
  /** Its list: every one with `limit: 0` where `paged`. */
  readonly list: string
  /** Whether its list is paged (service-notes.md, "Lists and pages"): the 11 resources a ResourceTarget names. */
  readonly paged: boolean
  /** Its get, and the param that names one (its id or its name). */
  readonly get?: { readonly endpoint: string; readonly key: string }
  /** A read of one where the interface offers no get (SVC_REACH=all's): a user's. */
  readonly find?: { readonly endpoint: string; readonly key: string }
  /** Where its state is, a path of its list item: none where it has no state. */
  readonly state?: string
  /** The `execute/` batches that run on each of its list's matches of a pattern (`BatchDeploy`: deployments). */
  readonly batches?: ReadonlyArray<string>
}

/** A kind a ResourceTarget names, as the table holds each: named, read by its get. */
export type Resource = Kind & { readonly names: string; readonly get: NonNullable<Kind["get"]> }

/** A resource a ResourceTarget names: paged, named, read by `get` under `key`. */
const resource = <
  const T extends string,
  const N extends string,
  const L extends string,
  const G extends string,
  const S extends boolean,
>(
  type: T,
  names: N,
  list: L,
  get: G,
  key: string,
  state: S,
  batches: ReadonlyArray<string> = [],
) =>
  ({
    type,
    names,
    list,
    paged: true,
    get: { endpoint: get, key },
    ...(state ? { state: LISTED_STATE } : {}),
    ...(batches.length === 0 ? {} : { batches }),
    // A kind with a state says so in its type: a glance's question of it (Tools/Records/Questions.ts) is checked.
  }) as { readonly type: T; readonly names: N; readonly list: L; readonly paged: true } & {
    readonly get: { readonly endpoint: G; readonly key: string }
    readonly batches?: ReadonlyArray<string>
  } & (S extends true ? { readonly state: string } : Record<never, never>)

/** In the order svc_list and svc_get offer them (their `resource_type`'s values). */
export const KINDS = {
  stack: resource("Stack", "stack", "ListStacks", "GetStack", "stack", true, [
    "BatchDeployStack",
    "BatchDeployStackIfChanged",
    "BatchDestroyStack",
    "BatchPullStack",
  ]),
  build: resource("Build", "build", "ListBuilds", "GetBuild", "build", true, ["BatchRunBuild"]),
  server: resource("Server", "server", "ListServers", "GetServer", "server", true),
  procedure: resource("Procedure", "procedure", "ListProcedures", "GetProcedure", "procedure", true, [
    "BatchRunProcedure",
  ]),
  deployment: resource("Deployment", "deployment", "ListDeployments", "GetDeployment", "deployment", true, [
    "BatchDeploy",
    "BatchDestroyDeployment",
  ]),
  alerter: resource("Alerter", "alerter", "ListAlerters", "GetAlerter", "alerter", false),
  image_registry_account: {
    list: "ListImageRegistryAccounts",
    paged: false,
    get: { endpoint: "GetImageRegistryAccount", key: "id" },
  },
  sync_resource: resource("ResourceSync", "sync", "ListResourceSyncs", "GetResourceSync", "sync", true),
  user: { type: "User", names: "user", list: "ListUsers", paged: false, find: { endpoint: "FindUser", key: "user" } },
  tag: { names: "tag", list: "ListTags", paged: false, get: { endpoint: "GetTag", key: "tag" } },
  action: resource("Action", "action", "ListActions", "GetAction", "action", true, ["BatchRunAction"]),
  repo: resource("Repo", "repo", "ListRepos", "GetRepo", "repo", true, [
    "BatchBuildRepo",
    "BatchCloneRepo",
    "BatchPullRepo",
  ]),
  builder: resource("Builder", "builder", "ListBuilders", "GetBuilder", "builder", false),
  swarm: resource("Swarm", "swarm", "ListSwarms", "GetSwarm", "swarm", true),
  // Its names' kind holds no names: which variables the service holds secret (Tools/Names).
  variable: { names: "variable", list: "ListVariables", paged: false, get: { endpoint: "GetVariable", key: "name" } },
  user_group: {
    type: "UserGroup",
    names: "user_group",
    list: "ListUserGroups",
    paged: false,
    get: { endpoint: "GetUserGroup", key: "user_group" },
  },
  git_provider_account: {
    list: "ListGitProviderAccounts",
    paged: false,
    get: { endpoint: "GetGitProviderAccount", key: "id" },
  },
} as const satisfies Readonly<Record<string, Kind>>

export type KindName = keyof typeof KINDS

/** The kinds of names the table holds (`sync`, `user_group`...): Tools/Names' kinds. */
export type Word = {
  [K in KindName]: (typeof KINDS)[K] extends { readonly names: infer N extends string } ? N : never
}[KindName]

/** The words of the kinds a ResourceTarget names (the paged ones): what a pattern's `@` and a call's params name. */
export type ResourceWord = {
  [K in KindName]: (typeof KINDS)[K] extends { readonly paged: true; readonly names: infer N extends string }
    ? N
    : never
}[KindName]

const ALL: ReadonlyArray<readonly [KindName, Kind]> = Object.entries(KINDS) as Array<[KindName, Kind]>

/** A kind by the tools' word for it (`sync_resource`), where it is one. */
export const kindOf = (name: string): Kind | undefined =>
  Object.hasOwn(KINDS, name) ? (KINDS as Readonly<Record<string, Kind>>)[name] : undefined

const BY_TYPE: ReadonlyMap<string, readonly [KindName, Kind]> = new Map(
  ALL.flatMap((entry) => (entry[1].type === undefined ? [] : [[entry[1].type, entry] as const])),
)

/** The kind a ResourceTarget's or UserTarget's type names (`ResourceSync`), and the tools' word for it. */
export const byType = (type: string): readonly [KindName, Kind] | undefined => BY_TYPE.get(type)

/** The kind whose list is `list` (`ListStacks`), where one's is. */
export const byList = (list: string): Kind | undefined => ALL.find(([, kind]) => kind.list === list)?.[1]

/** The word for one of a target's type (`sync` for a ResourceSync): its names' kind, where the table has it. */
export const wordOf = (type: string): Word | undefined => byType(type)?.[1].names as Word | undefined

/** A resource a ResourceTarget names, by its word (`sync`): the paged kinds, as a call's params and a pattern's `@` name them. */
export const resourceOf = (word: string): Resource | undefined => RESOURCES.find((kind) => kind.names === word)

/** The kind a batch (`execute/` `BatchDeploy`) runs on, where `endpoint` is one. */
export const batchOf = (endpoint: string): Resource | undefined =>
  RESOURCES.find((kind) => kind.batches?.includes(endpoint) === true)

/** The get of one of `type` (a ResourceTarget's), as `read/` and its params naming `id`; none where it has none. */
export const readOf = (
  type: string,
  id: string,
): { readonly endpoint: string; readonly body: Readonly<Record<string, string>> } | undefined => {
  const get = byType(type)?.[1].get
  return get === undefined ? undefined : { endpoint: get.endpoint, body: { [get.key]: id } }
}

/** The resources a ResourceTarget names (the paged kinds), each with its get: the params naming one are their gets' keys. */
export const RESOURCES: ReadonlyArray<Resource> = ALL.flatMap(([, kind]) =>
  kind.paged && kind.names !== undefined && kind.get !== undefined
    ? [{ ...kind, names: kind.names, get: kind.get }]
    : [],
)

/** The types a ResourceTarget names (`ResourceSync`...), in the table's order: those a minted user's level is given on. */
export const RESOURCE_TYPES: ReadonlyArray<string> = ALL.flatMap(([, kind]) =>
  kind.paged && kind.type !== undefined ? [kind.type] : [],
)

/**
 * Each way one of a ResourceTarget's kinds is spelled, to its word: the word (`sync`), the tools'
 * (`sync_resource`) and its type's in snake case (`resource_sync`).
 */
export const SPELLINGS: ReadonlyMap<string, ResourceWord> = new Map(
  ALL.flatMap(([name, kind]) =>
    kind.paged && kind.names !== undefined && kind.type !== undefined
      ? [name, kind.names, kind.type.replace(/(?<=[a-z])(?=[A-Z])/g, "_").toLowerCase()].map(
          (spelling) => [spelling, kind.names as ResourceWord] as const,
        )
      : [],
  ),
)

/** Each kind whose ids are named, by its names' kind: its list and whether it is paged. */
export const NAMED: ReadonlyArray<readonly [names: string, kind: Kind]> = ALL.flatMap(([, kind]) =>
  kind.names === undefined ? [] : [[kind.names, kind] as const],
)

type Lists = { readonly [K in KindName]: (typeof KINDS)[K]["list"] }
type WithGet = { [K in KindName]: (typeof KINDS)[K] extends { readonly get: object } ? K : never }[KindName]
type Gets = {
  readonly [K in WithGet]: (typeof KINDS)[K] extends { readonly get: { readonly endpoint: infer E } } ? E : never
}

/** Each kind's list, by the tools' word: svc_list's selectors. */
export const LISTS: Lists = Object.fromEntries(ALL.map(([name, kind]) => [name, kind.list])) as Lists

/** Each kind's get, by the tools' word, where it has one: svc_get's selectors. */
export const GETS: Gets = Object.fromEntries(
  ALL.flatMap(([name, kind]) => (kind.get === undefined ? [] : [[name, kind.get.endpoint]])),
) as Gets

/** The state `item`, one of `kind`'s list items, holds (at `kind.state`); none where it has no state. */
export const stateIn = (kind: Kind, item: unknown): unknown =>
  kind.state
    ?.split(".")
    .reduce<unknown>(
      (value, key) =>
        typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined,
      item,
    )
