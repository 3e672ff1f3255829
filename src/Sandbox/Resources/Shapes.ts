/**
 * A resource as the service answers it, in the shapes its definitions give: the whole record a Get
 * (and a Create, Update, Delete, Copy) answers, its config complete at the defaults, and the item
 * a List answers, with what each type's list item says beyond its record.
 */

import { imageOf, stackServices } from "../World/Lifecycle.js"
import { isResource, type Kind, kinds } from "../World/ResourceTypes.js"
import { isRecord, type ServiceSchema } from "../World/Schema.js"
import type { Resource, Store } from "../World/Store.js"
import type { World } from "../World/World.js"

const oid = (id: string) => ({ $oid: id })

const recordSchema = (definitions: ServiceSchema, kind: Kind) => {
  const found = definitions.endpointSchema(`read/Get${kinds[kind].target}`, "response")
  if (found === undefined) throw new Error(`no definition of read/Get${kinds[kind].target}`)
  return found.schema
}

const listInfoSchema = (definitions: ServiceSchema, kind: Kind) => {
  const list = definitions.endpointSchema(`read/List${kinds[kind].plural}`, "response")
  const item = list?.schema.items
  return item === undefined ? undefined : definitions.property(item, "info")
}

/** A config as the service stores and answers it: every field present, those not given at their defaults. */
const completeConfig = (definitions: ServiceSchema, kind: Kind, config: Record<string, unknown>) => {
  const schema = definitions.property(recordSchema(definitions, kind), "config")
  return (schema === undefined ? config : definitions.complete(schema, config, true)) as Record<string, unknown>
}

/** A resource's whole config, every field present, as the service stores and answers it. */
export const fullConfig = (definitions: ServiceSchema, kind: Kind, r: Resource): Record<string, unknown> =>
  completeConfig(definitions, kind, r.config)

/** A config of nothing but defaults, as a new resource of the kind has it. */
export const defaultConfig = (definitions: ServiceSchema, kind: Kind): Record<string, unknown> =>
  completeConfig(definitions, kind, {})

const serverName = (store: Store, id: unknown) =>
  typeof id === "string" && id !== "" ? store.all("server").find((s) => s.id === id)?.name : undefined

const repoLink = (config: Record<string, unknown>) =>
  typeof config.repo === "string" && config.repo !== ""
    ? `https://${String(config.git_provider || "github.com")}/${config.repo}`
    : ""

/** A stack's status as its containers are now: how many are in each state (`3 running`), empty with none. */
const statusOfStack = (world: World, stack: Resource): string => {
  const counts = new Map<string, number>()
  for (const c of world.allContainers()) {
    if (c.owner?.id === stack.id) counts.set(c.state, (counts.get(c.state) ?? 0) + 1)
  }
  return [...counts].map(([state, count]) => `${count} ${state}`).join(", ")
}

/**
 * Of a deployment of a build's image, the build and the image as its list item names them: the
 * build's name and the version deployed (the build's own where the config gives none, 0.0.0).
 */
const builtFrom = (store: Store, config: Record<string, unknown>) => {
  const image = isRecord(config.image) ? config.image : {}
  const params = isRecord(image.params) ? image.params : {}
  if (image.type !== "Build") return {}
  const build = store.all("build").find((b) => b.id === params.build_id)
  const given = isRecord(params.version) ? params.version : {}
  const none = [given.major, given.minor, given.patch].every((n) => n === undefined || n === 0)
  const version = (none ? build?.config.version : given) as { major?: number; minor?: number; patch?: number }
  return {
    build_id: build?.id ?? "",
    image: `${build?.name ?? "unknown"}:${version?.major ?? 0}.${version?.minor ?? 0}.${version?.patch ?? 0}`,
  }
}

/** What each type's list item says beyond the fields its config and info share with it. */
const listExtras = (world: World, kind: Kind, r: Resource, config: Record<string, unknown>) => {
  const { store } = world
  const state = r.info.state
  const common = { state, server_name: serverName(store, config.server_id), repo_link: repoLink(config) }
  switch (kind) {
    case "stack":
      return {
        ...common,
        status: statusOfStack(world, r),
        file_contents: config.file_contents !== "",
        services: stackServices(r).map(({ service, image }) => {
          return {
            service,
            image,
            update_available: r.info.update_checked === true && world.docker.newerImages.has(image),
          }
        }),
      }
    case "deployment":
      return {
        ...common,
        image: imageOf(r),
        update_available: r.info.update_checked === true && world.docker.newerImages.has(imageOf(r)),
        ...builtFrom(store, config),
      }
    case "procedure":
      return { state, stages: Array.isArray(config.stages) ? config.stages.length : 0 }
    case "alerter":
      return { enabled: config.enabled, endpoint_type: isRecord(config.endpoint) ? config.endpoint.type : "Custom" }
    case "builder":
      return { builder_type: config.type }
    default:
      return common
  }
}

/** What List* answers for one resource. */
export const listItem = (definitions: ServiceSchema, world: World, kind: Kind, r: Resource): unknown => {
  if (!isResource(kind)) return full(definitions, kind, r)
  const config = fullConfig(definitions, kind, r)
  const infoSchema = listInfoSchema(definitions, kind) ?? {}
  const info = {
    ...definitions.pick(infoSchema, config),
    ...definitions.pick(infoSchema, r.info),
    ...definitions.pick(infoSchema, listExtras(world, kind, r, config)),
  }
  return {
    id: r.id,
    type: kinds[kind].target,
    name: r.name,
    template: r.template === true,
    tags: r.tags,
    info: definitions.complete(infoSchema, info),
  }
}

/** What Get* (and Create, Update, Delete, Copy) answers: the whole record. */
export const full = (definitions: ServiceSchema, kind: Kind, r: Resource): unknown => {
  const schema = recordSchema(definitions, kind)
  switch (kind) {
    case "variable":
      return definitions.complete(schema, { name: r.name, ...r.config })
    case "tag":
      return definitions.complete(schema, { _id: oid(r.id), name: r.name, ...r.config })
    case "user_group":
      return definitions.complete(schema, { _id: oid(r.id), name: r.name, ...r.config, updated_at: r.updated_at })
    case "git_provider_account":
    case "image_registry_account":
      return definitions.complete(schema, { _id: oid(r.id), ...r.config })
  }
  const infoSchema = definitions.property(schema, "info")
  const info = infoSchema === undefined || infoSchema.not !== undefined ? undefined : infoSchema
  return {
    _id: oid(r.id),
    name: r.name,
    description: r.description,
    template: r.template === true,
    tags: r.tags,
    config: fullConfig(definitions, kind, r),
    ...(info === undefined ? {} : { info: definitions.complete(info, definitions.pick(info, r.info)) }),
    base_permission: "None",
    updated_at: r.updated_at,
  }
}
