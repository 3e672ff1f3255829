/**
 * What the service keeps about resources beside their config: tags,
 * description and template flag (UpdateResourceMeta), tags that leave every
 * resource when deleted, the exports to TOML, and the small writes of
 * settings (a variable's description and secrecy, a registry account's
 * removal, a sync's rename, a container adopted as a deployment).
 */

import { kindOfTarget, may, requireLevel } from "../World/Permissions.js"
import { type Kind, kinds, resourceKinds } from "../World/ResourceTypes.js"
import { isRecord } from "../World/Schema.js"
import { adminOnly, type Caller, type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import type { World } from "../World/World.js"
import type { Handler } from "./Resources.js"
import { defaultConfig, full, fullConfig } from "./Shapes.js"
import { leavesOf, lines } from "./SyncToml.js"

/** The resource a `{type, id}` target names (by id or name), and its kind. */
const targetOf = (world: World, target: unknown): { kind: Kind; resource: Resource } => {
  const { type, id } = (isRecord(target) ? target : {}) as { type?: string; id?: string }
  const kind = kindOfTarget(String(type))
  if (kind === undefined) throw new ServiceFailure(400, `${String(type)} is not a resource: it has no meta`)
  return { kind, resource: world.store.find(kind, String(id ?? "")) }
}

/** Tags by id or name; a name no tag has is made a new tag, as the service makes it. */
const tagIds = (world: World, tags: ReadonlyArray<unknown>, caller: Caller): Array<string> => {
  const ids: Array<string> = []
  for (const entry of tags) {
    const wanted = String(entry).trim()
    if (wanted === "") continue
    const found = world.store.all("tag").find((t) => t.id === wanted || t.name === wanted)
    const id = found?.id ?? world.store.create("tag", wanted, { config: { color: "Slate", owner: caller.id } }).id
    if (!ids.includes(id)) ids.push(id)
  }
  return ids
}

const metaRoutes = (world: World, add: (endpoint: string, handler: Handler) => void) => {
  const { store, schema } = world
  add("write/UpdateResourceMeta", (p, caller) => {
    const { kind, resource } = targetOf(world, p.target)
    requireLevel(world, caller, kind, resource, "Write")
    if (typeof p.description === "string") resource.description = p.description
    if (typeof p.template === "boolean") resource.template = p.template
    if (Array.isArray(p.tags)) resource.tags = tagIds(world, p.tags, caller)
    resource.updated_at = world.now()
    return {}
  })
  // The service removes a deleted tag from every resource that carries it.
  add("write/DeleteTag", (p, caller) => {
    adminOnly(caller)
    const tag = store.delete("tag", ref(p, "id"))
    for (const kind of resourceKinds) {
      for (const r of store.all(kind)) r.tags = r.tags.filter((id) => id !== tag.id)
    }
    return full(schema, "tag", tag)
  })
  add("write/PushRecentlyViewed", (p, caller) => {
    const { kind, resource } = targetOf(world, p.resource)
    const user = world.user(caller.id)
    const type = kinds[kind].target
    const recents = { ...user.recents }
    recents[type] = [resource.id, ...(recents[type] ?? []).filter((id) => id !== resource.id)].slice(0, 10)
    user.recents = recents
    return {}
  })
  add("write/SetLastSeenUpdate", (_p, caller) => {
    world.user(caller.id).last_update_view = world.now()
    return {}
  })
}

const settingRoutes = (world: World, add: (endpoint: string, handler: Handler) => void) => {
  const { store, schema } = world
  for (const field of ["description", "is_secret"] as const) {
    add(`write/UpdateVariable${field === "description" ? "Description" : "IsSecret"}`, (p, caller) => {
      adminOnly(caller)
      const variable = store.find("variable", ref(p, "name"))
      variable.config = { ...variable.config, [field]: p[field] }
      return full(schema, "variable", variable)
    })
  }
  add("write/DeleteImageRegistryAccount", (p, caller) => {
    adminOnly(caller)
    return full(schema, "image_registry_account", store.delete("image_registry_account", ref(p, "id")))
  })
  add("write/RenameResourceSync", (p, caller) => {
    const sync = store.find("sync_resource", ref(p, "id"))
    requireLevel(world, caller, "sync_resource", sync, "Write")
    const before = sync.name
    store.rename("sync_resource", sync.id, ref(p, "name"))
    const update = world.newUpdate("RenameResourceSync", { type: "ResourceSync", id: sync.id }, caller.id)
    world.finish(update, "Rename", "", [`Renamed ResourceSync from ${before} to ${sync.name}`], true)
    return update
  })
  add("write/CreateDeploymentFromContainer", (p, caller) => {
    adminOnly(caller)
    const { server, container } = world.container(ref(p, "server"), ref(p, "name"))
    const deployment = store.create("deployment", container.name, {
      config: { server_id: server.id, image: { type: "Image", params: { image: container.image } } },
      info: { state: container.state === "running" ? "running" : "exited" },
    })
    // A container of no stack or deployment becomes the new deployment's own.
    if (container.owner === undefined) {
      Object.assign(container, { owner: { kind: "deployment", id: deployment.id, service: container.name } })
    }
    return full(schema, "deployment", deployment)
  })
}

/** Config fields that hold another resource's id, and the name and kind the export writes them by. */
const NAMED: Readonly<Record<string, readonly [string, Kind]>> = {
  server_id: ["server", "server"],
  builder_id: ["builder", "builder"],
  swarm_id: ["swarm", "swarm"],
}

/** What a value is when nothing sets it: its type's empty value. */
const zero = (value: unknown): string =>
  JSON.stringify(
    typeof value === "string"
      ? ""
      : typeof value === "number"
        ? 0
        : typeof value === "boolean"
          ? false
          : Array.isArray(value)
            ? []
            : {},
  )

/** The fields of `r`'s config that differ from their defaults, dotted, references by name. */
const configFields = (world: World, kind: Kind, r: Resource): Array<readonly [string, unknown]> => {
  const defaults = new Map(
    leavesOf(defaultConfig(world.schema, kind)).map(([path, value]) => [path, JSON.stringify(value)]),
  )
  const leaves = leavesOf(fullConfig(world.schema, kind, r))
  const differs = (path: string, value: unknown) =>
    value !== null && value !== undefined && JSON.stringify(value) !== (defaults.get(path) ?? zero(value))
  // A variant's `type` goes with any of its params written, so that a reader knows the variant.
  const variants = new Set(
    leaves.flatMap(([path, value]) =>
      differs(path, value) && path.includes(".params.") ? [`${path.slice(0, path.indexOf(".params."))}.type`] : [],
    ),
  )
  // A list as it was given (a procedure's stages), not completed item by item.
  const given = (path: string, value: unknown) => {
    if (!Array.isArray(value)) return value
    const raw = path.split(".").reduce<unknown>((at, k) => (isRecord(at) ? at[k] : undefined), r.config)
    return Array.isArray(raw) ? raw : value
  }
  return leaves.flatMap(([path, completed]) => {
    const value = given(path, completed)
    if (!differs(path, value) && !variants.has(path)) return []
    const named = NAMED[path]
    if (named === undefined) return [[path, value] as const]
    const target = world.store.all(named[1]).find((x) => x.id === value)
    return [[named[0], target?.name ?? value] as const]
  })
}

/** A resource as the service exports it: each field that differs from its default, by name (servers and tags too). */
const tomlOf = (world: World, kind: Kind, r: Resource): string => {
  const section = kind === "sync_resource" ? "resource_sync" : kind
  const names = (ids: ReadonlyArray<string>) =>
    ids.map((id) => world.store.all("tag").find((t) => t.id === id)?.name ?? id)
  const head: Array<readonly [string, unknown]> = [["name", r.name]]
  if (r.description !== "") head.push(["description", r.description])
  if (r.tags.length > 0) head.push(["tags", names(r.tags)])
  const config = lines(configFields(world, kind, r))
  return [`[[${section}]]`, ...lines(head), ...(config.length > 0 ? ["", `[${section}.config]`, ...config] : [])].join(
    "\n",
  )
}

const variableToml = (world: World) =>
  world.store.all("variable").map((v) => {
    const description = typeof v.config.description === "string" ? v.config.description : ""
    const fields: Array<readonly [string, unknown]> = [
      ["name", v.name],
      ["value", v.config.value ?? ""],
      ...(description === "" ? [] : [["description", description] as const]),
      ...(v.config.is_secret === true ? [["is_secret", true] as const] : []),
    ]
    return ["[[variable]]", ...lines(fields)].join("\n")
  })

/** The resources (with `tags`) the caller may read, and the variables if asked, as the service exports them. */
export const exportAll = (world: World, caller: Caller, p: Params): string => {
  const { store } = world
  const tags = Array.isArray(p.tags) ? p.tags.map(String) : []
  const tagged = (r: Resource) =>
    tags.every((t) => r.tags.some((id) => id === t || store.all("tag").find((x) => x.id === id)?.name === t))
  const parts =
    p.include_resources === false
      ? []
      : resourceKinds.flatMap((kind) =>
          store
            .all(kind)
            .filter((r) => tagged(r) && may(world, caller, kind, r, "Read"))
            .map((r) => tomlOf(world, kind, r)),
        )
  if (p.include_variables === true) parts.push(...variableToml(world))
  return parts.join("\n\n")
}

const exportRoutes = (world: World, add: (endpoint: string, handler: Handler) => void) => {
  add("read/ExportAllResourcesToToml", (p, caller) => ({ toml: exportAll(world, caller, p) }))
  add("read/ExportResourcesToToml", (p, caller) => {
    const targets = Array.isArray(p.targets) ? p.targets : []
    const parts = targets.map((target) => {
      const { kind, resource } = targetOf(world, target)
      requireLevel(world, caller, kind, resource, "Read")
      return tomlOf(world, kind, resource)
    })
    if (p.include_variables === true) parts.push(...variableToml(world))
    return { toml: parts.join("\n\n") }
  })
}

export const handlers = (world: World): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const add = (endpoint: string, handler: Handler) => routes.set(endpoint, handler)
  metaRoutes(world, add)
  settingRoutes(world, add)
  exportRoutes(world, add)
  return routes
}
