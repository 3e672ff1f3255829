/**
 * The sandbox's Docker- and swarm-level reads: `svc_inspect` and `svc_list_detail`.
 */
import * as Tables from "../Tools/Tables.js"
import type { kinds } from "./Kinds.js"
import { servicesOf } from "./Lifecycle.js"
import { full, type Handler, page } from "./Resources.js"
import { type Params, type Resource, ref, ServiceFailure } from "./Store.js"
import type { Container, World } from "./World.js"

const inspectContainer = (c: Container) => ({
  Id: c.id,
  Name: `/${c.name}`,
  Created: "2026-11-01T09:00:00Z",
  Image: c.image,
  State: {
    Status: c.state,
    Running: c.state === "running",
    Paused: c.state === "paused",
    Restarting: false,
    ExitCode: c.state === "exited" ? 0 : null,
  },
  Config: { Image: c.image, Labels: c.owner === undefined ? {} : { "com.docker.compose.service": c.owner.service } },
  NetworkSettings: { Networks: Object.fromEntries(c.networks.map((n) => [n, { NetworkID: n }])) },
  Mounts: c.volumes.map((v) => ({ Type: "volume", Name: v })),
})

const listContainer = (c: Container) => {
  const { owner: _, ...item } = c
  return item
}

const named = <A extends { name: string }>(items: ReadonlyArray<A> | undefined, name: string, what: string): A => {
  const found = items?.find((i) => i.name === name)
  if (found === undefined) throw new ServiceFailure(500, `no ${what} named ${name}`, [`failed to inspect ${what}`])
  return found
}

/** The swarm objects of a swarm resource: its nodes are its servers, and it runs one service. */
const swarmOf = (world: World, swarm: Resource) => {
  const serverIds = (swarm.config.server_ids as ReadonlyArray<string> | undefined) ?? []
  const nodes = serverIds.map((id, i) => ({
    ID: `node${i + 1}${id.slice(-6)}`,
    Hostname: world.store.all("server").find((s) => s.id === id)?.name ?? id,
    Role: i === 0 ? "manager" : "worker",
    Availability: "active",
    State: "ready",
  }))
  const service = { ID: "svc1edgeproxy", Name: "edge-proxy", Image: "traefik:v3.2", Replicas: 2, Mode: "replicated" }
  return {
    nodes,
    services: [service],
    tasks: nodes.map((n, i) => ({ ID: `task${i + 1}`, ServiceID: service.ID, NodeID: n.ID, State: "running" })),
    configs: [{ ID: "cfg1proxy", Name: "edge-proxy-config" }],
    secrets: [{ ID: "sec1tls", Name: "edge-tls-key" }],
    stacks: [{ Name: "edge", Services: 1, Orchestrator: "Swarm" }],
    networks: [{ Name: "ingress", Driver: "overlay", Scope: "swarm" }],
  }
}

const swarmPart =
  (world: World, part: keyof ReturnType<typeof swarmOf>) =>
  (params: Params): ReadonlyArray<unknown> =>
    swarmOf(world, world.store.find("swarm", ref(params, "swarm")))[part]

const swarmOne =
  (world: World, part: keyof ReturnType<typeof swarmOf>, ...keys: ReadonlyArray<string>) =>
  (params: Params): unknown => {
    const wanted = ref(params, ...keys)
    const found = swarmPart(
      world,
      part,
    )(params).find((o) => {
      const { ID, Name } = o as { ID?: string; Name?: string }
      return ID === wanted || Name === wanted
    })
    if (found === undefined) throw new ServiceFailure(500, `no swarm ${part.replace(/s$/, "")} ${wanted}`)
    return found
  }

const ownedContainer = (world: World, kind: "stack" | "deployment", r: Resource, service?: string) => {
  for (const list of world.containers.values()) {
    const found = list.find((c) => c.owner?.id === r.id && (service === undefined || c.owner.service === service))
    if (found !== undefined) return found
  }
  throw new ServiceFailure(500, `${kind} ${r.name} has no container${service === undefined ? "" : ` for ${service}`}`)
}

export const handlers = (world: World): Map<string, Handler> => {
  const { store } = world
  const server = (params: Params) => store.find("server", ref(params, "server"))
  const allContainers = () => [...world.containers.values()].flat()
  const inspect: Record<string, Handler> = {
    container: (p) => inspectContainer(world.container(ref(p, "server"), ref(p, "container")).container),
    image: (p) => named(world.images.get(server(p).id), ref(p, "image", "name"), "image"),
    network: (p) => named(world.networks.get(server(p).id), ref(p, "network", "name"), "network"),
    volume: (p) => named(world.volumes.get(server(p).id), ref(p, "volume", "name"), "volume"),
    deployment_container: (p) =>
      inspectContainer(ownedContainer(world, "deployment", store.find("deployment", ref(p, "deployment")))),
    stack_container: (p) =>
      inspectContainer(ownedContainer(world, "stack", store.find("stack", ref(p, "stack")), ref(p, "service"))),
    deployment_swarm_service: (p) => {
      store.find("deployment", ref(p, "deployment"))
      throw new ServiceFailure(500, "the deployment is not deployed to a swarm")
    },
    stack_swarm_info: (p) => {
      store.find("stack", ref(p, "stack"))
      throw new ServiceFailure(500, "the stack is not deployed to a swarm")
    },
    stack_swarm_service: (p) => {
      store.find("stack", ref(p, "stack"))
      throw new ServiceFailure(500, "the stack is not deployed to a swarm")
    },
    swarm: (p) => {
      const swarm = store.find("swarm", ref(p, "swarm"))
      const parts = swarmOf(world, swarm)
      return { ID: swarm.id, Name: swarm.name, Nodes: parts.nodes.length, Services: parts.services.length }
    },
    swarm_config: swarmOne(world, "configs", "config", "id"),
    swarm_node: swarmOne(world, "nodes", "node", "id"),
    swarm_secret: swarmOne(world, "secrets", "secret", "id"),
    swarm_service: swarmOne(world, "services", "service", "id"),
    swarm_stack: swarmOne(world, "stacks", "stack", "name"),
    swarm_task: swarmOne(world, "tasks", "task", "id"),
  }
  const fullList = (kind: keyof typeof kinds) => (p: Params) => page(store.all(kind), p).map((r) => full(kind, r))
  const empty = () => []
  const list: Record<string, Handler> = {
    containers: (p) => world.containersOn(server(p)).map(listContainer),
    all_containers: () => allContainers().map(listContainer),
    images: (p) => world.images.get(server(p).id) ?? [],
    networks: (p) => world.networks.get(server(p).id) ?? [],
    volumes: (p) => world.volumes.get(server(p).id) ?? [],
    system_processes: (p) => {
      server(p)
      return [
        { pid: 1, name: "systemd", cpu_perc: 0.1, mem: 12.5, exe: "/usr/lib/systemd/systemd" },
        { pid: 812, name: "dockerd", cpu_perc: 1.4, mem: 96.2, exe: "/usr/bin/dockerd" },
        { pid: 1024, name: "periphery", cpu_perc: 0.3, mem: 24.8, exe: "/usr/local/bin/periphery" },
      ]
    },
    schedules: () =>
      store.all("procedure").map((r) => ({ target: { type: "Procedure", id: r.id }, name: r.name, enabled: false })),
    permissions: empty,
    api_keys: () => [
      { name: "sandbox", key: "sbx-key-…", user_id: "admin", created_at: 1_762_000_000_000, expires: 0 },
    ],
    api_keys_for_service_user: empty,
    onboarding_keys: empty,
    secrets: () => ["GITHUB_TOKEN", "REGISTRY_TOKEN"],
    updates: (p) => {
      const pageNo = typeof p.page === "number" && p.page > 0 ? p.page : 0
      const newest = [...world.updates].reverse()
      const slice = newest.slice(pageNo * 100, (pageNo + 1) * 100)
      const updates = slice.map(({ logs: _, ...item }) => item)
      return { updates, next_page: newest.length > (pageNo + 1) * 100 ? pageNo + 1 : null }
    },
    build_versions: (p) => {
      const build = store.find("build", ref(p, "build"))
      const v = build.config.version as { major: number; minor: number; patch: number }
      return Array.from({ length: v.patch + 1 }, (_, i) => ({
        version: { ...v, patch: v.patch - i },
        ts: 1_762_000_000_000 - i * 86_400_000,
      }))
    },
    compose_projects: (p) => {
      const target = server(p)
      return store
        .all("stack")
        .filter((s) => s.config.server_id === target.id)
        .map((s) => ({ name: s.name, status: String(s.info.state), compose_files: ["compose.yaml"] }))
    },
    user_target_permissions: empty,
    full_stacks: fullList("stack"),
    full_builds: fullList("build"),
    full_servers: fullList("server"),
    full_deployments: fullList("deployment"),
    full_procedures: fullList("procedure"),
    full_repos: fullList("repo"),
    full_builders: fullList("builder"),
    full_swarms: fullList("swarm"),
    full_actions: fullList("action"),
    full_alerters: fullList("alerter"),
    full_resource_syncs: fullList("sync_resource"),
    swarm_configs: swarmPart(world, "configs"),
    swarm_networks: swarmPart(world, "networks"),
    swarm_nodes: swarmPart(world, "nodes"),
    swarm_secrets: swarmPart(world, "secrets"),
    swarm_services: swarmPart(world, "services"),
    swarm_stacks: swarmPart(world, "stacks"),
    swarm_tasks: swarmPart(world, "tasks"),
    git_providers_from_config: () => [{ domain: "github.com", https: true, accounts: [{ username: "acme-bot" }] }],
    image_registries_from_config: () => [
      { domain: "ghcr.io", accounts: [{ username: "acme-bot" }], organizations: [] },
    ],
    common_build_extra_args: () => ["--pull"],
    common_deployment_extra_args: () => ["--log-opt max-size=10m"],
    common_stack_build_extra_args: empty,
    common_stack_extra_args: () => ["--remove-orphans"],
    image_history: (p) => {
      const image = named(world.images.get(server(p).id), ref(p, "image", "name"), "image")
      return [
        { Id: image.id, Created: image.created, CreatedBy: 'CMD ["start"]', Size: image.size, Tags: [image.name] },
      ]
    },
    all_stack_services: () =>
      store.all("stack").flatMap((s) => servicesOf(s).map((service) => ({ stack: s.name, service }))),
  }
  const routes = new Map<string, Handler>()
  for (const [type, endpoint] of Object.entries(Tables.inspect)) {
    const handler = inspect[type]
    if (handler !== undefined) routes.set(`read/${endpoint}`, handler)
  }
  for (const [type, endpoint] of Object.entries(Tables.list_detail)) {
    const handler = list[type]
    if (handler !== undefined) routes.set(`read/${endpoint}`, handler)
  }
  return routes
}
