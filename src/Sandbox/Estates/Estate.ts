/**
 * The sandbox's estates. `small` (the default, and the demo's) is Seed.ts:
 * three servers. `large` is that estate and more, at the size of a real one:
 * 50 servers, 300 stacks, 150 deployments, 40 builds, with tags and users
 * to match; the same hostile text and behaviour, since the small estate is
 * part of it. Made the same way every time (no randomness), so that figures
 * measured on it can be compared.
 */
import { DAY, HOUR } from "../World/Clock.js"
import { place, type RunState } from "../World/Lifecycle.js"
import type { SandboxUser, World } from "../World/World.js"
import { sandboxUser, seed, stage, stats, thresholds } from "./Seed.js"

export type Estate = "small" | "large"

/** What the large estate holds in all (the small estate's resources included). */
const LARGE = {
  servers: 50,
  stacks: 300,
  deployments: 150,
  builds: 40,
  repos: 20,
  procedures: 12,
  actions: 8,
  variables: 20,
} as const

const REGIONS = ["eu-west", "eu-central", "us-east", "us-west", "ap-south"]
const TAGS: ReadonlyArray<[string, string]> = [
  ["team-payments", "Green"],
  ["team-search", "Purple"],
  ["team-platform", "Orange"],
  ["team-data", "Indigo"],
  ["edge", "Teal"],
  ["internal", "Slate"],
  ["pci", "Red"],
]
const APPS = [
  "billing",
  "checkout",
  "search",
  "catalog",
  "ledger",
  "notify",
  "auth",
  "reports",
  "ingest",
  "media",
  "pricing",
  "profile",
]
const SERVICES = ["app", "worker", "redis", "postgres", "nginx", "cron"]
const PEOPLE = ["carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia"]

/** The i-th of `list`, round and round. */
const nth = <A>(list: ReadonlyArray<A>, i: number): A => list[i % list.length] as A

/** The tags of the large estate, with the two of the small one that some resources take. */
const tagsOf = (world: World) => {
  const { store } = world
  const adminId = world.users[0]?._id.$oid ?? ""
  const tagIds = TAGS.map(([name, color]) => store.create("tag", name, { config: { color, owner: adminId } }).id)
  return { tagIds, production: store.find("tag", "production").id, staging: store.find("tag", "staging").id }
}
type Tags = ReturnType<typeof tagsOf>

const growServers = (world: World, { tagIds, production, staging }: Tags) => {
  const { store } = world
  const start = store.all("server").length
  for (let i = start; i < LARGE.servers; i++) {
    const env = i % 5 === 4 ? "stage" : "prod"
    const n = String(i + 1).padStart(2, "0")
    const cpu = (i * 37) % 97
    const mem = 16 * (1 + (i % 4))
    const disk = 250 * (1 + (i % 3))
    store.create("server", `${env}-${n}`, {
      tags: [env === "prod" ? production : staging, nth(tagIds, i)],
      config: {
        address: `https://10.0.${10 + Math.floor(i / 10)}.${10 + (i % 10)}:8120`,
        region: nth(REGIONS, i),
        enabled: true,
        stats_monitoring: true,
        auto_prune: true,
        ...thresholds,
      },
      info: {
        // One in seventeen did not answer its last poll.
        state: i % 17 === 16 ? "NotOk" : "Ok",
        version: "v2.3.3",
        stats: stats(
          cpu + 0.5,
          [Math.round(mem * ((i * 13) % 90)) / 100, mem],
          [(disk * ((i * 7) % 95)) / 100, disk],
          world.now(),
        ),
        alerting_thresholds: thresholds,
      },
    })
  }
}

/** One in eleven stopped, one in twenty-three down. */
const running = (i: number): RunState => (i % 11 === 10 ? "stopped" : i % 23 === 22 ? "down" : "running")

const growWorkloads = (world: World, { tagIds, production }: Tags) => {
  const { store } = world
  const servers = store.all("server")
  for (let i = store.all("stack").length; i < LARGE.stacks; i++) {
    const name = `${nth(APPS, i)}-${String(i).padStart(3, "0")}`
    const services = SERVICES.slice(0, 1 + (i % 4))
    const state = running(i)
    const r = store.create("stack", name, {
      tags: [nth(tagIds, i), ...(i % 3 === 0 ? [production] : [])],
      config: {
        server_id: nth(servers, i).id,
        file_paths: ["compose.yaml"],
        git_provider: "github.com",
        git_https: true,
        repo: `acme/${nth(APPS, i)}`,
        branch: i % 9 === 8 ? "release" : "main",
      },
      info: {
        state,
        compose_services: services,
      },
    })
    if (state === "running") r.info = { ...r.info, deployed_snapshot: JSON.stringify(r.config) }
    place(world, "stack", r, state)
  }

  for (let i = store.all("deployment").length; i < LARGE.deployments; i++) {
    const app = nth(APPS, i)
    const state = running(i)
    const r = store.create("deployment", `${app}-svc-${String(i).padStart(3, "0")}`, {
      tags: [nth(tagIds, i)],
      config: {
        server_id: nth(servers, i * 7).id,
        image: { type: "Image", params: { image: `ghcr.io/acme/${app}:1.${i % 10}.${i % 7}` } },
        restart: "unless-stopped",
        network: "bridge",
      },
      info: { state: state === "running" ? "running" : state === "stopped" ? "exited" : "not_deployed" },
    })
    place(world, "deployment", r, state)
  }
}

const growBuilds = (world: World, { tagIds }: Tags) => {
  const { store } = world
  const servers = store.all("server")
  const builders = [
    store.find("builder", "local-builder"),
    store.create("builder", "build-farm", { config: { type: "Server", params: { server_ids: [nth(servers, 3).id] } } }),
  ]
  for (let i = store.all("build").length; i < LARGE.builds; i++) {
    const app = nth(APPS, i)
    store.create("build", `${app}-image-${String(i).padStart(2, "0")}`, {
      tags: [nth(tagIds, i)],
      config: {
        builder_id: nth(builders, i).id,
        repo: `acme/${app}`,
        branch: "main",
        version: { major: 1, minor: i % 10, patch: i % 7 },
      },
      info: {
        state: i % 13 === 12 ? "Failed" : "Ok",
        last_built_at: world.now() - 2 * DAY + i * 60_000,
        built_hash: "3f2c9e1",
      },
    })
  }
}

/** The rest as a real estate has them: fewer, and each a few of the small estate's kinds. */
const growTheRest = (world: World, { tagIds }: Tags) => {
  const { store } = world
  const servers = store.all("server")
  for (let i = store.all("repo").length; i < LARGE.repos; i++) {
    const app = nth(APPS, i)
    store.create("repo", `${app}-config-${String(i).padStart(2, "0")}`, {
      tags: [nth(tagIds, i)],
      config: { server_id: nth(servers, i * 3).id, repo: `acme/${app}-config`, branch: "main", path: `/etc/${app}` },
      info: { state: "Ok", last_pulled_at: world.now() - DAY, latest_hash: "9b1d2aa" },
    })
  }
  for (let i = store.all("procedure").length; i < LARGE.procedures; i++) {
    const app = nth(APPS, i)
    store.create("procedure", `release-${app}-${String(i).padStart(2, "0")}`, {
      tags: [nth(tagIds, i)],
      config: {
        stages: [
          stage("build", { type: "RunBuild", params: { build: `${app}-image-${String(i).padStart(2, "0")}` } }),
          stage("deploy", { type: "BatchDeployStackIfChanged", params: { pattern: `${app}-*` } }),
        ],
      },
      info: { state: "Ok", last_run_at: world.now() - 6 * HOUR - i * 3_600_000 },
    })
  }
  for (let i = store.all("action").length; i < LARGE.actions; i++) {
    store.create("action", `cleanup-${nth(REGIONS, i)}-${i}`, {
      tags: [nth(tagIds, i)],
      config: { file_contents: `await komodo.execute('PruneImages', { server: '${nth(servers, i).name}' })` },
      info: { state: "Ok", last_run_at: null },
    })
  }
  for (let i = store.all("variable").length; i < LARGE.variables; i++) {
    const app = nth(APPS, i).toUpperCase()
    store.create("variable", `${app}_REPLICAS_${i}`, {
      config: { value: String(1 + (i % 4)), description: `Replicas of ${nth(APPS, i)}`, is_secret: false },
    })
  }
}

/** Grows `world`'s small estate (already seeded) to the large one. */
const grow = (world: World): void => {
  const tags = tagsOf(world)
  growServers(world, tags)
  // Placed three days before the scenario's start, as the small estate's are.
  world.clock.at(world.clock.start - 3 * DAY)
  growWorkloads(world, tags)
  world.clock.at(world.clock.start)
  growBuilds(world, tags)
  growTheRest(world, tags)
  world.users.push(...PEOPLE.map((name) => sandboxUser(world, name, false)))
  world.users.push(sandboxUser(world, "release-bot", false, "Release automation: runs the release procedure"))
}

/** Seeds `world` with `estate`; answers its users. */
export const seedEstate = (world: World, estate: Estate = "small"): ReadonlyArray<SandboxUser> => {
  const users = seed(world)
  if (estate === "large") grow(world)
  return estate === "large" ? world.users : users
}
