/**
 * What the service does on a server beside running containers: networks it
 * creates, the keys its agent is known by (and the onboarding keys new
 * servers join with), and the terminals it keeps open on servers, stacks,
 * deployments and containers.
 */
import { randomBytes } from "node:crypto"
import { requireLevel } from "../World/Permissions.js"
import type { Kind } from "../World/ResourceTypes.js"
import { isRecord } from "../World/Schema.js"
import { adminOnly, type Caller, type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import { BOUNDS, keep, type World } from "../World/World.js"
import type { Handler } from "./Resources.js"

type Add = (endpoint: string, handler: Handler) => void

const serverRoutes = (world: World, add: Add) => {
  const server = (p: Params, caller: Caller) => {
    const s = world.store.find("server", ref(p, "server"))
    requireLevel(world, caller, "server", s, "Write")
    return s
  }
  const keyUpdate = (s: Resource, caller: Caller, key: string, line: string) => {
    s.info = { ...s.info, public_key: key }
    const update = world.newUpdate("UpdateServerKey", { type: "Server", id: s.id }, caller.id)
    world.finish(update, "Update Server Key", "", [line, `public key: ${key}`], true)
    return update
  }
  add("write/CreateNetwork", (p, caller) => {
    const s = server(p, caller)
    const name = ref(p, "name")
    const networks = world.docker.networksOn(s.id)
    const update = world.newUpdate("CreateNetwork", { type: "Server", id: s.id }, caller.id)
    const exists = networks.some((n) => n.name === name)
    if (!exists) world.docker.add(networks, { name, driver: "bridge" })
    const output = exists ? [`Error response from daemon: network with name ${name} already exists`] : [randomHex(64)]
    world.finish(update, "Create Network", `docker network create ${name}`, output, !exists)
    return update
  })
  add("write/RotateServerKeys", (p, caller) =>
    keyUpdate(server(p, caller), caller, `MCowBQYDK2VuAyEA${randomHex(16)}`, "rotated the agent's keys"),
  )
  add("write/UpdateServerPublicKey", (p, caller) =>
    keyUpdate(server(p, caller), caller, ref(p, "public_key"), "set the agent's public key"),
  )
}

const randomHex = (length: number) =>
  randomBytes(Math.ceil(length / 2))
    .toString("hex")
    .slice(0, length)

const onboardingRoutes = (world: World, add: Add) => {
  const fields = ["name", "expires", "tags", "privileged", "copy_server", "create_builder", "enabled"]
  const find = (key: string) => {
    const found = world.access.onboardingKeys.find((k) => k.public_key === key)
    if (found === undefined) throw new ServiceFailure(500, `did not find any OnboardingKey matching ${key}`)
    return found
  }
  add("write/CreateOnboardingKey", (p, caller) => {
    adminOnly(caller)
    const chosen = Object.fromEntries(fields.filter((f) => p[f] !== undefined).map((f) => [f, p[f]]))
    const created = {
      enabled: true,
      onboarded: [],
      created_at: world.now(),
      ...chosen,
      public_key: `MCowBQYDK2VuAyEA${randomHex(16)}`,
    }
    world.access.onboardingKeys.push(created)
    keep(world.access.onboardingKeys, BOUNDS.onboardingKeys)
    return {
      private_key: typeof p.private_key === "string" ? p.private_key : `MC4CAQAwBQYDK2VuBCIEI${randomHex(24)}`,
      created,
    }
  })
  add("write/UpdateOnboardingKey", (p, caller) => {
    adminOnly(caller)
    const key = find(ref(p, "public_key"))
    for (const f of fields) if (p[f] !== undefined) key[f] = p[f]
    return key
  })
  add("write/DeleteOnboardingKey", (p, caller) => {
    adminOnly(caller)
    const key = find(ref(p, "public_key"))
    world.access.onboardingKeys.splice(world.access.onboardingKeys.indexOf(key), 1)
    return key
  })
}

/** The resource a terminal's target is on (a server, stack or deployment), and its name. */
const terminalTarget = (world: World, target: unknown): { kind: Kind; resource: Resource; name: string } => {
  const { type, params } = (isRecord(target) ? target : {}) as { type?: string; params?: Record<string, unknown> }
  const p = params ?? {}
  switch (type) {
    case "Stack":
      return { kind: "stack", resource: world.store.find("stack", ref(p, "stack")), name: String(p.stack) }
    case "Deployment":
      return {
        kind: "deployment",
        resource: world.store.find("deployment", ref(p, "deployment")),
        name: String(p.deployment),
      }
    case "Container": {
      const { server, container } = world.container(ref(p, "server"), ref(p, "container"))
      return { kind: "server", resource: server, name: container.name }
    }
    default:
      return { kind: "server", resource: world.store.find("server", ref(p, "server")), name: String(p.server) }
  }
}

const sameTarget = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * A terminal opened on a target: one of that name there already is kept, unless `recreate` asks
 * for a new one (always, or where its command differs).
 */
const createTerminal = (world: World, p: Params, caller: Caller) => {
  const { terminals } = world.access
  const at = terminalTarget(world, p.target)
  requireLevel(world, caller, at.kind, at.resource, "Write")
  const name = typeof p.name === "string" && p.name !== "" ? p.name : "default"
  const command = typeof p.command === "string" && p.command !== "" ? p.command : "bash"
  const existing = terminals.find((t) => t.name === name && sameTarget(t.target, p.target))
  const recreate = p.recreate ?? "DifferentCommand"
  if (
    existing !== undefined &&
    (recreate === "Never" || (recreate === "DifferentCommand" && existing.command === command))
  ) {
    return existing
  }
  if (existing !== undefined) terminals.splice(terminals.indexOf(existing), 1)
  const terminal = {
    name,
    target: p.target,
    command,
    stored_size_kb: 0,
    created_at: world.now(),
    target_name: at.name,
  }
  terminals.push(terminal)
  keep(terminals, BOUNDS.terminals)
  return terminal
}

const terminalRoutes = (world: World, add: Add) => {
  const { terminals } = world.access
  add("write/CreateTerminal", (p, caller) => createTerminal(world, p, caller))
  add("write/DeleteTerminal", (p, caller) => {
    const at = terminalTarget(world, p.target)
    requireLevel(world, caller, at.kind, at.resource, "Write")
    const found = terminals.find((t) => t.name === ref(p, "terminal") && sameTarget(t.target, p.target))
    if (found === undefined) throw new ServiceFailure(500, `no terminal named ${String(p.terminal)}`)
    terminals.splice(terminals.indexOf(found), 1)
    return {}
  })
  const onServer = (server: Resource) => (t: (typeof terminals)[number]) =>
    terminalTarget(world, t.target).resource.id === server.id ||
    (isRecord(t.target) &&
      isRecord(t.target.params) &&
      [server.id, server.name].includes(String(t.target.params.server)))
  const clear = (server: Resource) => {
    for (let i = terminals.length - 1; i >= 0; i--)
      if (onServer(server)(terminals[i] as (typeof terminals)[number])) terminals.splice(i, 1)
  }
  add("write/DeleteAllTerminals", (p, caller) => {
    const server = world.store.find("server", ref(p, "server"))
    requireLevel(world, caller, "server", server, "Write")
    clear(server)
    return {}
  })
  add("write/BatchDeleteAllTerminals", (p, caller) => {
    adminOnly(caller)
    const query = isRecord(p.query) ? p.query : {}
    const names = Array.isArray(query.names) ? query.names.map(String) : []
    for (const server of world.store.all("server")) {
      if (names.length === 0 || names.includes(server.name) || names.includes(server.id)) clear(server)
    }
    return {}
  })
  add("read/ListTerminals", (p) => {
    if (!isRecord(p.target)) return terminals
    const at = terminalTarget(world, p.target)
    return terminals.filter((t) => sameTarget(t.target, p.target) || (at.kind === "server" && onServer(at.resource)(t)))
  })
}

export const handlers = (world: World): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const add: Add = (endpoint, handler) => routes.set(endpoint, handler)
  serverRoutes(world, add)
  onboardingRoutes(world, add)
  terminalRoutes(world, add)
  return routes
}
