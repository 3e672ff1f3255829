/**
 * What minting asks of the service, with the server's own (admin)
 * credentials: the service users it made, one named for each person; their
 * permissions set to exactly a grant; their API keys made, listed and deleted.
 * Each is one endpoint the service's definitions name (FindUser,
 * CreateServiceUser, UpdatePermissionOnResourceType, UpdatePermissionOnTarget,
 * ListUserTargetPermissions, CreateApiKeyForServiceUser,
 * ListApiKeysForServiceUser, DeleteApiKeyForServiceUser).
 *
 * A person's service user is looked up by its name (FindUser), never found in
 * a list: the service's list of users grows with every person ever minted for.
 * The list itself (`svc-mcp people`, a reload's check) is read whole, past
 * SVC_MAX_ANSWER_BYTES up to SvcClient's WHOLE_TIMES that cap; longer still, it
 * is read as far as the cap and said to be cut.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"
import { RESOURCE_TYPES } from "../Kinds/Kinds.js"
import { type SvcError, SvcResponseError, SvcServiceError } from "../Service/Errors.js"
import { isObject } from "../Shared/JsonShape.js"
import type { Group, SvcClientShape } from "../SvcClient.js"

/** The service users minting makes are named `svc-mcp:<person>`, so that they stand apart from the team's own. */
export const USER_PREFIX = "svc-mcp:"

export const usernameOf = (person: string): string => `${USER_PREFIX}${person}`

/** The grant in words: the service user's description, which says whom it acts for and with what, and is compared on reload. */
export const describe = (person: string, grant: CallContext.Grant): string =>
  `svc-mcp mints this user's keys for ${person}: ${grant.level} ${
    grant.targets.length === 0 ? "on every resource" : `on ${grant.targets.map((t) => `${t.type}:${t.id}`).join(", ")}`
  }`

export interface ServiceUser {
  readonly id: string
  readonly username: string
  readonly enabled: boolean
  readonly description: string
}

export interface KeyInfo {
  readonly key: string
  readonly created: number
  readonly expires: number
}

export interface NewKey {
  readonly key: string
  readonly secret: string
}

const text = (value: unknown): string => (typeof value === "string" ? value : "")

const userOf = (value: unknown): ServiceUser | undefined => {
  if (!isObject(value)) return undefined
  const id = isObject(value._id) ? text(value._id.$oid) : text(value._id)
  const config = isObject(value.config) && isObject(value.config.data) ? value.config.data : {}
  if (id === "" || typeof value.username !== "string") return undefined
  return { id, username: value.username, enabled: value.enabled !== false, description: text(config.description) }
}

const keyOf = (value: unknown): KeyInfo | undefined =>
  isObject(value) && typeof value.key === "string"
    ? {
        key: value.key,
        created: typeof value.created_at === "number" ? value.created_at : 0,
        expires: typeof value.expires === "number" ? value.expires : 0,
      }
    : undefined

const list = <A>(value: unknown, of: (item: unknown) => A | undefined): ReadonlyArray<A> =>
  Array.isArray(value) ? value.flatMap((item) => of(item) ?? []) : []

/** The service users minting made, as far as the service's list was read: `cut` when it could not be read whole. */
export interface Listed {
  readonly users: ReadonlyArray<ServiceUser>
  readonly cut: boolean
}

export interface MintService {
  /** The service users minting made (named `svc-mcp:`...), as far as the list was read. */
  readonly users: Effect.Effect<Listed, SvcError>
  /** The service user of this name, by name; none when the service has none. */
  readonly find: (username: string) => Effect.Effect<Option.Option<ServiceUser>, SvcError>
  /**
   * The person's service user, found by its name, made if there is none (after `onNew`, which may
   * refuse), its description set to `description`.
   */
  readonly ensureUser: <E>(
    person: string,
    description: string,
    onNew: Effect.Effect<void, E>,
  ) => Effect.Effect<ServiceUser, SvcError | E>
  /** The user's permissions made exactly the grant's: its level on every type, or on its targets alone. */
  readonly grant: (userId: string, grant: CallContext.Grant) => Effect.Effect<void, SvcError>
  readonly createKey: (userId: string, expires: number) => Effect.Effect<NewKey, SvcError>
  readonly keys: (userId: string) => Effect.Effect<ReadonlyArray<KeyInfo>, SvcError>
  readonly deleteKey: (key: string) => Effect.Effect<void, SvcError>
  /**
   * Whether the credentials `client` sends are an admin's, as minting needs: none if they are, else
   * why not. The user is found by its login name, else by the user of the API key it sends.
   */
  readonly admin: (login: string | undefined) => Effect.Effect<string | undefined>
  /** The user may no longer authenticate, with any key (UpdateUserBasePermissions). */
  readonly disable: (userId: string) => Effect.Effect<void, SvcError>
}

type Call = (group: Group, endpoint: string, params: object) => Effect.Effect<unknown, SvcError>

/** The user's permissions made exactly the grant's. */
const grantWith = (call: Call) => (userId: string, grant: CallContext.Grant) =>
  Effect.gen(function* () {
    const user_target = { type: "User", id: userId }
    const onTypes = grant.targets.length === 0 ? grant.level : "None"
    yield* Effect.forEach(
      RESOURCE_TYPES,
      (resource_type) =>
        call("write", "UpdatePermissionOnResourceType", { user_target, resource_type, permission: onTypes }),
      { concurrency: 4, discard: true },
    )
    // Targets given before lose their level first (the service names them by id, a grant may by name),
    // then the grant's own get it.
    const held = yield* call("read", "ListUserTargetPermissions", { user_target })
    const stale = list(held, (item) =>
      isObject(item) && isObject(item.resource_target) && item.level !== "None" ? item.resource_target : undefined,
    )
    yield* Effect.forEach(
      stale,
      (resource_target) =>
        call("write", "UpdatePermissionOnTarget", { user_target, resource_target, permission: "None" }),
      { concurrency: 4, discard: true },
    )
    yield* Effect.forEach(
      grant.targets,
      (t) =>
        call("write", "UpdatePermissionOnTarget", {
          user_target,
          resource_target: { type: t.type, id: t.id },
          permission: grant.level,
        }),
      { concurrency: 4, discard: true },
    )
  })

/** Whether the credentials are an admin's: none if they are, else why not. */
const adminWith = (call: Call) => (login: string | undefined) =>
  Effect.gen(function* () {
    const own =
      login === undefined
        ? list(yield* call("read", "ListApiKeys", {}), (k) => (isObject(k) ? text(k.user_id) : undefined))[0]
        : undefined
    const user = yield* call("read", "FindUser", login === undefined ? { id: own ?? "" } : { username: login })
    return isObject(user) && (user.admin === true || user.super_admin === true)
      ? undefined
      : "the server's credentials are not an admin's; minting needs an admin's API key (SVC_API_KEY)"
  }).pipe(
    Effect.catchAll((error) =>
      Effect.succeed(`the server's credentials cannot read users, as minting needs an admin's (${error.message})`),
    ),
  )

/**
 * The service's answer to a FindUser that names no user: an error (500, as its not-found errors
 * are) whose text says it did not find one. Any other failure is a failure.
 */
export const isNotFound = (error: SvcError): boolean =>
  error instanceof SvcServiceError &&
  error.reason === "Status" &&
  (error.status === 404 || error.status === 500) &&
  /did not find|not found|no user/i.test(error.error)

/** Two replicas made the same user at once: the second is told its name is taken. */
const isTaken = (error: SvcError): boolean =>
  error instanceof SvcServiceError && error.reason === "Status" && /already (taken|exists)/i.test(error.error)

/**
 * The minted users, read whole (up to WHOLE_TIMES the answer cap), so that no one past the cap is
 * missed; a list longer still is read as far as the cap, and said to be cut.
 */
const usersWith = (client: SvcClientShape) => {
  const listUsers = (reading: "shown" | "whole") =>
    CallContext.within(CallContext.empty)(client.answer("read", "ListUsers", { service_users: "Only" }, reading))
  return Effect.map(
    listUsers("whole").pipe(
      Effect.catchIf(
        (error) => error instanceof SvcResponseError && error.reason === "NotWhole",
        () => listUsers("shown"),
      ),
    ),
    (reply): Listed => ({
      users: list(reply.value, userOf).filter((user) => user.username.startsWith(USER_PREFIX)),
      cut: reply.cut !== undefined,
    }),
  )
}

/** Minting's calls through `client`, whose Auth sends the server's own credentials, outside any person's call. */
export const make = (client: SvcClientShape): MintService => {
  const call: Call = (group, endpoint, params) =>
    CallContext.within(CallContext.empty)(client.call(group, endpoint, params))
  const find = (username: string) =>
    call("read", "FindUser", { username }).pipe(
      Effect.map((value) => Option.filter(Option.fromNullable(userOf(value)), (u) => u.username === username)),
      Effect.catchIf(isNotFound, () => Effect.succeedNone),
    )
  const create = (username: string, description: string) =>
    call("write", "CreateServiceUser", { username, description }).pipe(
      Effect.map((made) => Option.fromNullable(userOf(made))),
      // Made by another replica since it was looked up: the one it made.
      Effect.catchIf(isTaken, () => find(username)),
    )
  const ensureUser = <E>(person: string, description: string, onNew: Effect.Effect<void, E>) =>
    Effect.gen(function* () {
      const username = usernameOf(person)
      const found = Option.getOrUndefined(yield* find(username))
      if (found === undefined) {
        yield* onNew
        const made = yield* create(username, description)
        return Option.getOrElse(made, () => ({ id: "", username, enabled: true, description }))
      }
      if (found.description !== description) {
        yield* call("write", "UpdateServiceUserDescription", { username, description })
      }
      return { ...found, description }
    })
  return {
    admin: adminWith(call),
    users: usersWith(client),
    find,
    ensureUser,
    grant: grantWith(call),
    createKey: (userId, expires) =>
      Effect.map(
        call("write", "CreateApiKeyForServiceUser", {
          user_id: userId,
          name: `svc-mcp ${new Date().toISOString()}`,
          expires,
        }),
        (value) => (isObject(value) ? { key: text(value.key), secret: text(value.secret) } : { key: "", secret: "" }),
      ),
    keys: (userId) =>
      Effect.map(call("read", "ListApiKeysForServiceUser", { user: userId }), (value) => list(value, keyOf)),
    deleteKey: (key) => Effect.asVoid(call("write", "DeleteApiKeyForServiceUser", { key })),
    disable: (userId) => Effect.asVoid(call("write", "UpdateUserBasePermissions", { user_id: userId, enabled: false })),
  }
}
