/**
 * The sandbox's swarms: the nodes, services, tasks, configs and secrets a swarm
 * resource stands for, and a stack's or deployment's service on its swarm, in
 * the shapes of the service's Inspect* and List* answers.
 */

import { imageOf } from "../World/Lifecycle.js"
import { kinds } from "../World/ResourceTypes.js"
import { type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import type { World } from "../World/World.js"

/** When a resource's swarm objects were made: when the resource was. */
export const createdAt = (r: Resource): string => new Date(r.created_at).toISOString()

/** The swarm objects of a swarm resource: its nodes are its servers, and it runs one service. */
export const swarmOf = (world: World, swarm: Resource) => {
  const created = createdAt(swarm)
  const serverIds = (swarm.config.server_ids as ReadonlyArray<string> | undefined) ?? []
  const nodes = serverIds.map((id, i) => {
    const hostname = world.store.all("server").find((s) => s.id === id)?.name ?? id
    return {
      ID: `node${i + 1}${id.slice(-6)}`,
      Name: hostname,
      Hostname: hostname,
      Role: i === 0 ? "manager" : "worker",
      Availability: "active",
      State: "ready",
    }
  })
  const service = {
    ID: "svc1edgeproxy",
    Name: "edge-proxy",
    Image: "traefik:v3.2",
    Mode: "Replicated",
    Replicas: 2,
    RunningTasks: nodes.length,
    DesiredTasks: nodes.length,
    State: "Healthy",
    Configs: ["edge-proxy-config"],
    Secrets: ["edge-tls-key"],
    CreatedAt: created,
  }
  const tasks = nodes.map((n, i) => ({
    ID: `task${i + 1}`,
    Name: `edge-proxy.${i + 1}`,
    ServiceID: service.ID,
    NodeID: n.ID,
    State: "running",
    DesiredState: "running",
    Configs: service.Configs,
    Secrets: service.Secrets,
  }))
  return {
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
    inspect: (item: SwarmParts[K][number]) => unknown,
  ) =>
  (params: Params): unknown => {
    const wanted = ref(params, key)
    const items = swarmOf(world, world.store.find("swarm", swarmParam(params)))[part] as ReadonlyArray<
      SwarmParts[K][number]
    >
    const found = items.find((o) => {
      const { ID, Name } = o as { ID?: string; Name?: string }
      return ID === wanted || Name === wanted
    })
    if (found === undefined) throw new ServiceFailure(500, `no swarm ${part.replace(/s$/, "")} ${wanted}`)
    return inspect(found)
  }

export const inspectService = (s: SwarmParts["services"][number]) => ({
  ID: s.ID,
  CreatedAt: s.CreatedAt,
  Spec: { Name: s.Name },
  Replicas: s.Replicas,
  Mode: s.Mode,
  State: s.State,
})

/** A stack's or deployment's service on its swarm, or the service's error when it is on none. */
export const onSwarm = (kind: "stack" | "deployment", r: Resource, service: string) => {
  if (typeof r.config.swarm_id !== "string" || r.config.swarm_id === "") {
    throw new ServiceFailure(500, `${kinds[kind].target} ${r.name} is not deployed to a swarm`)
  }
  const image = kind === "deployment" ? imageOf(r) : `${service}:latest`
  return {
    ID: `svc${r.id.slice(-8)}${service}`,
    CreatedAt: createdAt(r),
    Spec: { Name: kind === "stack" ? `${r.name}_${service}` : r.name },
    Mode: "Replicated",
    Replicas: 1,
    State: r.info.state === "running" ? "Healthy" : "Down",
    image,
  }
}
