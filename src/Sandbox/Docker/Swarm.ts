/**
 * The sandbox's swarms: the nodes, services, tasks, configs and secrets a swarm
 * resource stands for, and a stack's or deployment's service on its swarm, in
 * the shapes of the service's List* answers (SwarmInspect.ts gives their Inspect*).
 */

import { DAY } from "../World/Clock.js"
import { imageOf, stackServices } from "../World/Lifecycle.js"
import { kinds } from "../World/ResourceTypes.js"
import { type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import type { World } from "../World/World.js"

/** When a resource's swarm objects were made: when the resource was. */
const createdAt = (r: Resource): string => new Date(r.created_at).toISOString()
/** When they last changed: when the resource did. */
export const updatedAt = (r: Resource): string => new Date(Math.max(r.updated_at, r.created_at)).toISOString()

/** A service the swarm runs: what its list item and its inspect are made of (SwarmInspect.ts). */
export interface SwarmService {
  readonly id: string
  readonly name: string
  readonly image: string
  readonly replicas: number
  readonly running: number
  readonly state: "Healthy" | "Unhealthy" | "Down"
  readonly created: string
  readonly updated: string
  /** The ports it publishes on the swarm's routing mesh, each as the one inside. */
  readonly ports: ReadonlyArray<number>
  /** The swarm stack it belongs to, if one deployed it (docker's `com.docker.stack.namespace`). */
  readonly stack?: string
  readonly configs: ReadonlyArray<string>
  readonly secrets: ReadonlyArray<string>
}

/** When a swarm's own objects were made: before the service managed it, as a swarm joins it. */
export const bornAt = (swarm: Resource): string => new Date(swarm.created_at - 30 * DAY).toISOString()

/** The swarm's own reverse proxy, which its `edge` swarm stack deployed, on every node; moved to v3.2 two days before. */
const edgeProxy = (swarm: Resource, nodes: number): SwarmService => ({
  id: "svc1edgeproxy",
  name: "edge-proxy",
  image: "traefik:v3.2",
  replicas: 2,
  running: nodes,
  state: "Healthy",
  created: bornAt(swarm),
  updated: new Date(swarm.created_at - 2 * DAY).toISOString(),
  ports: [80, 443],
  stack: "edge",
  configs: ["edge-proxy-config"],
  secrets: ["edge-tls-key"],
})

/** A node's address on the swarm: its server's host, as the agent's address names it. */
export const hostOf = (server: Resource | undefined): string => {
  const address = typeof server?.config.address === "string" ? server.config.address : ""
  return /^[a-z]+:\/\/([^:/]+)/.exec(address)?.[1] ?? ""
}

/** The swarm objects of a swarm resource: its nodes are its servers, the first the manager, and it runs one service. */
export const swarmOf = (world: World, swarm: Resource) => {
  const created = bornAt(swarm)
  const serverIds = (swarm.config.server_ids as ReadonlyArray<string> | undefined) ?? []
  const nodes = serverIds.map((id, i) => {
    const server = world.store.all("server").find((s) => s.id === id)
    const hostname = server?.name ?? id
    return {
      ID: `node${i + 1}${id.slice(-6)}`,
      Name: hostname,
      Hostname: hostname,
      Role: i === 0 ? "manager" : "worker",
      Availability: "active",
      State: "ready",
      CreatedAt: created,
      UpdatedAt: updatedAt(swarm),
      // The manager's address for the others to join it, on docker's swarm port.
      ...(i === 0 ? { ManagerAddr: `${hostOf(server)}:2377` } : {}),
    }
  })
  const proxy = edgeProxy(swarm, nodes.length)
  const service = {
    ID: proxy.id,
    Name: proxy.name,
    Image: proxy.image,
    Mode: "Replicated",
    Replicas: proxy.replicas,
    RunningTasks: proxy.running,
    DesiredTasks: proxy.replicas,
    State: proxy.state,
    Configs: proxy.configs,
    Secrets: proxy.secrets,
    CreatedAt: proxy.created,
    UpdatedAt: proxy.updated,
  }
  const tasks = nodes.map((n, i) => ({
    ID: `task${i + 1}`,
    Name: `edge-proxy.${i + 1}`,
    ServiceID: service.ID,
    NodeID: n.ID,
    State: "running",
    DesiredState: "running",
    // 64 hex digits, as docker's container ids.
    ContainerID: `${i + 1}`.padEnd(64, "e0d9c8b7a6f5"),
    Configs: service.Configs,
    Secrets: service.Secrets,
    CreatedAt: proxy.updated,
    UpdatedAt: proxy.updated,
  }))
  return {
    proxy,
    nodes,
    services: [service],
    tasks,
    configs: [{ ID: "cfg1proxy", Name: "edge-proxy-config", InUse: true, CreatedAt: created }],
    secrets: [{ ID: "sec1tls", Name: "edge-tls-key", InUse: true, Driver: "", CreatedAt: created }],
    stacks: [{ Name: "edge", Services: "1", Orchestrator: "Swarm", State: "Healthy" }],
    networks: [
      // Docker's routing mesh, on the subnet it takes unless told another.
      {
        name: "ingress",
        id: "ingress0swarm",
        driver: "overlay",
        scope: "swarm",
        ingress: true,
        ipam_subnet: "10.0.0.0/24",
        in_use: true,
      },
    ],
  }
}

export type SwarmParts = ReturnType<typeof swarmOf>

export const swarmParam = (params: Params) => ref(params, "swarm", "id", "name")

/** One swarm object by its ID or name; `inspect` gives it the shape its Inspect* answers. */
export const swarmOne =
  <K extends "nodes" | "services" | "tasks" | "configs" | "secrets">(
    world: World,
    part: K,
    key: string,
    inspect: (item: SwarmParts[K][number], parts: SwarmParts, swarm: Resource) => unknown,
  ) =>
  (params: Params): unknown => {
    const wanted = ref(params, key)
    const swarm = world.store.find("swarm", swarmParam(params))
    const parts = swarmOf(world, swarm)
    const items = parts[part] as ReadonlyArray<SwarmParts[K][number]>
    const found = items.find((o) => {
      const { ID, Name } = o as { ID?: string; Name?: string }
      return ID === wanted || Name === wanted
    })
    if (found === undefined) throw new ServiceFailure(500, `no swarm ${part.replace(/s$/, "")} ${wanted}`)
    return inspect(found, parts, swarm)
  }

/** The ports a deployment publishes (`8080:80`, one a line or a comma), each as the one inside. */
const portsOf = (r: Resource): ReadonlyArray<number> =>
  String(r.config.ports ?? "")
    .split(/[\n,]/)
    .flatMap((entry) => {
      const inside = /(?:^|:)(\d+)(?:\/\w+)?\s*$/.exec(entry.trim())?.[1]
      return inside === undefined ? [] : [Number(inside)]
    })

/** A stack's or deployment's service on its swarm, or the service's error when it is on none. */
export const onSwarm = (kind: "stack" | "deployment", r: Resource, service: string): SwarmService => {
  if (typeof r.config.swarm_id !== "string" || r.config.swarm_id === "") {
    throw new ServiceFailure(500, `${kinds[kind].target} ${r.name} is not deployed to a swarm`)
  }
  const running = r.info.state === "running"
  const replicas = kind === "deployment" && typeof r.config.replicas === "number" ? r.config.replicas : 1
  return {
    id: `svc${r.id.slice(-8)}${service}`,
    name: kind === "stack" ? `${r.name}_${service}` : r.name,
    image:
      kind === "deployment"
        ? imageOf(r)
        : (stackServices(r).find((s) => s.service === service)?.image ?? `${service}:latest`),
    replicas,
    running: running ? replicas : 0,
    state: running ? "Healthy" : "Down",
    created: createdAt(r),
    updated: updatedAt(r),
    ports: kind === "deployment" ? portsOf(r) : [],
    ...(kind === "stack" ? { stack: r.name } : {}),
    configs: [],
    secrets: [],
  }
}
