/**
 * The plans of SVC_REACH=all's changes to who may do what: a user's admin
 * rights and base permissions, a group's members, a permission on a resource
 * or on a type, an API key made or deleted, an onboarding key deleted. Each
 * names who gets what on which target by name, and what holds now, read just
 * before asking.
 */
import * as Effect from "effect/Effect"
import * as Kinds from "../Kinds/Kinds.js"
import { listed, quote, word } from "../Shared/Quote.js"
import type { SvcClient } from "../SvcClient.js"
import { field, idOf, read, strings, text } from "./PlanRead.js"
import type { AccessPlan, Preview } from "./PlanShape.js"
import { readTarget } from "./ResourcePlan.js"

type Params = Readonly<Record<string, unknown>>
type Said = Effect.Effect<string, string, SvcClient>

const user = (idOrName: string) => read("read", "FindUser", { user: idOrName })
const nameOfUser = (record: unknown, given: string) => text(field(record, "username")) ?? given

/** Who a UserTarget is, in words, and its record. */
const holder = (target: unknown) =>
  Effect.gen(function* () {
    const type = text(field(target, "type"))
    const id = text(field(target, "id")) ?? ""
    if (type === "UserGroup") {
      const group = yield* read("read", "GetUserGroup", { user_group: id })
      return { words: `the user group ${quote(text(field(group, "name")) ?? id)}`, record: group }
    }
    const found = yield* user(id)
    return { words: `the user ${quote(nameOfUser(found, id))}`, record: found }
  })

/** A level as the service takes it: `Write`, or `{level, specific}`. */
const levelWords = (permission: unknown): string => {
  const level = text(permission) ?? text(field(permission, "level")) ?? "None"
  const specific = strings(field(permission, "specific"))
  return `${word(level)}${specific.length === 0 ? "" : ` (with ${listed(specific, 20, word)})`}`
}

const typeNoun = (type: string) => Kinds.wordOf(type) ?? word(type.toLowerCase())

/** Every user's name by id, as the members of a group are held by id. */
const userNames = Effect.map(read("read", "ListUsers", {}), (users) => {
  const names = new Map<string, string>()
  for (const u of Array.isArray(users) ? users : []) {
    const id = idOf(u)
    const name = text(field(u, "username"))
    if (id !== undefined && name !== undefined) names.set(id, name)
  }
  return names
})

const onTarget = (params: Params): Said =>
  Effect.gen(function* () {
    const who = yield* holder(params.user_target)
    const type = text(field(params.resource_target, "type")) ?? ""
    const id = text(field(params.resource_target, "id")) ?? ""
    const resource = yield* readTarget(type, id)
    const resourceId = idOf(resource) ?? id
    const held = yield* read("read", "ListUserTargetPermissions", { user_target: params.user_target })
    const now = (Array.isArray(held) ? held : []).find(
      (p) =>
        field(field(p, "resource_target"), "type") === type && field(field(p, "resource_target"), "id") === resourceId,
    )
    const on = `the ${typeNoun(type)} ${quote(text(field(resource, "name")) ?? id)}`
    const was = now === undefined ? "None" : levelWords(now)
    const level = levelWords(params.permission)
    return level === "None"
      ? `This takes from ${who.words} every permission on ${on} (now: ${was}).`
      : `This gives ${who.words} ${level} on ${on} (now: ${was}).`
  })

const onType = (params: Params): Said =>
  Effect.gen(function* () {
    const who = yield* holder(params.user_target)
    const type = text(params.resource_type) ?? ""
    const now = field(field(who.record, "all"), type) ?? field(field(field(who.record, "config"), "all"), type)
    const on = type === "System" ? "the system" : `every ${typeNoun(type)}`
    return `This gives ${who.words} ${levelWords(params.permission)} on ${on} (now: ${now === undefined ? "None" : levelWords(now)}).`
  })

const admin = (params: Params): Said =>
  Effect.map(user(text(params.user_id) ?? ""), (found) => {
    const name = quote(nameOfUser(found, text(params.user_id) ?? ""))
    const now = field(found, "admin") === true ? "an admin" : "not an admin"
    return params.admin === true
      ? `This makes the user ${name} an admin (now: ${now}).`
      : `This takes the admin rights of the user ${name} (now: ${now}).`
  })

const BASE: ReadonlyArray<readonly [string, string, string]> = [
  ["enabled", "enabled", "enabled"],
  ["create_servers", "create_server_permissions", "may create servers"],
  ["create_builds", "create_build_permissions", "may create builds"],
]

const base = (params: Params): Said =>
  Effect.map(user(text(params.user_id) ?? ""), (found) => {
    const name = quote(nameOfUser(found, text(params.user_id) ?? ""))
    const changes = BASE.filter(([key]) => typeof params[key] === "boolean").map(
      ([key, now, words]) => `${words} ${field(found, now) === true} -> ${params[key]}`,
    )
    return `This sets the base permissions of the user ${name}: ${changes.length === 0 ? "nothing" : changes.join("; ")}.`
  })

/** A group, its members by name, and the names of every user. */
const group = (params: Params) =>
  Effect.gen(function* () {
    const given = text(params.user_group) ?? ""
    const record = yield* read("read", "GetUserGroup", { user_group: given })
    const names = yield* userNames
    const members = strings(field(record, "users")).map((id) => names.get(id) ?? id)
    const name = quote(text(field(record, "name")) ?? given)
    return { name, record, names, members }
  })

/** A user given by id or name, by name. */
const named = (names: ReadonlyMap<string, string>, given: string) => names.get(given) ?? given

/** A user given by its param, by name. */
const userNamed = (g: { readonly names: ReadonlyMap<string, string> }, params: Params) =>
  quote(named(g.names, text(params.user) ?? ""))

const addUser = (params: Params): Said =>
  Effect.map(
    group(params),
    (g) =>
      `This adds the user ${userNamed(g, params)} to the user group ${g.name} (members now: ${listed(g.members)}).`,
  )

const removeUser = (params: Params): Said =>
  Effect.map(
    group(params),
    (g) =>
      `This removes the user ${userNamed(g, params)} from the user group ${g.name} (members now: ${listed(g.members)}).`,
  )

const everyone = (params: Params): Said =>
  Effect.map(group(params), (g) => {
    const all = field(g.record, "everyone") === true
    return params.everyone === true
      ? `This makes every user a member of the user group ${g.name} (now: ${all ? "every user" : listed(g.members)}).`
      : `This makes the user group ${g.name} hold only its own members, ${listed(g.members)} (now: ${all ? "every user" : "only those"}).`
  })

const setUsers = (params: Params): Said =>
  Effect.map(group(params), (g) => {
    const then = [...new Set(strings(params.users).map((u) => named(g.names, u)))]
    const added = then.filter((u) => !g.members.includes(u))
    const removed = g.members.filter((u) => !then.includes(u))
    return `This sets the members of the user group ${g.name} to ${listed(then)} (adds ${listed(added)}; removes ${listed(removed)}).`
  })

/** An API key by its key: the caller's own, or a service user's (each service user's keys are read). */
const apiKeyDelete = (params: Params): Said =>
  Effect.gen(function* () {
    const key = text(params.key) ?? ""
    const users = yield* read("read", "ListUsers", { service_users: "Only" })
    for (const u of Array.isArray(users) ? users : []) {
      const keys = yield* read("read", "ListApiKeysForServiceUser", { user: idOf(u) ?? "" })
      const found = (Array.isArray(keys) ? keys : []).find((k) => field(k, "key") === key)
      if (found !== undefined)
        return `This deletes the API key ${quote(text(field(found, "name")) ?? key)} (${word(key)}) of the service user ${quote(nameOfUser(u, ""))}: whatever uses it is refused from then on.`
    }
    return yield* Effect.fail(`no service user holds the key ${word(key)}`)
  })

const onboardingKeyDelete = (params: Params): Said =>
  Effect.gen(function* () {
    const key = text(params.public_key) ?? ""
    const keys = yield* read("read", "ListOnboardingKeys", {})
    const found = (Array.isArray(keys) ? keys : []).find((k) => field(k, "public_key") === key)
    if (found === undefined) return yield* Effect.fail(`no onboarding key has the public key ${word(key)}`)
    const onboarded = strings(field(found, "onboarded")).length
    const state = field(found, "enabled") === false ? "disabled" : "enabled"
    return `This deletes the onboarding key ${quote(text(field(found, "name")) ?? key)} (${state}, ${onboarded} ${onboarded === 1 ? "server" : "servers"} onboarded with it): no new server can join with it.`
  })

const apiKeyCreate = (params: Params): Said =>
  Effect.map(user(text(params.user_id) ?? ""), (found) => {
    const type = text(field(field(found, "config"), "type"))
    return `This makes the API key ${quote(text(params.name) ?? "")} for the ${type === "Service" ? "service user" : "user"} ${quote(nameOfUser(found, text(params.user_id) ?? ""))}.`
  })

/** A plan that says in words what `said` reads of the call, or why it could not be read. */
const access = (said: (params: Params) => Said): Preview => ({
  plan: ({ invocation }) =>
    Effect.map(
      Effect.either(said(invocation.body)),
      (words): AccessPlan => ({ _tag: "Access", selector: invocation.selector, said: words }),
    ),
})

/** The previews here, each named for what it changes (Previews.ts keys them by endpoint). */
export const ON_TARGET = access(onTarget)
export const ON_TYPE = access(onType)
export const ADMIN = access(admin)
export const BASE_PERMISSIONS = access(base)
export const ADD_USER = access(addUser)
export const REMOVE_USER = access(removeUser)
export const SET_USERS = access(setUsers)
export const EVERYONE = access(everyone)
export const API_KEY_CREATE = access(apiKeyCreate)
export const API_KEY_DELETE = access(apiKeyDelete)
export const ONBOARDING_KEY_DELETE = access(onboardingKeyDelete)
