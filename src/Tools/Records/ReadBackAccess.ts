/**
 * The read-backs of changes to access the service answers with nothing: a permission on a
 * resource or on every resource of a type, a user's base permissions and admin, a user group.
 * Each reads the holder once and says what it now holds, by name (Names.ts).
 */
import { isObject } from "../../Shared/JsonShape.js"
import type { NameMaps } from "../Names/Names.js"
import { type Json, kindOfTarget, levelOf, named, nameOf, type ReadBack, targetWords } from "./ReadBackParts.js"

const sameTarget = (held: unknown, asked: unknown, names: NameMaps): boolean => {
  if (!isObject(held) || !isObject(asked) || held.type !== asked.type) return false
  const [kind] = kindOfTarget(held)
  return held.id === asked.id || nameOf(names, kind, held.id) === asked.id
}

export const PERMISSION_ON_TARGET: ReadBack = {
  read: (body) =>
    isObject(body.user_target)
      ? { endpoint: "read/ListUserTargetPermissions", body: { user_target: body.user_target } }
      : undefined,
  kinds: (_answer, body) => [...kindOfTarget(body.user_target), ...kindOfTarget(body.resource_target)],
  said: (answer, body, names) => {
    const held = Array.isArray(answer)
      ? answer.find((p) => isObject(p) && sameTarget(p.resource_target, body.resource_target, names))
      : undefined
    // No permission held on the target is the level None.
    const { level, specific } = levelOf(held)
    const holder = targetWords(body.user_target, names)
    const target = targetWords(body.resource_target, names)
    // Who, on what and at which level are the value's, not repeated in the line.
    return {
      line: "[svc-mcp: the permission now, read back]",
      value: { user_target: holder, resource_target: target, level, specific },
    }
  },
}

/** A holder's own record: a user's (FindUser) or a group's (GetUserGroup). */
const holderRead = (target: unknown) => {
  if (!isObject(target) || typeof target.id !== "string") return undefined
  return target.type === "UserGroup"
    ? { endpoint: "read/GetUserGroup", body: { user_group: target.id } }
    : { endpoint: "read/FindUser", body: { user: target.id } }
}

export const PERMISSION_ON_TYPE: ReadBack = {
  read: (body) => holderRead(body.user_target),
  kinds: (_answer, body) => kindOfTarget(body.user_target),
  said: (answer, body, names) => {
    const type = String(body.resource_type)
    const all = isObject(answer) && isObject(answer.all) ? answer.all : {}
    const { level, specific } = levelOf(all[type])
    const holder = targetWords(body.user_target, names)
    return {
      line: `[svc-mcp: the permission of ${holder} on every ${type} is now ${level}, read back]`,
      value: { user_target: holder, resource_type: type, level, specific },
    }
  },
}

const userRead = (body: Json) =>
  typeof body.user_id === "string" ? { endpoint: "read/FindUser", body: { user: body.user_id } } : undefined

const username = (answer: unknown, body: Json): string =>
  isObject(answer) && typeof answer.username === "string" ? answer.username : String(body.user_id)

export const USER_BASE_PERMISSIONS: ReadBack = {
  read: userRead,
  kinds: () => [],
  said: (answer, body) => {
    const user = isObject(answer) ? answer : {}
    const value = {
      user: username(answer, body),
      enabled: user.enabled === true,
      create_servers: user.create_server_permissions === true,
      create_builds: user.create_build_permissions === true,
    }
    return { line: `[svc-mcp: the base permissions of the user ${value.user} now, read back]`, value }
  },
}

export const USER_ADMIN: ReadBack = {
  read: userRead,
  kinds: () => [],
  said: (answer, body) => {
    const admin = isObject(answer) && answer.admin === true
    const user = username(answer, body)
    return {
      line: `[svc-mcp: the user ${user} is ${admin ? "now an admin" : "now not an admin"}, read back]`,
      value: { user, admin },
    }
  },
}

export const USER_GROUP: ReadBack = {
  read: (body) => {
    const group = named(body, "user_group")
    return group === undefined ? undefined : { endpoint: "read/GetUserGroup", body: { user_group: group } }
  },
  kinds: () => ["user"],
  said: (answer, _body, names) => {
    const group = isObject(answer) ? answer : {}
    const users = Array.isArray(group.users) ? group.users.map((id) => nameOf(names, "user", id)) : []
    return {
      line: `[svc-mcp: the user group ${String(group.name ?? "")} now holds as follows, read back]`,
      value: { users, everyone: group.everyone === true, all: isObject(group.all) ? group.all : {} },
    }
  },
}
