/**
 * The sandbox's resources, in memory: unique names per type, ids like the
 * service's ObjectIds, and failures in the service's shape.
 */
import { type Kind, kinds } from "./ResourceTypes.js"

/** A failure the sandbox answers as `{error, trace}` with this status. */
export class ServiceFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly trace: ReadonlyArray<string> = [],
  ) {
    super(error)
  }
}

/** serde's words, as the service answers a body without a field it needs. */
export const missingField = (field: string) => new ServiceFailure(500, `missing field \`${field}\``)

/** Who makes a call: the user its API key or token belongs to. */
export interface Caller {
  readonly id: string
  readonly username: string
  readonly admin: boolean
}

export type PermissionLevel = "Read" | "Execute" | "Write"

/** As the service refuses a user without the level a call needs on a resource (a 500, as most of its errors). */
export const lacks = (target: string, level: PermissionLevel) =>
  new ServiceFailure(
    500,
    `User does not have required permissions on this ${target}. Must have at least ${level} permissions`,
  )

/** As the service refuses a non-admin a call that only admins may make. */
export const adminOnly = (caller: Caller): void => {
  if (!caller.admin) throw new ServiceFailure(500, "This call is admin-only")
}

export interface Resource {
  readonly id: string
  name: string
  description: string
  tags: Array<string>
  template?: boolean
  config: Record<string, unknown>
  info: Record<string, unknown>
  readonly created_at: number
  updated_at: number
}

export type Params = Readonly<Record<string, unknown>>

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Merges `patch` into `base` the way the service merges a partial config: objects deeply, the rest replaced. */
// fromEntries, not assignment: a key named "__proto__" stays an own field instead of becoming the prototype.
export const merge = (base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> =>
  otherVariant(base, patch)
    ? patch
    : Object.fromEntries([
        ...Object.entries(base),
        ...Object.entries(patch).map(([key, value]) => {
          const current = Object.hasOwn(base, key) ? base[key] : undefined
          return [key, isRecord(current) && isRecord(value) ? merge(current, value) : value]
        }),
      ])

/** A tagged value (`{ type, params }`: a builder's, an alerter's endpoint) of another variant replaces the old one whole. */
const otherVariant = (base: Record<string, unknown>, patch: Record<string, unknown>) =>
  typeof patch.type === "string" &&
  typeof base.type === "string" &&
  patch.type !== base.type &&
  Object.hasOwn(patch, "params") &&
  Object.hasOwn(base, "params")

/** The first of `keys` that `params` holds as a non-empty string. */
export const ref = (params: Params, ...keys: ReadonlyArray<string>): string => {
  for (const key of keys) {
    const value = params[key]
    if (typeof value === "string" && value !== "") return value
  }
  throw missingField(keys[0] ?? "id")
}

/** The params' `config`, already decoded against the endpoint's definition. */
export const configOf = (params: Params): Record<string, unknown> => (isRecord(params.config) ? params.config : {})

export class Store {
  private readonly resources = new Map<Kind, Map<string, Resource>>()
  private counter = 0
  private readonly epoch: number

  constructor(readonly now: () => number = Date.now) {
    this.epoch = Math.floor(now() / 1000)
  }

  /** An id in the form of a MongoDB ObjectId: 24 hex digits, increasing. */
  newId(): string {
    const time = this.epoch.toString(16).padStart(8, "0")
    return `${time}${(++this.counter).toString(16).padStart(16, "0")}`
  }

  all(kind: Kind): Array<Resource> {
    return [...this.table(kind).values()]
  }

  /** By id, or else by name, as the service accepts either. */
  find(kind: Kind, idOrName: string): Resource {
    const table = this.table(kind)
    const found = table.get(idOrName) ?? [...table.values()].find((r) => r.name === idOrName)
    if (found === undefined) {
      throw new ServiceFailure(500, `did not find any ${kinds[kind].target} matching ${idOrName}`, [
        `failed to get ${kinds[kind].target}`,
      ])
    }
    return found
  }

  create(kind: Kind, name: string, fields: Partial<Omit<Resource, "id" | "name">> = {}): Resource {
    if (name.trim() === "") throw new ServiceFailure(400, `${kinds[kind].target} name cannot be empty`)
    this.assertFree(kind, name)
    const now = this.now()
    const resource: Resource = {
      id: this.newId(),
      name,
      description: "",
      tags: [],
      config: {},
      info: kinds[kind].initialState === undefined ? {} : { state: kinds[kind].initialState },
      created_at: now,
      updated_at: now,
      ...fields,
    }
    this.table(kind).set(resource.id, resource)
    return resource
  }

  update(kind: Kind, idOrName: string, config: Record<string, unknown>): Resource {
    const resource = this.find(kind, idOrName)
    resource.config = merge(resource.config, config)
    resource.updated_at = this.now()
    return resource
  }

  rename(kind: Kind, idOrName: string, name: string): Resource {
    const resource = this.find(kind, idOrName)
    if (name !== resource.name) this.assertFree(kind, name)
    resource.name = name
    resource.updated_at = this.now()
    return resource
  }

  copy(kind: Kind, idOrName: string, name: string): Resource {
    const source = this.find(kind, idOrName)
    return this.create(kind, name, {
      description: source.description,
      tags: [...source.tags],
      config: structuredClone(source.config),
    })
  }

  delete(kind: Kind, idOrName: string): Resource {
    const resource = this.find(kind, idOrName)
    this.table(kind).delete(resource.id)
    return resource
  }

  private assertFree(kind: Kind, name: string): void {
    if (this.all(kind).some((r) => r.name === name)) {
      throw new ServiceFailure(500, `a ${kinds[kind].target} named ${name} already exists`, [
        `failed to create ${kinds[kind].target}`,
      ])
    }
  }

  private table(kind: Kind): Map<string, Resource> {
    let table = this.resources.get(kind)
    if (table === undefined) {
      table = new Map()
      this.resources.set(kind, table)
    }
    return table
  }
}
