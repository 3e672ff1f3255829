/**
 * The `drift` scenario: the estate and its repositories have gone apart. The
 * `estate-sync`'s repository (acme/infra) moved on since its last refresh: its
 * head creates, updates and deletes stacks, deployments, a build, a procedure,
 * an action, variables and a user group; the pending changes the sync shows
 * are those of its last refresh until it is refreshed again. The `web` and
 * `monitoring` stacks' compose files changed in their repositories since they
 * were deployed: what they run is not what their files say. A sync's run, or a
 * stack's deploy, brings the estate in line, as on the service.
 */
import * as Alerts from "../Monitoring/Alerts.js"
import { type Clock, DAY, HOUR, START } from "../World/Clock.js"
import { composeOf } from "../World/Lifecycle.js"
import type { Resource } from "../World/Store.js"
import type { RepoCommit, World } from "../World/World.js"

const MIN = 60_000

/** acme/infra's head, 25 minutes old: beyond the estate and beyond the sync's last refresh. */
const INFRA_HEAD: RepoCommit = {
  hash: "e8a3f10",
  message: "Cache on prod-02; docs 2.1; api-image 1.5; renew-certs replaces release; retire legacy-cron",
  declared: [
    { kind: "stack", name: "cache", fields: { server: "prod-02", repo: "acme/cache", branch: "main" } },
    { kind: "stack", name: "web", fields: { branch: "release" }, deploy: true },
    { kind: "deployment", name: "docs", fields: { "image.params.image": "ghcr.io/acme/docs:2.1.0" }, deploy: true },
    { kind: "deployment", name: "legacy-cron" },
    { kind: "build", name: "api-image", fields: { "version.minor": 5, "version.patch": 0 } },
    { kind: "procedure", name: "release" },
    {
      kind: "action",
      name: "renew-certs",
      fields: { file_contents: "await komodo.execute('RestartStack', { stack: 'web' })" },
    },
    { kind: "variable", name: "LOG_LEVEL", fields: { value: "warn" } },
    { kind: "variable", name: "CACHE_SIZE", fields: { value: "1gb" } },
    { kind: "user_group", name: "operators", fields: { users: ["alice", "carol"] } },
  ],
}

interface Files {
  readonly hash: string
  readonly message: string
  readonly compose: string
}

const service = (name: string, ...lines: ReadonlyArray<string>) =>
  `  ${name}:\n    image: library/${name}:latest\n${lines.map((l) => `    ${l}\n`).join("")}`

/** Each drifted stack's compose file as deployed, and as its repository holds it now. */
const STACK_FILES: ReadonlyArray<readonly [string, Files, Files]> = [
  [
    "web",
    {
      hash: "a1c4e09",
      message: "web: serve on 8080",
      compose: `services:\n${service("web", 'ports: ["8080:8080"]')}${service("worker", "environment:", "  WORKER_CONCURRENCY: 4")}${service("redis")}`,
    },
    {
      hash: "5d27b8f",
      message: "worker: 8 jobs at once, and a memory limit",
      compose: `services:\n${service("web", 'ports: ["8080:8080"]')}${service("worker", "environment:", "  WORKER_CONCURRENCY: 8", "mem_limit: 1g")}${service("redis")}`,
    },
  ],
  [
    "monitoring",
    {
      hash: "0f3a9c1",
      message: "grafana: provisioned dashboards",
      compose: `services:\n${service("prometheus", 'ports: ["9090:9090"]')}${service("grafana", 'ports: ["3000:3000"]')}`,
    },
    {
      hash: "b8e2d47",
      message: "Add node-exporter for host metrics",
      compose: `services:\n${service("prometheus", 'ports: ["9090:9090"]')}${service("grafana", 'ports: ["3000:3000"]')}${service("node-exporter", 'pid: "host"')}`,
    },
  ],
]

/** A stack deployed from `deployed`, whose repository's head is now `latest`. */
const drift = (stack: Resource, deployed: Files, latest: Files) => {
  const path = "compose.yaml"
  const deployedContents = [{ path, contents: deployed.compose }]
  stack.info = {
    ...stack.info,
    deployed_contents: deployedContents,
    deployed_hash: deployed.hash,
    deployed_message: deployed.message,
    remote_contents: [{ path, contents: latest.compose, services: composeOf(latest.compose) }],
    latest_hash: latest.hash,
    latest_message: latest.message,
    // What its last deploy ran: a deploy if changed finds the files changed since.
    deployed_snapshot: JSON.stringify([stack.config, deployedContents]),
  }
}

/**
 * The analytics stack on the swarm, deployed two days ago from two compose files, the second of
 * which its repository no longer holds: its services run as deployed, and a deploy now would fail.
 */
const ANALYTICS = ["collector", "dashboard"]
const analyticsOnSwarm = (world: World, clock: Clock) => {
  const swarm = world.store.find("swarm", "edge-swarm")
  clock.at(START - 2 * DAY)
  const stack = world.store.create("stack", "analytics", {
    tags: swarm.tags,
    config: {
      swarm_id: swarm.id,
      file_paths: ["compose.yaml", "compose.swarm.yaml"],
      git_provider: "github.com",
      git_https: true,
      repo: "acme/analytics",
      branch: "main",
      // It follows its images' tags on its own, but for the dashboard, which waits for someone to deploy it.
      poll_for_updates: true,
      auto_update: true,
      auto_update_skip_services: ["dashboard"],
      send_alerts: true,
    },
    info: {
      state: "running",
      compose_services: ANALYTICS,
      deployed_services: ANALYTICS.map((service) => ({
        service_name: service,
        container_name: `analytics_${service}`,
        image: `library/${service}:latest`,
      })),
      missing_files: ["compose.swarm.yaml"],
    },
  })
  // Deployed again a day ago, its services updated in place.
  stack.updated_at = START - DAY
  // Its last poll, an hour ago, found a newer dashboard: said on its services and alerted.
  clock.at(START - HOUR)
  const image = "library/dashboard:latest"
  world.docker.newerImages.add(image)
  stack.info = { ...stack.info, update_checked: true }
  Alerts.raise(
    world,
    { type: "Stack", id: stack.id },
    {
      type: "StackImageUpdateAvailable",
      level: "OK",
      data: { id: stack.id, name: stack.name, swarm_id: swarm.id, swarm_name: swarm.name, service: "dashboard", image },
    },
  )
}

export const apply = (world: World, clock: Clock): void => {
  analyticsOnSwarm(world, clock)
  clock.at(START - 25 * MIN)
  world.repositories.set("acme/infra", INFRA_HEAD)
  for (const [name, deployed, latest] of STACK_FILES) drift(world.store.find("stack", name), deployed, latest)
  clock.at(START)
}
