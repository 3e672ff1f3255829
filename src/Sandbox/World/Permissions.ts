/**
 * Who may do what, as the service decides it: an admin may do everything; any
 * other user has, on a resource, the highest of the levels given to it on that
 * resource's whole type (`all`), to the groups it is in, and on the resource
 * itself (to it or to its groups). Reads need Read, executions Execute,
 * changes Write.
 */
import { isResource, type Kind, kinds, resourceKinds } from "./ResourceTypes.js"
import { type Caller, lacks, type PermissionLevel, type Resource } from "./Store.js"
import type { SandboxUser, World } from "./World.js"

const RANK: Readonly<Record<string, number>> = { None: 0, Read: 1, Execute: 2, Write: 3 }

const levelText = (value: unknown): string => {
  if (typeof value === "string") return value
  if (typeof value === "object" && value !== null && "level" in value) return String(value.level)
  return "None"
}

const higher = (a: string, b: string) => ((RANK[b] ?? 0) > (RANK[a] ?? 0) ? b : a)

/** The user groups `user` is in: named in their users (by id or name), or given to everyone. */
const groupsOf = (world: World, user: SandboxUser) =>
  world.store.all("user_group").filter((g) => {
    const users = Array.isArray(g.config.users) ? (g.config.users as ReadonlyArray<string>) : []
    return g.config.everyone === true || users.includes(user._id.$oid) || users.includes(user.username)
  })

/** The kind a target's `type` names (`Stack` is a stack), if it is a resource's. */
export const kindOfTarget = (type: string): Kind | undefined => resourceKinds.find((k) => kinds[k].target === type)

/** The caller's level on `r`, as the service computes it. */
export const levelOn = (world: World, caller: Caller, kind: Kind, r: Resource): string => {
  if (caller.admin) return "Write"
  const user = world.users.find((u) => u._id.$oid === caller.id)
  if (user === undefined) return "None"
  const type = kinds[kind].target
  const groups = groupsOf(world, user)
  let level = levelText(user.all?.[type])
  for (const group of groups) {
    const all = group.config.all as Readonly<Record<string, unknown>> | undefined
    level = higher(level, levelText(all?.[type]))
  }
  const holders = new Set([user._id.$oid, ...groups.map((g) => g.id)])
  for (const p of world.permissions) {
    if (p.resource_target.type === type && p.resource_target.id === r.id && holders.has(p.user_target.id)) {
      level = higher(level, p.level)
    }
  }
  return level
}

/** Whether the caller has at least `level` on `r`. */
export const may = (world: World, caller: Caller, kind: Kind, r: Resource, level: PermissionLevel): boolean =>
  !isResource(kind) || (RANK[levelOn(world, caller, kind, r)] ?? 0) >= (RANK[level] ?? 0)

/** Refuses as the service does when the caller lacks `level` on `r`. */
export const requireLevel = (world: World, caller: Caller, kind: Kind, r: Resource, level: PermissionLevel): void => {
  if (!may(world, caller, kind, r, level)) throw lacks(kinds[kind].target, level)
}
