/**
 * The `incident` scenario: a bad morning on the small estate. The `api`
 * deployment was just deployed with a new tag that needs a setting its
 * environment lacks, and crash-loops; prod-02's disk is 96% full; staging-01
 * stopped answering 37 minutes ago; the `docs-image` build failed on a broken
 * link; the `monitoring` stack's registry holds a newer grafana (as on a calm
 * day). Each can be mended through the API, as on the service.
 */

import type { Stage } from "../Docker/Compose.js"
import { deploymentStage } from "../Docker/Deployments.js"
import * as Alerts from "../Monitoring/Alerts.js"
import { type Clock, DAY, MINUTE as MIN, START } from "../World/Clock.js"
import { crashed, logKey, place } from "../World/Lifecycle.js"
import type { Resource } from "../World/Store.js"
import type { World } from "../World/World.js"

/** A time in seconds, as docker dates images. */
const seconds = (ts: number) => Math.floor(ts / 1000)

const PREVIOUS_IMAGE = "ghcr.io/acme/api:1.4.2"
const NEW_IMAGE = "ghcr.io/acme/api:1.5.0"
const SETTING = "API_SIGNING_KEY"

const CRASH = [
  "api | starting api 1.5.0",
  "api | config: reading settings from the environment",
  `api | Error: missing required setting ${SETTING} (required since 1.5.0, see the release notes)`,
  "api | process exited with code 1",
]

/** An Update the service recorded at `ts`, its stages each a minute long at most. */
const recorded = (world: World, clock: Clock, ts: number, operation: string, target: Resource, stages: Stage[]) => {
  clock.at(ts)
  const type = operation === "RunBuild" ? "Build" : "Deployment"
  const update = world.newUpdate(operation, { type, id: target.id }, world.users[0]?._id.$oid ?? "")
  for (const s of stages) {
    update.logs.push({
      stage: s.stage,
      command: s.command,
      stdout: s.stdout ?? "",
      stderr: s.stderr ?? "",
      success: s.success ?? true,
      start_ts: ts,
      end_ts: ts + 20_000,
    })
  }
  update.success = stages.every((s) => s.success !== false)
  update.end_ts = ts + 20_000
  update.status = "Complete"
}

/** A deploy of api at `ts` as the service logs it: its agent's `docker run`, which answers the new container's id. */
const deploy = (world: World, clock: Clock, ts: number, api: Resource, image: string) => {
  clock.at(ts)
  api.config = { ...api.config, image: { type: "Image", params: { image } } }
  place(world, "deployment", api, "running", () => "new")
  const id = world.allContainers().find((c) => c.owner?.id === api.id)?.id ?? ""
  const stage = deploymentStage({
    operation: "Deploy",
    deployment: api,
    image,
    before: "running",
    id,
    newer: true,
    params: {},
  })
  recorded(world, clock, ts, "Deploy", api, [stage])
}

/** prod-02: its disk nearly full of old images and orphaned volumes; its memory back to normal. */
const fillDisk = (world: World, prod2: Resource) => {
  // Past 95% 51 minutes ago, when its alert opened: its stats over time say so.
  const stats = { ...(prod2.info.stats as object), mem_used_gb: 9.2, mem_free_gb: 6.8, disk_used_gb: 480 }
  world.report(prod2, stats, START - 51 * MIN)
  const old = (tag: string, id: string) => ({
    id,
    name: `ghcr.io/acme/docs:${tag}`,
    size: 2_200_000_000,
    created: seconds(START - 30 * DAY),
  })
  world.docker
    .imagesOn(prod2.id)
    .push(
      old("1.9.0", "sha256:1b7e40c2f9a3"),
      old("1.9.1", "sha256:2c8f51d3a0b4"),
      old("1.9.2", "sha256:3d9062e4b1c5"),
      {
        id: "sha256:4ea173f5c2d6",
        name: "ghcr.io/acme/docs-build-cache:latest",
        size: 20_600_000_000,
        created: seconds(START - 20 * DAY),
      },
    )
  world.docker
    .volumesOn(prod2.id)
    .push(
      { name: "prometheus-data-old", driver: "local", size: 64_000_000_000, created: START - 90 * DAY },
      { name: "docs-preview-cache", driver: "local", size: 24_000_000_000, created: START - 40 * DAY },
    )
}

/** api: deployed 8 minutes ago with 1.5.0, which exits for want of a setting; Docker restarts it. */
const crashApi = (world: World, clock: Clock) => {
  const api = world.store.find("deployment", "api")
  const prod1 = world.store.find("server", String(api.config.server_id))
  deploy(world, clock, START - 2 * DAY, api, PREVIOUS_IMAGE)
  recorded(world, clock, START - 9 * MIN, "UpdateDeployment", api, [
    { stage: "Update Deployment", command: "", stdout: `image: ${PREVIOUS_IMAGE} -> ${NEW_IMAGE}` },
  ])
  world.docker.imagesOn(prod1.id).push({
    id: "sha256:6f1c82a4d9e0",
    name: NEW_IMAGE,
    size: 188_000_000,
    created: seconds(START - 40 * MIN),
    healthcheck: true,
  })
  world.docker.crashing.set(NEW_IMAGE, { missing: SETTING, lines: CRASH })
  clock.at(START - 8 * MIN)
  world.log(logKey("deployment", api), "api", "api | received SIGTERM, shutting down 1.4.2")
  deploy(world, clock, START - 8 * MIN, api, NEW_IMAGE)
  api.info = { ...api.info, state: "restarting" }
  // It exits each time docker starts it, later each time (docker's back-off).
  for (const at of [7, 5, 3]) {
    clock.at(START - at * MIN)
    crashed(world, "deployment", api, { missing: SETTING, lines: CRASH })
  }
}

/** docs-image: built 25 minutes ago from a commit with a broken link; the fix is on main since. */
const failBuild = (world: World, clock: Clock) => {
  const build = world.store.find("build", "docs-image")
  recorded(world, clock, START - 25 * MIN, "RunBuild", build, [
    {
      stage: "Clone Repo",
      command: "git clone https://github.com/acme/docs.git -b main",
      stdout: "Cloning into 'docs'...\nHEAD is now at a41c0de docs: release notes for 2.1",
    },
    {
      stage: "Build",
      command: "docker build -t ghcr.io/acme/docs:1.4.3 -f Dockerfile .",
      stderr: [
        "#8 [build 4/5] RUN npm run build",
        "#8 2.914 > docs@2.1.0 build",
        "#8 2.915 > vitepress build",
        "#8 9.402 x Found dead link /guide/upgrade-2.1 in file release-notes.md",
        '#8 ERROR: process "/bin/sh -c npm run build" did not complete successfully: exit code: 1',
        'ERROR: failed to solve: process "/bin/sh -c npm run build" did not complete successfully: exit code: 1',
      ].join("\n"),
      success: false,
    },
  ])
  build.info = {
    ...build.info,
    state: "Failed",
    last_built_at: START - 25 * MIN,
    latest_hash: "c7e9b02",
    latest_message: "docs: fix the link to the upgrade guide",
  }
}

export const apply = (world: World, clock: Clock): void => {
  const prod2 = world.store.find("server", "prod-02")
  const staging = world.store.find("server", "staging-01")
  crashApi(world, clock)
  fillDisk(world, prod2)
  clock.at(START - 51 * MIN)
  Alerts.refresh(world)
  failBuild(world, clock)
  // staging-01 last answered 37 minutes ago.
  clock.at(START - 37 * MIN)
  staging.info = {
    ...staging.info,
    state: "NotOk",
    stats: { ...(staging.info.stats as object), refresh_ts: START - 37 * MIN, refresh_list_ts: START - 37 * MIN },
  }
  world.watch.unreachable.add(staging.id)
  Alerts.refresh(world)
  clock.at(START)
}
