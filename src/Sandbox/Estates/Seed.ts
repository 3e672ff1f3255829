/**
 * A small, believable estate: three servers running a few stacks and
 * deployments, with the builds, repos and procedures behind them; and in its
 * logs, a commit message and an image label, hostile text (Hostile.ts).
 * The large estate (Estate.ts) is this one and more.
 */

import { DAY, HOUR } from "../World/Clock.js"
import { logKey, place, type RunState } from "../World/Lifecycle.js"
import type { SandboxUser, World } from "../World/World.js"
import * as Hostile from "./Hostile.js"
import { seedAccess, seedFormerRights } from "./SeedAccess.js"
import { seedBuilders } from "./SeedBuilders.js"
import { seedDocker } from "./SeedDocker.js"
import { seedPortClash } from "./SeedPortClash.js"
import { seedSettings } from "./SeedSettings.js"
import { seedSwarm } from "./SeedSwarm.js"

/** Fields of a resource's config beyond those every one of its kind is seeded with. */
type More = Readonly<Record<string, unknown>>

/** The users: an admin, a read-only viewer (each with a login and an API key), and two more. */
const USERS = ["admin", "viewer", "alice", "bob"] as const

const READABLE = [
  "Server",
  "Stack",
  "Deployment",
  "Build",
  "Repo",
  "Procedure",
  "Action",
  "Builder",
  "Alerter",
  "ResourceSync",
  "Swarm",
]

/** A service user, as CI logs in with an API key of its own: listed with `service_users` "Include" or "Only". */
const SERVICE_USER = { username: "ci-deployer", description: "CI pipeline: deploys on merge to main" } as const

/** A user as the service stores it; `service` makes it a service user with that description. */
export const sandboxUser = (world: World, username: string, admin: boolean, service?: string): SandboxUser => ({
  _id: { $oid: world.store.newId() },
  username,
  enabled: true,
  admin,
  create_server_permissions: admin,
  create_build_permissions: admin,
  ...(service === undefined ? {} : { service }),
})

// The last stats each server's agent reported (MinimalSystemStats), against the service's default thresholds.
export const thresholds = {
  cpu_warning: 90,
  cpu_critical: 99,
  mem_warning: 75,
  mem_critical: 95,
  disk_warning: 75,
  disk_critical: 95,
}
/** A report at `ts` (its agent's last poll). */
export const stats = (cpu: number, mem: [number, number], disk: [number, number], ts: number) => ({
  cpu_perc: cpu,
  load_average: { one: cpu / 25, five: cpu / 28, fifteen: cpu / 30 },
  mem_used_gb: mem[0],
  mem_total_gb: mem[1],
  mem_free_gb: Math.round((mem[1] - mem[0]) * 10) / 10,
  mem_buff_cache_gb: 0,
  mem_zfs_arc_gb: 0,
  swap_total_gb: 0,
  swap_used_gb: 0,
  disk_used_gb: disk[0],
  disk_total_gb: disk[1],
  network_ingress_bytes: 0,
  network_egress_bytes: 0,
  polling_rate: "5-sec",
  refresh_ts: ts,
  refresh_list_ts: ts,
})

/**
 * A procedure's stage of one execution, both enabled as the service's editor
 * saves them (left out, the definitions' default is false: a stage that does nothing).
 */
export const stage = (name: string, execution: Readonly<Record<string, unknown>>) => ({
  name,
  enabled: true,
  executions: [{ execution, enabled: true }],
})

/** A weekly window for patching the host (MaintenanceWindow). */
const PATCHING = {
  name: "sunday-patching",
  description: "OS updates and reboot",
  schedule_type: "Weekly",
  day_of_week: "Sunday",
  hour: 4,
  minute: 0,
  duration_minutes: 60,
  timezone: "Europe/Berlin",
  enabled: true,
}

/** The users, tags and servers, with each server's images, networks and volumes. */
const seedServers = (world: World) => {
  const { store } = world
  world.users.push(...USERS.map((name) => sandboxUser(world, name, name === "admin")))
  const [admin, viewer] = world.users
  if (admin !== undefined) admin.super_admin = true
  // The viewer reads everything and changes nothing: Read on every type.
  if (viewer !== undefined) viewer.all = Object.fromEntries(READABLE.map((type) => [type, "Read"]))
  world.users.push(sandboxUser(world, SERVICE_USER.username, false, SERVICE_USER.description))
  const adminId = world.users[0]?._id.$oid ?? ""
  const tag = (name: string, color: string) => store.create("tag", name, { config: { color, owner: adminId } }).id
  const production = tag("production", "Red")
  const staging = tag("staging", "Yellow")
  const monitoring = tag("monitoring", "Blue")

  const server = (
    name: string,
    address: string,
    tags: Array<string>,
    region: string,
    reported: ReturnType<typeof stats>,
    more: More = {},
  ) =>
    store.create("server", name, {
      tags,
      config: { address, region, enabled: true, stats_monitoring: true, auto_prune: true, ...thresholds, ...more },
      info: { state: "Ok", version: "v2.3.3", stats: reported, alerting_thresholds: thresholds },
    })
  const now = world.now()
  const prod1 = server(
    "prod-01",
    "https://10.0.1.11:8120",
    [production],
    "eu-west",
    stats(38.5, [9.8, 16], [212, 500], now),
  )
  const prod2 = server(
    "prod-02",
    "https://10.0.1.12:8120",
    [production],
    "eu-west",
    stats(71.2, [13.9, 16], [401, 500], now),
  )
  const stage1 = server(
    "staging-01",
    "https://10.0.2.21:8120",
    [staging],
    "eu-central",
    stats(6.3, [2.1, 8], [41, 250], now),
    // Reached by people at its own name; patched on Sunday mornings, when its alerts wait.
    { external_address: "staging.acme.example", maintenance_windows: [PATCHING] },
  )

  seedDocker(world, [prod1.id, prod2.id, stage1.id], now)
  return { production, staging, monitoring, prod1, prod2, stage1 }
}
type Seeded = ReturnType<typeof seedServers>

/** The stacks and deployments, placed on the servers three days ago, with their logs. */
const seedWorkloads = (world: World, seeded: Seeded) => {
  const { clock } = world
  clock.at(clock.start - 3 * DAY)
  placeStacks(world, seeded)
  placeDeployments(world, seeded)
  clock.at(clock.start)
}

const placeStacks = (world: World, { production, staging, monitoring, prod1, prod2, stage1 }: Seeded) => {
  const { store } = world
  const stack = (
    name: string,
    serverId: string,
    services: Array<string>,
    tags: Array<string>,
    state: RunState,
    more: More = {},
  ) => {
    const r = store.create("stack", name, {
      tags,
      config: {
        ...more,
        server_id: serverId,
        file_paths: ["compose.yaml"],
        git_provider: "github.com",
        git_https: true,
        repo: `acme/${name}`,
        branch: "main",
      },
      // The services its repository's compose file holds.
      info: { state, compose_services: services },
    })
    if (state === "running") r.info = { ...r.info, deployed_snapshot: JSON.stringify(r.config) }
    place(world, "stack", r, state)
    if (state === "running") {
      for (const service of services) {
        world.log(logKey("stack", r), service, `${service} | started`, `${service} | healthy`)
      }
    }
    return r
  }
  const web = stack("web", prod1.id, ["web", "worker", "redis"], [production], "running")
  world.log(logKey("stack", web), "worker", ...Hostile.WORKER_LOG)
  // What watches the others alerts when its own state changes.
  stack("monitoring", prod2.id, ["prometheus", "grafana"], [production, monitoring], "running", { send_alerts: true })
  // Its registry holds a newer grafana than the one running, for a check to find.
  world.docker.newerImages.add("library/grafana:latest")
  stack("staging-web", stage1.id, ["web", "worker", "redis"], [staging], "stopped")
}

const placeDeployments = (world: World, { production, staging, prod1, prod2, stage1 }: Seeded) => {
  const { store } = world
  const deployment = (
    name: string,
    serverId: string,
    image: string,
    tags: Array<string>,
    state: RunState,
    more: More = {},
  ) => {
    const r = store.create("deployment", name, {
      tags,
      config: {
        server_id: serverId,
        image: { type: "Image", params: { image } },
        restart: "unless-stopped",
        network: "bridge",
        ...more,
      },
      info: { state: state === "running" ? "running" : state === "stopped" ? "exited" : "not_deployed" },
    })
    place(world, "deployment", r, state)
    if (state === "running") world.log(logKey("deployment", r), name, `${name} | serving on :8080`)
    return r
  }
  deployment("api", prod1.id, "ghcr.io/acme/api:1.4.2", [production], "running")
  deployment("docs", prod2.id, "ghcr.io/acme/docs:2.0.0", [production], "running", {
    ports: "8080:80",
    volumes: "/srv/docs/search-index:/usr/share/nginx/html/search:ro",
    environment: "DOCS_BASE_URL=https://docs.acme.example\nSEARCH_ENABLED=true",
    send_alerts: true,
  })
  deployment("legacy-cron", stage1.id, "ghcr.io/acme/cron:0.9.1", [staging], "stopped")
}

/** The builder and builds, and the repos. */
const seedBuilds = (world: World, { production, prod1, prod2 }: Seeded) => {
  const { store } = world
  const ago = (ms: number) => world.now() - ms
  const builder = store.create("builder", "local-builder", {
    tags: [production],
    config: { type: "Server", params: { server_ids: [prod2.id] } },
  })
  const build = (name: string, repo: string, tags: Array<string>, more: More = {}) =>
    store.create("build", name, {
      tags,
      config: { builder_id: builder.id, repo, branch: "main", version: { major: 1, minor: 4, patch: 2 }, ...more },
      info: { state: "Ok", last_built_at: ago(2 * DAY), built_hash: "3f2c9e1" },
    })
  build("api-image", "acme/api", [production])
  // Pushed under a name of its own, and tagged for the docs' preview as well.
  build("docs-image", "acme/docs", [], { image_name: "docs-site", image_tag: "preview" })

  store.create("repo", "infra", {
    tags: [production],
    config: { server_id: prod1.id, repo: "acme/infra", branch: "main", path: "/etc/infra" },
    info: {
      state: "Ok",
      last_pulled_at: ago(DAY),
      latest_hash: "9b1d2aa",
      latest_message: Hostile.COMMIT_MESSAGE,
    },
  })
  store.create("repo", "api-source", {
    config: { builder_id: builder.id, repo: "acme/api", branch: "main" },
    info: {
      state: "Ok",
      last_pulled_at: ago(DAY),
      latest_hash: "3f2c9e1",
      built_hash: "3f2c9e1",
      last_built_at: ago(DAY),
    },
  })
}

/** The procedures, an action, an alerter and a swarm. */
const seedRunners = (world: World, { production, monitoring, prod1, prod2 }: Seeded) => {
  const { store } = world
  const ago = (ms: number) => world.now() - ms
  store.create("procedure", "nightly-backup", {
    tags: [production],
    config: {
      stages: [stage("backup", { type: "BackupCoreDatabase", params: {} })],
      // Every night at two, seconds first as the service's cron reads it.
      schedule_format: "Cron",
      schedule: "0 0 2 * * *",
      schedule_enabled: true,
    },
    info: { state: "Ok", last_run_at: ago(6 * HOUR) },
  })
  store.create("procedure", "release", {
    config: {
      stages: [
        stage("build", { type: "RunBuild", params: { build: "api-image" } }),
        stage("deploy", { type: "Deploy", params: { deployment: "api" } }),
      ],
    },
    info: { state: "Ok", last_run_at: null },
  })
  store.create("action", "rotate-logs", {
    tags: [production],
    config: {
      file_contents: "await komodo.execute('PruneContainers', { server: 'prod-01' })",
      schedule_format: "Cron",
      schedule: "0 30 3 * * *",
      schedule_enabled: true,
      run_at_startup: true,
    },
    info: { state: "Ok", last_run_at: ago(11 * HOUR) },
  })
  store.create("alerter", "ops-slack", {
    tags: [monitoring],
    config: {
      enabled: true,
      endpoint: { type: "Slack", params: { url: "https://hooks.slack.example/T000" } },
      alert_types: ["ServerUnreachable", "ServerCpu", "ServerMem", "ServerDisk", "StackStateChange", "BuildFailed"],
    },
    info: { state: "Ok" },
  })
  store.create("swarm", "edge-swarm", {
    tags: [production],
    config: { server_ids: [prod1.id, prod2.id] },
    info: { state: "Healthy" },
  })
  world.log("swarm_service:edge-swarm/edge-proxy", "edge-proxy", "edge-proxy | accepted connection")
}

export const seed = (world: World): ReadonlyArray<SandboxUser> => {
  const seeded = seedServers(world)
  seedWorkloads(world, seeded)
  seedBuilds(world, seeded)
  seedRunners(world, seeded)
  seedSettings(world)
  seedSwarm(world)
  seedAccess(world)
  seedBuilders(world)
  seedPortClash(world)
  seedFormerRights(world)
  return world.users
}
