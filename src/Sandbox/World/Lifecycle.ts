/**
 * How a stack's or deployment's state shows on its server: its containers,
 * and the log lines a deploy writes.
 */

import { type ComposeService, type Port, servicesIn } from "./ComposeFile.js"
import { made, moveTo } from "./Containers.js"
import type { Resource } from "./Store.js"
import type { Container, Crash, World } from "./World.js"

/** The image a deployment runs, from its `{type: "Image", params: {image}}` config. */
export const imageOf = (r: Resource): string => {
  const image = r.config.image
  const params =
    typeof image === "object" && image !== null ? (image as { params?: { image?: unknown } }).params : undefined
  if (typeof params?.image === "string" && params.image !== "") return params.image
  return `${r.name}:latest`
}

export type RunState = "running" | "stopped" | "paused" | "down"

/** The service names of a compose file. */
export const composeOf = (contents: string): ReadonlyArray<string> => servicesIn(contents).map((s) => s.name)

/** The compose file a stack runs: the one written in its config, else its repository's (written or read). */
const composeFileOf = (stack: Resource): ReadonlyArray<ComposeService> => {
  const contents = stack.config.file_contents
  const written = typeof contents === "string" ? servicesIn(contents) : []
  if (written.length > 0) return written
  const remote = Array.isArray(stack.info.remote_contents)
    ? (stack.info.remote_contents as Array<{ contents?: unknown }>)
    : []
  return remote.flatMap((f) => (typeof f.contents === "string" ? servicesIn(f.contents) : []))
}

/**
 * The services of a stack: those of its compose file, else the ones its (seeded) repository
 * holds, else one named `app`. A deployment is one service.
 */
export const servicesOf = (stack: Resource): ReadonlyArray<string> => {
  const file = composeFileOf(stack)
  if (file.length > 0) return file.map((s) => s.name)
  const known = stack.info.compose_services
  return Array.isArray(known) && known.length > 0 ? (known as Array<string>) : ["app"]
}

/** The data volumes of well-known services of a seeded stack, whose compose file the sandbox does not hold. */
const DATA_VOLUMES: Readonly<Record<string, string>> = {
  redis: "redis-data",
  prometheus: "prometheus-data",
  grafana: "grafana-data",
  postgres: "postgres-data",
}

export interface StackService {
  readonly service: string
  readonly image: string
  readonly ports: ReadonlyArray<Port>
  /** Its named volumes as compose names them: `<project>_<volume>`. */
  readonly volumes: ReadonlyArray<string>
}

/** Each service of a stack as compose runs it: its image, ports and volumes as the file declares them. */
export const stackServices = (stack: Resource): ReadonlyArray<StackService> => {
  const file = composeFileOf(stack)
  const project =
    typeof stack.config.project_name === "string" && stack.config.project_name !== ""
      ? stack.config.project_name
      : stack.name
  const prefix = String(stack.info.image_prefix ?? "library")
  return servicesOf(stack).map((service) => {
    const declared = file.find((s) => s.name === service)
    const data = DATA_VOLUMES[service]
    return {
      service,
      // A service that builds its own image runs it under compose's name for it.
      image: declared === undefined ? `${prefix}/${service}:latest` : (declared.image ?? `${project}-${service}`),
      ports: declared?.ports ?? [{ PrivatePort: 8080, Type: "tcp" }],
      volumes: (declared?.volumes ?? (data === undefined ? [] : [data])).map((v) => `${project}_${v}`),
    }
  })
}

/** The image of each service of a stack, or of a deployment. */
export const imagesOf = (r: Resource): ReadonlyArray<{ service: string; image: string }> =>
  typeof r.config.image === "object" && r.config.image !== null
    ? [{ service: r.name, image: imageOf(r) }]
    : stackServices(r).map(({ service, image }) => ({ service, image }))

/** What a deploy runs: the config and the compose files it holds; a later change of either is a change to deploy. */
export const snapshotOf = (r: Resource): string =>
  Array.isArray(r.info.remote_contents) ? JSON.stringify([r.config, r.info.remote_contents]) : JSON.stringify(r.config)

const containerState = (state: RunState): Container["state"] =>
  state === "running" ? "running" : state === "paused" ? "paused" : "exited"
/** How a deployment's image fails, if it crash-loops under its config: a setting it needs that its environment lacks. */
export const crashOf = (world: World, r: Resource): Crash | undefined => {
  if (typeof r.config.image !== "object" || r.config.image === null) return undefined
  const crash = world.docker.crashing.get(imageOf(r))
  const environment = typeof r.config.environment === "string" ? r.config.environment : ""
  return crash !== undefined && !new RegExp(`^\\s*${crash.missing}=\\S`, "m").test(environment) ? crash : undefined
}

export const logKey = (kind: "stack" | "deployment", r: Resource) => `${kind}:${r.id}`

/** What a deploy or a restart does to a service's container: makes it anew, restarts it, or leaves it be. */
export type Renewal = "new" | "restart" | "keep"

/** What each service's container runs: its image, the network, ports and volumes it is made with. */
const specsOf = (kind: "stack" | "deployment", r: Resource) =>
  kind === "stack"
    ? stackServices(r).map(({ service, image, ports, volumes }) => ({
        service,
        name: `${r.name}-${service}-1`,
        image,
        networks: [`${r.name}_default`],
        ports,
        volumes,
      }))
    : [
        {
          service: r.name,
          name: r.name,
          image: imageOf(r),
          networks: ["bridge"],
          ports: [{ PrivatePort: 8080, Type: "tcp" }],
          volumes: [],
        },
      ]

/**
 * Sets the containers of a stack or deployment on its server to match `state`: a service
 * `renew` says is new gets a new container, made now; the others move to the state.
 */
export const place = (
  world: World,
  kind: "stack" | "deployment",
  r: Resource,
  state: RunState,
  renew: (service: string) => Renewal = () => "keep",
): void => {
  const serverId = String(r.config.server_id ?? "")
  const server = world.store.all("server").find((s) => s.id === serverId || s.name === serverId)
  if (server === undefined) return
  const all = world.containersOn(server)
  const specs = state === "down" ? [] : specsOf(kind, r)
  for (const c of all.filter((c) => c.owner?.id === r.id)) {
    const spec = specs.find((s) => s.service === c.owner?.service)
    if (spec === undefined || renew(spec.service) === "new" || spec.image !== c.image) all.splice(all.indexOf(c), 1)
  }
  for (const { service, ...spec } of specs) {
    let c = all.find((c) => c.owner?.id === r.id && c.owner.service === service)
    if (c === undefined) {
      c = made(world, server, { ...spec, owner: { kind, id: r.id, service } })
      world.docker.add(all, c)
    }
    moveTo(world, c, containerState(state), renew(service) === "restart")
  }
}

/**
 * What the service reads of its resources once containers are gone by docker's hand (a prune, a
 * removal): a deployment without its container is not deployed, a stack without any is down.
 */
export const removed = (world: World, gone: ReadonlyArray<Container>): void => {
  for (const c of gone) {
    const owner = c.owner
    if (owner === undefined) continue
    const r = world.store.all(owner.kind).find((x) => x.id === owner.id)
    if (r === undefined || world.allContainers().some((x) => x.owner?.id === r.id)) continue
    r.info = { ...r.info, state: owner.kind === "deployment" ? "not_deployed" : "down" }
  }
}

/** Sets a container's state, as the container lifecycle operations do: a crash-looping one restarts again. */
export const setContainer = (world: World, c: Container, state: Container["state"], restart = false): void => {
  const owner = c.owner === undefined ? undefined : world.store.all(c.owner.kind).find((r) => r.id === c.owner?.id)
  const crashing = state === "running" && owner !== undefined && crashOf(world, owner) !== undefined
  moveTo(world, c, crashing ? "restarting" : state, restart)
}

/** One crash of a crash-looping deployment: its lines logged, its container exited and restarting. */
export const crashed = (world: World, kind: "stack" | "deployment", r: Resource, crash: Crash): void => {
  world.log(logKey(kind, r), r.name, ...crash.lines)
  for (const c of world.allContainers().filter((c) => c.owner?.id === r.id)) moveTo(world, c, "restarting")
}

/** The log lines a deploy or start writes for each service. */
export const writeStartLogs = (world: World, kind: "stack" | "deployment", r: Resource): void => {
  const crash = crashOf(world, r)
  if (crash !== undefined) {
    // Docker restarts it, and it fails the same way each time.
    for (let i = 0; i < 3; i++) crashed(world, kind, r, crash)
    return
  }
  const services = kind === "stack" ? servicesOf(r) : [r.name]
  for (const service of services) {
    world.log(
      logKey(kind, r),
      service,
      `${service} | starting ${service}`,
      `${service} | listening on 0.0.0.0:8080`,
      `${service} | ready to accept connections`,
    )
  }
}
