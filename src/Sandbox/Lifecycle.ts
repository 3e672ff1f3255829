/**
 * How a stack's or deployment's state shows on its server: its containers,
 * and the log lines a deploy writes.
 */
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

/** The top-level service names of a compose file's `services:` section. */
export const composeOf = (contents: string): ReadonlyArray<string> => {
  const names: Array<string> = []
  let inServices = false
  for (const line of contents.split("\n")) {
    if (/^services:\s*$/.test(line)) inServices = true
    else if (/^\S/.test(line)) inServices = false
    else if (inServices) {
      const name = /^ {2}([\w.-]+):/.exec(line)?.[1]
      if (name !== undefined) names.push(name)
    }
  }
  return names
}

/**
 * The services of a stack: those of its compose file when written in its config, else the
 * ones its (seeded) repository holds, else one named `app`. A deployment is one service.
 */
export const servicesOf = (stack: Resource): ReadonlyArray<string> => {
  const contents = stack.config.file_contents
  const written = typeof contents === "string" ? composeOf(contents) : []
  if (written.length > 0) return written
  // A compose file written to its repository (WriteStackFileContents) or read from it (RefreshStackCache).
  const remote = Array.isArray(stack.info.remote_contents)
    ? (stack.info.remote_contents as Array<{ contents?: unknown }>)
    : []
  const committed = remote.flatMap((f) => (typeof f.contents === "string" ? composeOf(f.contents) : []))
  if (committed.length > 0) return committed
  const known = stack.info.compose_services
  return Array.isArray(known) && known.length > 0 ? (known as Array<string>) : ["app"]
}

/** The image of each service of a stack, or of a deployment. */
export const imagesOf = (r: Resource): ReadonlyArray<{ service: string; image: string }> =>
  typeof r.config.image === "object" && r.config.image !== null
    ? [{ service: r.name, image: imageOf(r) }]
    : servicesOf(r).map((service) => ({
        service,
        image: `${String(r.info.image_prefix ?? "library")}/${service}:latest`,
      }))

/** What a deploy runs: the config and the compose files it holds; a later change of either is a change to deploy. */
export const snapshotOf = (r: Resource): string =>
  Array.isArray(r.info.remote_contents) ? JSON.stringify([r.config, r.info.remote_contents]) : JSON.stringify(r.config)

const containerState = (state: RunState): Container["state"] =>
  state === "running" ? "running" : state === "paused" ? "paused" : "exited"

const STATUS: Readonly<Record<Container["state"], string>> = {
  running: "Up 2 minutes",
  paused: "Up 2 minutes (Paused)",
  restarting: "Restarting (1) 8 seconds ago",
  exited: "Exited (0) 5 seconds ago",
  created: "Created",
  removing: "Removing",
}
const statusText = (state: Container["state"]) => STATUS[state]

/** How a deployment's image fails, if it crash-loops under its config: a setting it needs that its environment lacks. */
export const crashOf = (world: World, r: Resource): Crash | undefined => {
  if (typeof r.config.image !== "object" || r.config.image === null) return undefined
  const crash = world.crashing.get(imageOf(r))
  const environment = typeof r.config.environment === "string" ? r.config.environment : ""
  return crash !== undefined && !new RegExp(`^\\s*${crash.missing}=\\S`, "m").test(environment) ? crash : undefined
}

const hex = (text: string) => {
  let h = 0x811c9dc5
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0
  return h.toString(16).padStart(8, "0")
}

export const logKey = (kind: "stack" | "deployment", r: Resource) => `${kind}:${r.id}`

/** Sets the containers of a stack or deployment on its server to match `state`. */
export const place = (world: World, kind: "stack" | "deployment", r: Resource, state: RunState): void => {
  const serverId = String(r.config.server_id ?? "")
  const server = world.store.all("server").find((s) => s.id === serverId || s.name === serverId)
  if (server === undefined) return
  const all = world.containersOn(server)
  const mine = all.filter((c) => c.owner?.id === r.id)
  for (const c of mine) all.splice(all.indexOf(c), 1)
  if (state === "down") return
  const services = kind === "stack" ? servicesOf(r) : [r.name]
  for (const service of services) {
    const name = kind === "stack" ? `${r.name}-${service}-1` : r.name
    const image = kind === "deployment" ? imageOf(r) : `${String(r.info.image_prefix ?? "library")}/${service}:latest`
    const s = state === "running" && crashOf(world, r) !== undefined ? "restarting" : containerState(state)
    all.push({
      server_id: server.id,
      name,
      // 64 hex digits as docker's, the same each run: all but the second 8 named by the container and its service.
      id: [name, server.id, `${name}/${service}`, ...[1, 2, 3, 4, 5].map((n) => `${name}/${service}/${n}`)]
        .map(hex)
        .join(""),
      image,
      state: s,
      status: statusText(s),
      networks: [kind === "stack" ? `${r.name}_default` : "bridge"],
      ports: [{ PrivatePort: 8080, Type: "tcp" }],
      volumes: [],
      owner: { kind, id: r.id, service },
    })
  }
}

/** Sets a container's state, as the container lifecycle operations do. */
export const setContainer = (c: Container, state: Container["state"]): void => {
  c.state = state
  c.status = statusText(state)
}

/** The log lines a deploy or start writes for each service. */
export const writeStartLogs = (world: World, kind: "stack" | "deployment", r: Resource): void => {
  const crash = crashOf(world, r)
  if (crash !== undefined) {
    // Docker restarts it, and it fails the same way each time.
    for (let i = 0; i < 3; i++) world.log(logKey(kind, r), r.name, ...crash.lines)
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
