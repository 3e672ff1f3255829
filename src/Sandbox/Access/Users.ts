/**
 * Users, their API keys, user groups and permissions, as the service keeps
 * them: admins only (making or unmaking an admin, the super admin only), an
 * admin never deletes itself, a key's secret answered once, when it is made.
 * What is given here is what the permission rules (Permissions.ts) then apply.
 */
import { randomBytes } from "node:crypto"
import { sandboxUser } from "../Estates/Seed.js"
import type { Handler } from "../Resources/Resources.js"
import { kindOfTarget, levelOn } from "../World/Permissions.js"
import { isRecord } from "../World/Schema.js"
import { adminOnly, type Caller, type Params, ref, ServiceFailure } from "../World/Store.js"
import type { SandboxUser, World } from "../World/World.js"

type Add = (endpoint: string, handler: Handler) => void

/** A user as the service answers it: its password hash blanked, its login or service description. */
const userView = (world: World, u: SandboxUser): unknown => {
  const { service, ...fields } = u
  const item = world.schema.endpointSchema("read/FindUser", "response")?.schema ?? {}
  return world.schema.complete(item, {
    ...fields,
    config:
      service === undefined
        ? { type: "Local", data: { password: "" } }
        : { type: "Service", data: { description: service } },
  })
}

const superAdminOnly = (world: World, caller: Caller): void => {
  if (world.users.find((u) => u._id.$oid === caller.id)?.super_admin !== true) {
    throw new ServiceFailure(500, "This call is super-admin-only")
  }
}

const serviceUser = (world: World, idOrName: string): SandboxUser => {
  const user = world.user(idOrName)
  if (user.service === undefined) throw new ServiceFailure(500, `User ${user.username} is not a service user`)
  return user
}

const unused = (world: World, username: string) => {
  if (username.trim() === "") throw new ServiceFailure(400, "Username cannot be empty")
  if (world.users.some((u) => u.username === username)) throw new ServiceFailure(500, "Username already taken.")
}

/** Changes of another user: never of the super admin, and of an admin only by the super admin. */
const changeable = (world: World, caller: Caller, target: SandboxUser) => {
  if (target.super_admin === true) throw new ServiceFailure(500, "Cannot update or delete the super admin")
  if (target.admin && world.users.find((u) => u._id.$oid === caller.id)?.super_admin !== true) {
    throw new ServiceFailure(500, "Only a super admin can update or delete an admin")
  }
}

const userRoutes = (world: World, add: Add) => {
  add("read/ListUsers", (p) => {
    const wanted = p.service_users ?? "Include"
    return world.users
      .filter((u) => wanted === "Include" || (wanted === "Only") === (u.service !== undefined))
      .map((u) => userView(world, u))
  })
  add("read/FindUser", (p, caller) => {
    adminOnly(caller)
    return userView(world, world.user(ref(p, "user", "id", "username")))
  })
  add("read/GetUsername", (p) => ({ username: world.user(ref(p, "user_id")).username }))
  add("write/CreateLocalUser", (p, caller) => {
    adminOnly(caller)
    const username = ref(p, "username")
    unused(world, username)
    const user = sandboxUser(world, username, false)
    world.users.push(user)
    world.passwords.set(user._id.$oid, String(p.password ?? ""))
    return userView(world, user)
  })
  add("write/CreateServiceUser", (p, caller) => {
    adminOnly(caller)
    const username = ref(p, "username")
    unused(world, username)
    const user = sandboxUser(world, username, false, String(p.description ?? ""))
    world.users.push(user)
    return userView(world, user)
  })
  add("write/UpdateServiceUserDescription", (p, caller) => {
    adminOnly(caller)
    const user = serviceUser(world, ref(p, "username"))
    user.service = String(p.description ?? "")
    return userView(world, user)
  })
  add("write/DeleteUser", (p, caller) => {
    adminOnly(caller)
    const user = world.user(ref(p, "user"))
    if (user._id.$oid === caller.id) throw new ServiceFailure(400, "User cannot delete themselves.")
    changeable(world, caller, user)
    world.users.splice(world.users.indexOf(user), 1)
    world.passwords.delete(user._id.$oid)
    removeWhere(world.apiKeys, (k) => k.user_id === user._id.$oid)
    removeWhere(world.permissions, (q) => q.user_target.id === user._id.$oid)
    for (const group of world.store.all("user_group")) {
      group.config = { ...group.config, users: members(group.config).filter((m) => !is(user, m)) }
    }
    return userView(world, user)
  })
}

const removeWhere = <A>(list: Array<A>, test: (a: A) => boolean) => {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i] as A)) list.splice(i, 1)
}

const is = (user: SandboxUser, entry: string) => entry === user._id.$oid || entry === user.username
const members = (config: Record<string, unknown>): Array<string> =>
  Array.isArray(config.users) ? (config.users as Array<string>) : []

const adminRoutes = (world: World, add: Add) => {
  add("write/UpdateUserAdmin", (p, caller) => {
    superAdminOnly(world, caller)
    const user = world.user(ref(p, "user_id"))
    if (user.super_admin === true) throw new ServiceFailure(500, "Cannot update the super admin")
    user.admin = p.admin === true
    return {}
  })
  add("write/UpdateUserBasePermissions", (p, caller) => {
    adminOnly(caller)
    const user = world.user(ref(p, "user_id"))
    changeable(world, caller, user)
    if (typeof p.enabled === "boolean") user.enabled = p.enabled
    if (typeof p.create_servers === "boolean") user.create_server_permissions = p.create_servers
    if (typeof p.create_builds === "boolean") user.create_build_permissions = p.create_builds
    return {}
  })
}

const keyRoutes = (world: World, add: Add, seeded: (caller: Caller) => ReadonlyArray<unknown>) => {
  const blanked = (userId: string) =>
    world.apiKeys.filter((k) => k.user_id === userId).map((k) => ({ ...k, secret: "" }))
  add("read/ListApiKeys", (_p, caller) => [...seeded(caller), ...blanked(caller.id)])
  add("read/ListApiKeysForServiceUser", (p, caller) => {
    adminOnly(caller)
    return blanked(world.user(ref(p, "user"))._id.$oid)
  })
  add("write/CreateApiKeyForServiceUser", (p, caller) => {
    adminOnly(caller)
    const user = serviceUser(world, ref(p, "user_id"))
    const key = {
      name: ref(p, "name"),
      key: `K-${randomBytes(12).toString("hex")}`,
      secret: `S-${randomBytes(24).toString("hex")}`,
      user_id: user._id.$oid,
      created_at: world.now(),
      expires: typeof p.expires === "number" ? p.expires : 0,
    }
    world.apiKeys.push(key)
    return { key: key.key, secret: key.secret }
  })
  add("write/DeleteApiKeyForServiceUser", (p, caller) => {
    adminOnly(caller)
    const found = world.apiKeys.find((k) => k.key === ref(p, "key"))
    if (found === undefined) throw new ServiceFailure(500, "did not find any ApiKey matching the key")
    serviceUser(world, found.user_id)
    world.apiKeys.splice(world.apiKeys.indexOf(found), 1)
    return {}
  })
}

const groupRoutes = (world: World, add: Add) => {
  const group = (p: Params, caller: Caller) => {
    adminOnly(caller)
    return world.store.find("user_group", ref(p, "user_group"))
  }
  const answer = (g: ReturnType<typeof group>) => {
    g.updated_at = world.now()
    const schema = world.schema.endpointSchema("read/GetUserGroup", "response")?.schema ?? {}
    return world.schema.complete(schema, { _id: { $oid: g.id }, name: g.name, ...g.config, updated_at: g.updated_at })
  }
  add("write/AddUserToUserGroup", (p, caller) => {
    const g = group(p, caller)
    const user = world.user(ref(p, "user"))
    if (!members(g.config).some((m) => is(user, m)))
      g.config = { ...g.config, users: [...members(g.config), user._id.$oid] }
    return answer(g)
  })
  add("write/RemoveUserFromUserGroup", (p, caller) => {
    const g = group(p, caller)
    const user = world.user(ref(p, "user"))
    g.config = { ...g.config, users: members(g.config).filter((m) => !is(user, m)) }
    return answer(g)
  })
  add("write/SetUsersInUserGroup", (p, caller) => {
    const g = group(p, caller)
    const users = (Array.isArray(p.users) ? p.users : []).map((u) => world.user(String(u))._id.$oid)
    g.config = { ...g.config, users: [...new Set(users)] }
    return answer(g)
  })
  add("write/SetEveryoneUserGroup", (p, caller) => {
    const g = group(p, caller)
    g.config = { ...g.config, everyone: p.everyone === true }
    return answer(g)
  })
}

/** A user target's holder id: a user's or a group's, by id or name. */
const holderOf = (world: World, target: unknown) => {
  const { type, id } = (isRecord(target) ? target : {}) as { type?: string; id?: string }
  if (type === "UserGroup") return { type, id: world.store.find("user_group", String(id ?? "")).id } as const
  return { type: "User", id: world.user(String(id ?? ""))._id.$oid } as const
}

const levelOf = (permission: unknown) =>
  isRecord(permission) ? { level: String(permission.level), specific: permission.specific } : { level: permission }

const permissionRoutes = (world: World, add: Add) => {
  add("write/UpdatePermissionOnResourceType", (p, caller) => {
    adminOnly(caller)
    const holder = holderOf(world, p.user_target)
    const type = String(p.resource_type)
    const { level } = levelOf(p.permission)
    if (holder.type === "User") {
      const user = world.user(holder.id)
      user.all = { ...user.all, [type]: String(level) }
    } else {
      const g = world.store.find("user_group", holder.id)
      g.config = { ...g.config, all: { ...(isRecord(g.config.all) ? g.config.all : {}), [type]: level } }
    }
    return {}
  })
  add("write/UpdatePermissionOnTarget", (p, caller) => {
    adminOnly(caller)
    const holder = holderOf(world, p.user_target)
    const { type, id } = (isRecord(p.resource_target) ? p.resource_target : {}) as { type?: string; id?: string }
    const kind = kindOfTarget(String(type))
    if (kind === undefined) throw new ServiceFailure(400, `permissions cannot be given on ${String(type)}`)
    const resource = world.store.find(kind, String(id ?? ""))
    const { level, specific } = levelOf(p.permission)
    const existing = world.permissions.find(
      (q) => q.user_target.id === holder.id && q.resource_target.type === type && q.resource_target.id === resource.id,
    )
    const specifics = Array.isArray(specific) ? specific.map(String) : []
    if (existing !== undefined) Object.assign(existing, { level: String(level), specific: specifics })
    else {
      world.permissions.push({
        _id: { $oid: world.store.newId() },
        user_target: holder,
        resource_target: { type: String(type), id: resource.id },
        level: String(level),
        specific: specifics,
      })
    }
    return {}
  })
  add("read/GetPermission", (p, caller) => {
    const { type, id } = (isRecord(p.target) ? p.target : {}) as { type?: string; id?: string }
    const kind = kindOfTarget(String(type))
    if (kind === undefined) return { level: caller.admin ? "Write" : "None", specific: [] }
    return { level: levelOn(world, caller, kind, world.store.find(kind, String(id ?? ""))), specific: [] }
  })
  add("read/ListPermissions", (_p, caller) => world.permissions.filter((q) => q.user_target.id === caller.id))
  add("read/ListUserTargetPermissions", (p, caller) => {
    adminOnly(caller)
    const holder = holderOf(world, p.user_target)
    return world.permissions.filter((q) => q.user_target.id === holder.id)
  })
}

export const handlers = (
  world: World,
  seededKeys: (caller: Caller) => ReadonlyArray<unknown>,
): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const add: Add = (endpoint, handler) => routes.set(endpoint, handler)
  userRoutes(world, add)
  adminRoutes(world, add)
  keyRoutes(world, add, seededKeys)
  groupRoutes(world, add)
  permissionRoutes(world, add)
  return routes
}
