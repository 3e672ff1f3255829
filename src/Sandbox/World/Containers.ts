/**
 * A container as docker keeps it and answers it: made at a deploy, started,
 * stopped and restarted on the scenario's clock, with the exit code and restart
 * count of its last exit; and the one view of it every read answers from (a
 * list's item, an inspect, a resource's container), so that they agree.
 */
import type { Resource } from "./Store.js"
import type { Container, Image, World } from "./World.js"

const SECOND = 1000

/** A length of time in docker's words (go-units' HumanDuration): "3 seconds", "About a minute", "2 days". */
const humanDuration = (ms: number): string => {
  const seconds = Math.floor(ms / SECOND)
  if (seconds < 1) return "Less than a second"
  if (seconds === 1) return "1 second"
  if (seconds < 60) return `${seconds} seconds`
  const minutes = Math.floor(seconds / 60)
  if (minutes === 1) return "About a minute"
  if (minutes < 60) return `${minutes} minutes`
  const hours = Math.floor(seconds / 3600 + 0.5)
  if (hours === 1) return "About an hour"
  if (hours < 48) return `${hours} hours`
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`
  return `${Math.floor(hours / 24 / 365)} years`
}

/** The status `docker ps` shows at `now`: "Up 3 seconds", "Exited (0) 5 minutes ago", "Restarting (1) 8 seconds ago". */
const statusOf = (c: Container, now: number): string => {
  const since = (ts: number | undefined) => humanDuration(Math.max(0, now - (ts ?? now)))
  switch (c.state) {
    case "running":
      return `Up ${since(c.started)}`
    case "paused":
      return `Up ${since(c.started)} (Paused)`
    case "restarting":
      return `Restarting (${c.exitCode}) ${since(c.finished)} ago`
    case "exited":
      return `Exited (${c.exitCode}) ${since(c.finished)} ago`
    case "created":
      return "Created"
    case "removing":
      return "Removing"
  }
}

/** An id of `length` hex digits, the same for the same text. */
const hexOf = (text: string, length: number): string => {
  let out = ""
  for (let round = 0; out.length < length; round++) {
    let h = 0x811c9dc5 ^ round
    for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0
    out += h.toString(16).padStart(8, "0")
  }
  return out.slice(0, length)
}

/** What each well-known image weighs, in bytes; another weighs 120 MB. */
const IMAGE_SIZES: ReadonlyArray<readonly [RegExp, number]> = [
  [/redis/, 41_000_000],
  [/nginx|web/, 192_000_000],
  [/prometheus/, 301_000_000],
  [/grafana/, 486_000_000],
  [/node-exporter/, 24_000_000],
  [/worker/, 164_000_000],
]

/** The image `name` on a server, pulled there now if docker did not hold it (as a deploy's pull does). */
const imageOn = (world: World, server: Resource, name: string): Image => {
  const images = world.docker.imagesOn(server.id)
  const found = images.find((i) => i.name === name)
  if (found !== undefined) return found
  const image: Image = {
    id: `sha256:${hexOf(name, 12)}`,
    name,
    size: IMAGE_SIZES.find(([test]) => test.test(name))?.[1] ?? 120_000_000,
    // Built a day before it was pulled.
    created: Math.floor(world.now() / SECOND) - 86_400,
  }
  world.docker.add(images, image)
  return image
}

/** What each well-known volume holds, in bytes; another holds 20 MB. */
const VOLUME_SIZES: ReadonlyArray<readonly [RegExp, number]> = [
  [/redis/, 180_000_000],
  [/prometheus/, 3_200_000_000],
  [/grafana/, 92_000_000],
  [/postgres|db/, 1_400_000_000],
]

/** The volume `name` on a server, made now if docker did not hold it (as compose makes a project's volumes). */
const volumeOn = (world: World, server: Resource, name: string): void => {
  const volumes = world.docker.volumesOn(server.id)
  if (volumes.some((v) => v.name === name)) return
  const size = VOLUME_SIZES.find(([test]) => test.test(name))?.[1] ?? 20_000_000
  world.docker.add(volumes, { name, driver: "local", size, created: world.now() })
}

/** A new container, made and started now, as a deploy's `docker run` or compose's `up` makes one. */
export const made = (
  world: World,
  server: Resource,
  spec: Pick<Container, "name" | "image" | "networks" | "ports" | "volumes" | "owner">,
): Container => {
  const now = world.now()
  imageOn(world, server, spec.image)
  for (const volume of spec.volumes) volumeOn(world, server, volume)
  return {
    ...spec,
    server_id: server.id,
    // 64 hex digits as docker's: a new one each time a container is made, the same two runs in a row.
    id: hexOf(`${spec.name}/${server.name}/${++world.docker.made}`, 64),
    state: "running",
    created: now,
    started: now,
    exitCode: 0,
    restarts: 0,
  }
}

/** How a container exits on its own: a crash-looping image's code. */
const CRASH_CODE = 1

/** Moves a container to `state` now, as docker's start, stop, pause, restart and the crash of its process do. */
export const moveTo = (world: World, c: Container, state: Container["state"], restart = false): void => {
  const now = world.now()
  const was = c.state
  if (state === "running" && (restart || (was !== "running" && was !== "paused"))) c.started = now
  if (state === "exited" && was !== "exited") {
    // Stopped while docker waits to restart it, it keeps the code of its last exit.
    if (was !== "restarting") {
      c.finished = now
      c.exitCode = 0
    }
  }
  if (state === "restarting") {
    // Its process exited, and docker starts it again.
    if (was === "restarting") c.restarts += 1
    c.started = now
    c.finished = now
    c.exitCode = CRASH_CODE
  }
  c.state = state
}

const iso = (ts: number | undefined) => (ts === undefined ? "0001-01-01T00:00:00Z" : new Date(ts).toISOString())

const labelsOf = (c: Container) => (c.owner === undefined ? {} : { "com.docker.compose.service": c.owner.service })

/** A container as docker's inspect answers it. */
export const inspected = (world: World, c: Container) => ({
  Id: c.id,
  Name: `/${c.name}`,
  Created: iso(c.created),
  Image: imageIdOf(world, c),
  RestartCount: c.restarts,
  State: {
    Status: c.state,
    // Docker's own: a paused or restarting container is still running.
    Running: c.state === "running" || c.state === "paused" || c.state === "restarting",
    Paused: c.state === "paused",
    Restarting: c.state === "restarting",
    OOMKilled: false,
    Dead: false,
    ExitCode: c.exitCode,
    // Why docker could not start it, where it could not: its process never ran.
    ...(c.error === undefined ? {} : { Error: c.error }),
    StartedAt: iso(c.state === "created" ? undefined : c.started),
    FinishedAt: iso(c.finished),
    // A stack's services check their own health (their logs say "healthy"), as does an image built with a check.
    ...((c.owner?.kind === "stack" || imageOf(world, c)?.healthcheck === true) && c.state === "running"
      ? { Health: { Status: "healthy", FailingStreak: 0 } }
      : {}),
  },
  Config: { Image: c.image, Hostname: c.id.slice(0, 12), Labels: labelsOf(c) },
  // A deployment's container restarts as its config says; a stack's as docker's default, unless told.
  HostConfig: { RestartPolicy: { Name: restartOf(world, c), MaximumRetryCount: 0 } },
  NetworkSettings: { Networks: Object.fromEntries(c.networks.map((n) => [n, { NetworkID: n }])) },
  Mounts: [
    ...c.volumes.map((v) => ({
      Type: "volume",
      Name: v,
      Source: `/var/lib/docker/volumes/${v}/_data`,
      Destination: `/data/${v}`,
      Driver: "local",
      RW: true,
    })),
    ...bindsOf(world, c),
  ],
})

/** A deployment's bind mounts, as its config's `volumes` gives them: `/on/host:/inside[:ro]`, one a line. */
const bindsOf = (world: World, c: Container) => {
  if (c.owner?.kind !== "deployment") return []
  const volumes = world.store.all("deployment").find((r) => r.id === c.owner?.id)?.config.volumes
  return String(volumes ?? "")
    .split("\n")
    .flatMap((line) => {
      const [source = "", destination = "", mode = ""] = line.trim().split(":")
      if (!source.startsWith("/") || destination === "") return []
      return [
        {
          Type: "bind",
          Source: source,
          Destination: destination,
          Mode: mode,
          RW: mode !== "ro",
          Propagation: "rprivate",
        },
      ]
    })
}

/** The restart policy a container was made with: its deployment's, else docker's default ("no"). */
const restartOf = (world: World, c: Container): string => {
  if (c.owner?.kind !== "deployment") return "no"
  const restart = world.store.all("deployment").find((r) => r.id === c.owner?.id)?.config.restart
  return typeof restart === "string" && restart !== "" ? restart : "no"
}

/** The image a container runs, on its server. */
const imageOf = (world: World, c: Container): Image | undefined =>
  world.docker.imagesOn(c.server_id).find((i) => i.name === c.image)

/** The id of the image a container runs, as docker names it. */
const imageIdOf = (world: World, c: Container) => imageOf(world, c)?.id ?? ""

/** A container as docker's list answers it (and the service's ContainerListItem). */
export const listed = (world: World, c: Container) => ({
  name: c.name,
  id: c.id,
  image: c.image,
  image_id: imageIdOf(world, c),
  created: Math.floor(c.created / SECOND),
  state: c.state,
  status: statusOf(c, world.now()),
  server_id: c.server_id,
  server_name: world.store.all("server").find((s) => s.id === c.server_id)?.name ?? "",
  networks: [...c.networks],
  ports: [...c.ports],
  volumes: [...c.volumes],
  labels: labelsOf(c),
})
