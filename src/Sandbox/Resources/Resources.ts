/**
 * The resource endpoints of the sandbox (List, Get, Create, Update, Delete,
 * Copy, Rename) for the 16 types, under the service's endpoint names and
 * answering in the shapes its definitions give.
 */

import { may, requireLevel } from "../World/Permissions.js"
import { type Kind, kinds, resourceKinds } from "../World/ResourceTypes.js"
import { isRecord } from "../World/Schema.js"
import { adminOnly, type Caller, configOf, merge, type Params, type Resource, ref, type Store } from "../World/Store.js"
import type { World } from "../World/World.js"
import { full, listItem } from "./Shapes.js"

export type Handler = (params: Params, caller: Caller) => unknown

/** The service's default page, as GetCoreInfo answers it (`default_pagination_limit`). */
export const DEFAULT_PAGE = 50

/** A resource query (`{names?, tags?, tag_behavior?, terms?}`) as the service applies it. */
const matchesQuery = (store: Store, r: Resource, params: Params): boolean => {
  const query = params.query
  if (!isRecord(query)) return true
  const { names, tags, tag_behavior, terms } = query as {
    names?: ReadonlyArray<string>
    tags?: ReadonlyArray<string>
    tag_behavior?: string
    terms?: ReadonlyArray<string>
  }
  if (names !== undefined && names.length > 0 && !names.includes(r.name) && !names.includes(r.id)) return false
  if (tags !== undefined && tags.length > 0) {
    const ids = tags.map((t) => store.all("tag").find((tag) => tag.id === t || tag.name === t)?.id ?? t)
    const has = (id: string) => r.tags.includes(id)
    if (tag_behavior === "Any" ? !ids.some(has) : !ids.every(has)) return false
  }
  if (terms !== undefined && terms.length > 0 && !terms.some((t) => r.name.includes(t))) return false
  return true
}

/** A raw database filter on tags, e.g. `{"name": "prod"}` or `{"name": {"$in": [...]}}`. */
const matchesFilter = (record: Record<string, unknown>, filter: unknown): boolean => {
  if (!isRecord(filter)) return true
  return Object.entries(filter).every(([field, condition]) => {
    const actual = field === "_id" && isRecord(record._id) ? record._id.$oid : record[field]
    if (!isRecord(condition)) return actual === condition
    if (Array.isArray(condition.$in)) return condition.$in.includes(actual)
    if (typeof condition.$regex === "string") return new RegExp(condition.$regex).test(String(actual ?? ""))
    if ("$ne" in condition) return actual !== condition.$ne
    return actual === condition
  })
}

/** As the service pages: DEFAULT_PAGE items unless `limit` says otherwise; `limit: 0` is all. */
export const page = <A>(items: ReadonlyArray<A>, params: Params): ReadonlyArray<A> => {
  const limit = typeof params.limit === "number" ? params.limit : DEFAULT_PAGE
  const pageNo = typeof params.page === "number" && params.page > 0 ? params.page : 0
  if (limit <= 0) return items
  return items.slice(pageNo * limit, (pageNo + 1) * limit)
}

/** How an account is named for uniqueness: its domain and user. */
const accountName = (account: Record<string, unknown>) =>
  `${String(account.domain ?? "")}:${String(account.username ?? "")}`

/** References by name in a config become ids, as the service stores them; `server`, `swarm`, `builder` name them too. */
const normalize = (store: Store, config: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(config)) {
    const named = /^(server|swarm|builder)(_id)?$/.exec(key)
    const refKind = named?.[1] as "server" | "swarm" | "builder" | undefined
    if (refKind !== undefined && typeof value === "string" && value !== "") {
      const found = store.all(refKind).find((r) => r.id === value || r.name === value)
      out[`${refKind}_id`] = found?.id ?? value
    } else if (refKind === undefined && key !== "stage") {
      out[key] = value
    }
  }
  return out
}

/** Each resource kind's list, get, create, update, delete, copy and rename. */
const kindRoutes = ({ world, store, definitions, add, view, permitted }: Routes) => {
  for (const kind of resourceKinds) {
    const { target, plural, key } = kinds[kind]
    // A list holds what the caller may read; the others are left out, not refused.
    const listed = (p: Params, caller: Caller) =>
      page(
        store.all(kind).filter((r) => matchesQuery(store, r, p) && may(world, caller, kind, r, "Read")),
        p,
      )
    add(`read/List${plural}`, (p, caller) => listed(p, caller).map((r) => listItem(definitions, world, kind, r)))
    add(`read/ListFull${plural}`, (p, caller) => listed(p, caller).map(view(kind)))
    add(`read/Get${target}`, (p, caller) => view(kind)(permitted(caller, kind, "Read", key, "id", "name")(p)))
    add(`write/Create${target}`, (p, caller) => {
      adminOnly(caller)
      return view(kind)(store.create(kind, ref(p, "name"), { config: normalize(store, configOf(p)) }))
    })
    add(`write/Update${target}`, (p, caller) => {
      const r = permitted(caller, kind, "Write", "id")(p)
      return view(kind)(store.update(kind, r.id, normalize(store, configOf(p))))
    })
    add(`write/Delete${target}`, (p, caller) =>
      view(kind)(store.delete(kind, permitted(caller, kind, "Write", "id")(p).id)),
    )
    add(`write/Copy${target}`, (p, caller) => {
      adminOnly(caller)
      return view(kind)(store.copy(kind, ref(p, "id"), ref(p, "name")))
    })
    // A resource's rename answers an Update, as the service's does (RenameTag and RenameUserGroup answer the record).
    if (kind !== "sync_resource") {
      add(`write/Rename${target}`, (p, caller) => {
        const r = permitted(caller, kind, "Write", "id")(p)
        const before = r.name
        store.rename(kind, r.id, ref(p, "name"))
        const update = world.newUpdate(`Rename${target}`, { type: target, id: r.id }, caller.id)
        world.finish(update, "Rename", "", [`Renamed ${target} from ${before} to ${r.name}`], true)
        return update
      })
    }
  }
}

/** Tags: a database filter, a colour, a rename that answers the tag. */
const tagRoutes = ({ store, add, view }: Routes) => {
  add("read/ListTags", (p) =>
    store
      .all("tag")
      .map(view("tag"))
      .filter((t) => matchesFilter(t as never, p.query)),
  )
  add("read/GetTag", (p) => view("tag")(store.find("tag", ref(p, "tag", "id", "name"))))
  add("write/CreateTag", (p, caller) => {
    adminOnly(caller)
    return view("tag")(store.create("tag", ref(p, "name"), { config: { color: p.color ?? "Slate", owner: caller.id } }))
  })
  add("write/UpdateTagColor", (p, caller) => {
    adminOnly(caller)
    const tag = store.find("tag", ref(p, "tag"))
    tag.config = { ...tag.config, color: ref(p, "color") }
    return view("tag")(tag)
  })
  add("write/RenameTag", (p, caller) => {
    adminOnly(caller)
    return view("tag")(store.rename("tag", ref(p, "id"), ref(p, "name")))
  })
}

/** Variables, by name. */
const variableRoutes = ({ store, add, view }: Routes) => {
  add("read/ListVariables", () => store.all("variable").map(view("variable")))
  add("read/GetVariable", (p) => view("variable")(store.find("variable", ref(p, "name"))))
  add("write/CreateVariable", (p, caller) => {
    adminOnly(caller)
    const config = { value: p.value ?? "", description: p.description ?? "", is_secret: p.is_secret === true }
    return view("variable")(store.create("variable", ref(p, "name"), { config }))
  })
  add("write/UpdateVariableValue", (p, caller) => {
    adminOnly(caller)
    const variable = store.find("variable", ref(p, "name"))
    variable.config = { ...variable.config, value: ref(p, "value") }
    return view("variable")(variable)
  })
  add("write/DeleteVariable", (p, caller) => {
    adminOnly(caller)
    return view("variable")(store.delete("variable", ref(p, "name")))
  })
}

/** User groups. */
const userGroupRoutes = ({ store, add, view }: Routes) => {
  add("read/ListUserGroups", () => store.all("user_group").map(view("user_group")))
  add("read/GetUserGroup", (p) => view("user_group")(store.find("user_group", ref(p, "user_group"))))
  add("write/CreateUserGroup", (p, caller) => {
    adminOnly(caller)
    return view("user_group")(
      store.create("user_group", ref(p, "name"), { config: { users: [], everyone: false, all: {} } }),
    )
  })
  add("write/UpdateUserGroup", (p, caller) => {
    adminOnly(caller)
    const group = store.find("user_group", ref(p, "user_group", "id", "name"))
    const fields = Object.fromEntries(
      Object.entries(p).filter(([k]) => k === "users" || k === "everyone" || k === "all"),
    )
    group.config = merge(group.config, fields)
    group.updated_at = store.now()
    return view("user_group")(group)
  })
  add("write/RenameUserGroup", (p, caller) => {
    adminOnly(caller)
    return view("user_group")(store.rename("user_group", ref(p, "id"), ref(p, "name")))
  })
  add("write/DeleteUserGroup", (p, caller) => {
    adminOnly(caller)
    return view("user_group")(store.delete("user_group", ref(p, "id")))
  })
}

/** The two account types: `{account}` to create, `{id, account}` to update; lists filter by domain and user. */
const accountRoutes = ({ store, add, view }: Routes) => {
  for (const kind of ["git_provider_account", "image_registry_account"] as const) {
    const { target, plural } = kinds[kind]
    add(`read/List${plural}`, (p) =>
      store
        .all(kind)
        .filter(
          (r) =>
            (p.domain === undefined || r.config.domain === p.domain) &&
            (p.username === undefined || r.config.username === p.username),
        )
        .map(view(kind)),
    )
    add(`read/Get${target}`, (p) => view(kind)(store.find(kind, ref(p, "id"))))
    add(`write/Create${target}`, (p, caller) => {
      adminOnly(caller)
      const { _id: _, ...account } = isRecord(p.account) ? p.account : {}
      return view(kind)(store.create(kind, accountName(account), { config: account }))
    })
    add(`write/Update${target}`, (p, caller) => {
      adminOnly(caller)
      const found = store.find(kind, ref(p, "id"))
      const { _id: _, ...account } = isRecord(p.account) ? p.account : {}
      found.config = merge(found.config, account)
      return view(kind)(found)
    })
  }
  add("write/DeleteGitProviderAccount", (p, caller) => {
    adminOnly(caller)
    return view("git_provider_account")(store.delete("git_provider_account", ref(p, "id")))
  })
}

/** What the routes are made with: the world, its definitions, a resource's view, a caller's permission on one. */
const routing = (world: World, add: (endpoint: string, handler: Handler) => void) => {
  const { store, schema: definitions } = world
  return {
    world,
    store,
    definitions,
    add,
    view: (kind: Kind) => (r: Resource) => full(definitions, kind, r),
    /** The resource named by `keys`, if the caller may act on it at `level`. */
    permitted:
      (caller: Caller, kind: Kind, level: "Read" | "Write", ...keys: ReadonlyArray<string>) =>
      (params: Params): Resource => {
        const r = store.find(kind, ref(params, ...keys))
        requireLevel(world, caller, kind, r, level)
        return r
      },
  }
}
type Routes = ReturnType<typeof routing>

/** Every resource endpoint, bound to the world's store. */
export const handlers = (world: World): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const r = routing(world, (endpoint, handler) => routes.set(endpoint, handler))
  kindRoutes(r)
  tagRoutes(r)
  variableRoutes(r)
  userGroupRoutes(r)
  accountRoutes(r)
  return routes
}
