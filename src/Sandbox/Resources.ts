/**
 * The resource endpoints of the sandbox (List, Get, Create, Update, Delete,
 * Copy, Rename) for the 16 types, answering in the service's shapes.
 */
import { DEFAULT_PAGE } from "../ServiceResponse.js"
import * as Tables from "../Tools/Tables.js"
import { isKind, type Kind, kinds } from "./Kinds.js"
import { configOf, merge, type Params, type Resource, ref, ServiceFailure, type Store } from "./Store.js"

export type Handler = (params: Params) => unknown

const oid = (id: string) => ({ $oid: id })

/** Fields some types keep at the top level instead of in `config`. */
const flat = (r: Resource) => r.config

/** What List* answers for one resource. */
export const listItem = (kind: Kind, r: Resource): unknown => {
  switch (kind) {
    case "variable":
      return { name: r.name, ...flat(r) }
    case "tag":
      return { _id: oid(r.id), name: r.name, ...flat(r) }
    case "user_group":
      return { _id: oid(r.id), name: r.name, ...flat(r), updated_at: r.updated_at }
    case "git_provider_account":
    case "image_registry_account":
      return { _id: oid(r.id), ...flat(r) }
    default:
      return { id: r.id, name: r.name, tags: r.tags, resource_type: kinds[kind].target, info: r.info }
  }
}

/** What Get* (and Create, Update, Delete...) answers: the whole record. */
export const full = (kind: Kind, r: Resource): unknown => {
  if (kind === "variable" || kind === "tag" || kind === "user_group" || kind.endsWith("_account")) {
    return listItem(kind, r)
  }
  return {
    _id: oid(r.id),
    name: r.name,
    description: r.description,
    tags: r.tags,
    config: r.config,
    info: r.info,
    base_permission: "None",
    updated_at: r.updated_at,
  }
}

const matchesQuery = (r: Resource, params: Params): boolean => {
  const query = params.query
  if (typeof query !== "object" || query === null) return true
  const { names, tags } = query as { names?: unknown; tags?: unknown }
  if (Array.isArray(names) && names.length > 0 && !names.includes(r.name) && !names.includes(r.id)) return false
  if (Array.isArray(tags) && tags.length > 0 && !tags.every((tag) => r.tags.includes(tag as string))) return false
  return true
}

/** As the service: DEFAULT_PAGE items unless `limit` says otherwise; `limit: 0` is all. */
export const page = <A>(items: ReadonlyArray<A>, params: Params): ReadonlyArray<A> => {
  const limit = typeof params.limit === "number" ? params.limit : DEFAULT_PAGE
  const pageNo = typeof params.page === "number" && params.page > 0 ? params.page : 0
  if (limit <= 0) return items
  return items.slice(pageNo * limit, (pageNo + 1) * limit)
}

/** How an account is named for uniqueness: its domain and user. */
const accountName = (account: Record<string, unknown>) =>
  `${String(account.domain ?? "")}:${String(account.username ?? "")}`

const accountOf = (params: Params): Record<string, unknown> => {
  const account = params.account
  if (typeof account === "object" && account !== null && !Array.isArray(account))
    return account as Record<string, unknown>
  if (typeof params.domain === "string") return { ...params }
  throw new ServiceFailure(422, "Failed to deserialize the JSON body into the target type: missing field `account`")
}

const creators: Partial<Record<Kind, (store: Store, params: Params) => Resource>> = {
  tag: (store, p) => store.create("tag", ref(p, "name"), { config: { color: p.color ?? "Slate", owner: "admin" } }),
  variable: (store, p) =>
    store.create("variable", ref(p, "name"), {
      config: { value: p.value ?? "", description: p.description ?? "", is_secret: p.is_secret === true },
    }),
  user_group: (store, p) =>
    store.create("user_group", ref(p, "name"), { config: { users: [], everyone: false, all: {} } }),
  git_provider_account: (store, p) => {
    const account = { https: true, token: "", ...accountOf(p) }
    return store.create("git_provider_account", accountName(account), { config: account })
  },
  image_registry_account: (store, p) => {
    const account = { token: "", ...accountOf(p) }
    return store.create("image_registry_account", accountName(account), { config: account })
  },
}

const updaters: Partial<Record<Kind, (store: Store, params: Params) => Resource>> = {
  tag: (store, p) => {
    const tag = store.find("tag", ref(p, "tag", "id"))
    tag.config = { ...tag.config, color: ref(p, "color") }
    return tag
  },
  variable: (store, p) => {
    const variable = store.find("variable", ref(p, "name"))
    if (!("value" in p)) throw new ServiceFailure(422, "Failed to deserialize the JSON body: missing field `value`")
    variable.config = { ...variable.config, value: p.value }
    return variable
  },
  user_group: (store, p) => {
    const group = store.find("user_group", ref(p, "user_group", "id", "name"))
    const { user_group: _, id: __, name: ___, ...fields } = p
    group.config = merge(group.config, { ...fields, ...configOf(p) })
    return group
  },
  git_provider_account: (store, p) => {
    const account = store.find("git_provider_account", ref(p, "id"))
    account.config = merge(account.config, accountOf(p))
    return account
  },
  image_registry_account: (store, p) => {
    const account = store.find("image_registry_account", ref(p, "id"))
    account.config = merge(account.config, accountOf(p))
    return account
  },
}

/** The `resource_type` selector values of a table that are resource kinds, with their endpoints. */
const entries = (table: Readonly<Record<string, string>>) =>
  Object.entries(table).filter((entry): entry is [Kind, string] => isKind(entry[0]))

/** Every resource endpoint the tools reach, bound to `store`. */
export const handlers = (store: Store, users: () => ReadonlyArray<unknown>): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const add = (group: string, endpoint: string, handler: Handler) => routes.set(`${group}/${endpoint}`, handler)
  const view = (kind: Kind) => (r: Resource) => full(kind, r)

  add("read", Tables.list.user, () => users())
  for (const [kind, endpoint] of entries(Tables.list)) {
    add("read", endpoint, (p) =>
      page(
        store.all(kind).filter((r) => matchesQuery(r, p)),
        p,
      ).map((r) => listItem(kind, r)),
    )
  }
  for (const [kind, endpoint] of entries(Tables.get)) {
    add("read", endpoint, (p) => full(kind, store.find(kind, ref(p, kinds[kind].key, "id", "name"))))
  }
  for (const [kind, endpoint] of entries(Tables.create)) {
    const create = creators[kind] ?? ((s: Store, p: Params) => s.create(kind, ref(p, "name"), { config: configOf(p) }))
    add("write", endpoint, (p) => view(kind)(create(store, p)))
  }
  for (const [kind, endpoint] of entries(Tables.update)) {
    const update =
      updaters[kind] ?? ((s: Store, p: Params) => s.update(kind, ref(p, "id", kinds[kind].key), configOf(p)))
    add("write", endpoint, (p) => view(kind)(update(store, p)))
  }
  for (const [kind, endpoint] of entries(Tables.delete_)) {
    add("write", endpoint, (p) => view(kind)(store.delete(kind, ref(p, "id", kinds[kind].key, "name"))))
  }
  for (const [kind, endpoint] of entries(Tables.copy)) {
    add("write", endpoint, (p) => view(kind)(store.copy(kind, ref(p, "id"), ref(p, "name"))))
  }
  for (const [kind, endpoint] of entries(Tables.rename)) {
    add("write", endpoint, (p) => view(kind)(store.rename(kind, ref(p, "id", kinds[kind].key), ref(p, "name"))))
  }
  return routes
}
