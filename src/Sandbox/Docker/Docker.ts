/**
 * The sandbox's Docker- and swarm-level reads (Inspect*, the List* of
 * containers, images, swarm objects...) and the other detail lists, under the
 * service's endpoint names, in the shapes of its definitions.
 */

import { type Handler, page } from "../Resources/Resources.js"
import { inspected, listed } from "../World/Containers.js"
import { servicesOf, stackServices } from "../World/Lifecycle.js"
import { matches } from "../World/Query.js"
import { adminOnly, type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import type { Container, World } from "../World/World.js"
import { VOLUME_SIZE } from "./Prune.js"
import { onSwarm, swarmOf, swarmOne, swarmParam } from "./Swarm.js"
import { inspectNode, inspectService, inspectSwarm, inspectTask } from "./SwarmInspect.js"

const named = <A extends { name: string }>(items: ReadonlyArray<A> | undefined, name: string, what: string): A => {
  const found = items?.find((i) => i.name === name)
  if (found === undefined) throw new ServiceFailure(500, `no ${what} named ${name}`, [`failed to inspect ${what}`])
  return found
}

const ownedContainer = (world: World, kind: "stack" | "deployment", r: Resource, service?: string) => {
  for (const list of world.docker.containers.values()) {
    const found = list.find((c) => c.owner?.id === r.id && (service === undefined || c.owner.service === service))
    if (found !== undefined) return found
  }
  throw new ServiceFailure(500, `${kind} ${r.name} has no container${service === undefined ? "" : ` for ${service}`}`)
}

/** What the reads are made with: the world, its lookups by a call's params, and the routes to add to. */
interface Reads {
  readonly world: World
  readonly store: World["store"]
  readonly server: (params: Params) => Resource
  readonly allContainers: () => ReadonlyArray<Container>
  readonly inUse: (serverId: string, test: (c: Container) => boolean) => boolean
  readonly swarm: (params: Params) => ReturnType<typeof swarmOf>
  readonly stackOf: (params: Params) => Resource
  readonly add: (endpoint: string, handler: Handler) => void
}

/** A server's containers, images, networks and volumes, one by one. */
const inspectOnServer = ({ world, server, add }: Reads) => {
  add("InspectContainer", (p) => inspected(world, world.container(ref(p, "server"), ref(p, "container")).container))
  add("InspectImage", (p) => {
    const image = named(world.docker.imagesOn(server(p).id), ref(p, "image"), "image")
    return {
      Id: image.id,
      RepoTags: [image.name],
      Size: image.size,
      Created: new Date(image.created * 1000).toISOString(),
      Os: "linux",
      Architecture: "amd64",
      ...(image.labels === undefined ? {} : { Config: { Labels: image.labels } }),
    }
  })
  add("InspectNetwork", (p) => {
    const target = server(p)
    const network = named(world.docker.networksOn(target.id), ref(p, "network"), "network")
    const attached = world.containersOn(target).filter((c) => c.networks.includes(network.name))
    return {
      Name: network.name,
      Id: `${network.name}0net`,
      Driver: network.driver,
      Scope: "local",
      Internal: false,
      IPAM: { Driver: "default", Config: network.subnet === undefined ? [] : [{ Subnet: network.subnet }] },
      Containers: attached.map((c) => ({ Name: c.name, ContainerID: c.id })),
    }
  })
  add("InspectVolume", (p) => {
    const target = server(p)
    const volume = named(world.docker.volumesOn(target.id), ref(p, "volume"), "volume")
    return {
      Name: volume.name,
      Driver: volume.driver,
      Mountpoint: `/var/lib/docker/volumes/${volume.name}/_data`,
      Scope: "local",
      ...(volume.created === undefined ? {} : { CreatedAt: new Date(volume.created).toISOString() }),
      UsageData: {
        Size: volume.size ?? VOLUME_SIZE,
        RefCount: world.containersOn(target).filter((c) => c.volumes.includes(volume.name)).length,
      },
    }
  })
  add("ListImageHistory", (p) => {
    const image = named(world.docker.imagesOn(server(p).id), ref(p, "image"), "image")
    return [
      {
        Id: image.id,
        Created: image.created,
        CreatedBy: 'CMD ["start"]',
        Size: image.size,
        Tags: [image.name],
        Comment: "",
      },
    ]
  })
}

/** What a server's processes list shows: the same few on every server. */
const process = (pid: number, name: string, exe: string, cpu: number, mem: number) => ({
  pid,
  name,
  exe,
  cmd: [exe],
  cpu_perc: cpu,
  mem_mb: mem,
  disk_read_kb: 0,
  disk_write_kb: 0,
})
/** Made for each answer, as the service makes each: nothing of one answer is another's. */
const processes = () => [
  process(1, "systemd", "/usr/lib/systemd/systemd", 0.1, 12.5),
  process(812, "dockerd", "/usr/bin/dockerd", 1.4, 96.2),
  process(1024, "periphery", "/usr/local/bin/periphery", 0.3, 24.8),
]

/** A server's containers, images, networks, volumes, processes and compose projects. */
const listOnServer = ({ world, store, server, allContainers, inUse, add }: Reads) => {
  add("ListContainers", (p) => world.containersOn(server(p)).map((c) => listed(world, c)))
  add("ListAllContainers", (p) => page(allContainers(), p).map((c) => listed(world, c)))
  add("ListImages", (p) => {
    const target = server(p)
    return world.docker.imagesOn(target.id).map((image) => ({
      id: image.id,
      name: image.name,
      tags: [image.name],
      created: image.created,
      size: image.size,
      parent_id: "",
      in_use: inUse(target.id, (c) => c.image === image.name),
    }))
  })
  add("ListNetworks", (p) => {
    const target = server(p)
    return world.docker.networksOn(target.id).map((n) => ({
      name: n.name,
      id: `${n.name}0net`,
      driver: n.driver,
      scope: "local",
      internal: false,
      ...(n.subnet === undefined ? {} : { ipam_subnet: n.subnet }),
      in_use: inUse(target.id, (c) => c.networks.includes(n.name)),
    }))
  })
  add("ListVolumes", (p) => {
    const target = server(p)
    return world.docker.volumesOn(target.id).map((v) => ({
      name: v.name,
      driver: v.driver,
      mountpoint: `/var/lib/docker/volumes/${v.name}/_data`,
      scope: "local",
      in_use: inUse(target.id, (c) => c.volumes.includes(v.name)),
      size: v.size ?? VOLUME_SIZE,
      ...(v.created === undefined ? {} : { created: new Date(v.created).toISOString() }),
    }))
  })
  add("ListSystemProcesses", (p) => {
    server(p)
    return processes()
  })
  add("ListComposeProjects", (p) => {
    const target = server(p)
    return store
      .all("stack")
      .filter((s) => s.config.server_id === target.id && s.info.state !== "down")
      .map((s) => ({ name: s.name, status: String(s.info.state), compose_files: ["compose.yaml"] }))
  })
}

/** The containers and swarm services of deployments and stacks. */
const resourceContainers = ({ world, store, stackOf, add }: Reads) => {
  add("InspectDeploymentContainer", (p) =>
    inspected(world, ownedContainer(world, "deployment", store.find("deployment", ref(p, "deployment", "id", "name")))),
  )
  add("InspectStackContainer", (p) => inspected(world, ownedContainer(world, "stack", stackOf(p), ref(p, "service"))))
  add("InspectDeploymentSwarmService", (p) => {
    const deployment = store.find("deployment", ref(p, "deployment", "id", "name"))
    return inspectService(onSwarm("deployment", deployment, deployment.name))
  })
  add("InspectStackSwarmService", (p) => inspectService(onSwarm("stack", stackOf(p), ref(p, "service"))))
  add("InspectStackSwarmInfo", (p) => {
    const stack = stackOf(p)
    const services = servicesOf(stack).map((s) => onSwarm("stack", stack, s))
    return {
      Name: stack.name,
      State: services.every((s) => s.state === "Healthy") ? "Healthy" : "Down",
      Services: services.map((s) => ({ ID: s.id, Name: s.name, Image: s.image, State: s.state })),
    }
  })
  add("ListAllStackServices", (p) =>
    page(
      store.all("stack").flatMap((s) =>
        stackServices(s).map(({ service, image }) => ({
          stack_id: s.id,
          stack_name: s.name,
          service,
          image,
          state: s.info.state === "running" ? "Running" : "Down",
        })),
      ),
      p,
    ),
  )
}

/** A swarm's parts. */
const swarmReads = ({ world, store, swarm, add }: Reads) => {
  add("InspectSwarm", (p) => inspectSwarm(store.find("swarm", swarmParam(p))))
  add(
    "InspectSwarmConfig",
    swarmOne(world, "configs", "config", (c) => ({ ID: c.ID, CreatedAt: c.CreatedAt, Spec: { Name: c.Name } })),
  )
  add("InspectSwarmNode", swarmOne(world, "nodes", "node", inspectNode(world)))
  add(
    "InspectSwarmSecret",
    swarmOne(world, "secrets", "secret", (s) => ({ ID: s.ID, CreatedAt: s.CreatedAt, Spec: { Name: s.Name } })),
  )
  add(
    "InspectSwarmService",
    swarmOne(world, "services", "service", (_s, parts) => inspectService(parts.proxy)),
  )
  add("InspectSwarmStack", (p) => {
    const parts = swarm(p)
    const wanted = ref(p, "stack")
    const stack = parts.stacks.find((s) => s.Name === wanted)
    if (stack === undefined) throw new ServiceFailure(500, `no swarm stack ${wanted}`)
    return { Name: stack.Name, State: stack.State, Services: parts.services, Tasks: parts.tasks }
  })
  add("InspectSwarmTask", swarmOne(world, "tasks", "task", inspectTask))

  add("ListSwarmConfigs", (p) => swarm(p).configs)
  add("ListSwarmNetworks", (p) => swarm(p).networks)
  add("ListSwarmNodes", (p) => swarm(p).nodes)
  add("ListSwarmSecrets", (p) => swarm(p).secrets)
  add("ListSwarmServices", (p) => swarm(p).services)
  add("ListSwarmStacks", (p) => swarm(p).stacks)
  add("ListSwarmTasks", (p) => swarm(p).tasks)
}

/** Keys, permissions, secrets and what the core's configuration lists. */
const accessReads = ({ world, add }: Reads) => {
  add("ListOnboardingKeys", (_p, caller) => {
    adminOnly(caller)
    return world.access.onboardingKeys
  })
  add("ListSecrets", () => ["GITHUB_TOKEN", "REGISTRY_TOKEN"])
  add("ListGitProvidersFromConfig", () => [{ domain: "github.com", https: true, accounts: [{ username: "acme-bot" }] }])
  add("ListImageRegistriesFromConfig", () => [
    { domain: "ghcr.io", accounts: [{ username: "acme-bot" }], organizations: [] },
  ])
  add("ListCommonBuildExtraArgs", () => ["--pull"])
  add("ListCommonDeploymentExtraArgs", () => ["--log-opt max-size=10m"])
  add("ListCommonStackBuildExtraArgs", () => [])
  add("ListCommonStackExtraArgs", () => ["--remove-orphans"])
}

/** Schedules, updates and build versions. */
const historyReads = ({ world, store, add }: Reads) => {
  add("ListSchedules", (p) =>
    page(
      store.all("procedure").map((r) => ({
        target: { type: "Procedure", id: r.id },
        name: r.name,
        schedule: String(r.config.schedule ?? ""),
        enabled: r.config.schedule_enabled === true,
        schedule_timezone: "",
        tags: r.tags,
      })),
      p,
    ),
  )
  add("ListUpdates", (p) => {
    const pageNo = typeof p.page === "number" && p.page > 0 ? p.page : 0
    // Newest first, by when each started, as the service sorts them; `query` is a database filter
    // (`{"status": "InProgress"}`: what runs now, over the whole estate).
    const newest = [...world.history.updates]
      .reverse()
      .filter((u) => matches(u, p.query))
      .sort((a, b) => b.start_ts - a.start_ts)
    const username = (id: string) => world.users.find((u) => u._id.$oid === id)?.username ?? id
    const updates = newest.slice(pageNo * 100, (pageNo + 1) * 100).map((u) => ({
      id: u._id?.$oid ?? "",
      operation: u.operation,
      start_ts: u.start_ts,
      success: u.success,
      username: username(u.operator),
      operator: u.operator,
      target: u.target,
      status: u.status,
      version: u.version,
      other_data: u.other_data,
    }))
    // `next_page` only when there is one: the definitions give it no null.
    return newest.length > (pageNo + 1) * 100 ? { updates, next_page: pageNo + 1 } : { updates }
  })
  add("ListBuildVersions", (p) => {
    const build = store.find("build", ref(p, "build", "id", "name"))
    const v = (build.config.version ?? { major: 0, minor: 0, patch: 0 }) as {
      major: number
      minor: number
      patch: number
    }
    return Array.from({ length: v.patch + 1 }, (_, i) => ({
      version: { ...v, patch: v.patch - i },
      ts: (typeof build.info.last_built_at === "number" ? build.info.last_built_at : world.now()) - i * 86_400_000,
    }))
  })
}

export const handlers = (world: World): Map<string, Handler> => {
  const { store } = world
  const server = (params: Params) => store.find("server", ref(params, "server", "id", "name"))
  const allContainers = () => world.allContainers()
  const inUse = (serverId: string, test: (c: Container) => boolean) => world.docker.containersOn(serverId).some(test)
  const swarm = (p: Params) => swarmOf(world, store.find("swarm", swarmParam(p)))
  const stackOf = (p: Params) => store.find("stack", ref(p, "stack", "id", "name"))
  const routes = new Map<string, Handler>()
  const add = (endpoint: string, handler: Handler) => routes.set(`read/${endpoint}`, handler)
  const reads: Reads = { world, store, server, allContainers, inUse, swarm, stackOf, add }
  inspectOnServer(reads)
  listOnServer(reads)
  resourceContainers(reads)
  swarmReads(reads)
  accessReads(reads)
  historyReads(reads)
  return routes
}
