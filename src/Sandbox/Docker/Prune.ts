/**
 * Docker's prunes on a server, as the service runs them: what is not in use
 * goes, the output lists it and the space reclaimed (in docker's words), and
 * the server's disk is that much emptier at the next stats refresh, where its
 * disk alert resolves once it is under the threshold again.
 */
import * as Alerts from "../Monitoring/Alerts.js"
import { removed } from "../World/Lifecycle.js"
import { isRecord } from "../World/Schema.js"
import type { Resource } from "../World/Store.js"
import type { World } from "../World/World.js"

/** Bytes as docker prints them: 192MB, 1.2GB, 0B. */
const size = (bytes: number) => {
  if (bytes >= 1e9) return `${Math.round(bytes / 1e8) / 10}GB`
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)}MB`
  return bytes >= 1e3 ? `${Math.round(bytes / 1e3)}kB` : `${bytes}B`
}

const reclaim = (world: World, server: Resource, bytes: number) => {
  const stats = isRecord(server.info.stats) ? server.info.stats : undefined
  if (stats !== undefined && bytes > 0) {
    const used = typeof stats.disk_used_gb === "number" ? stats.disk_used_gb : 0
    world.report(server, { ...stats, disk_used_gb: Math.max(0, Math.round((used - bytes / 1e9) * 100) / 100) })
  }
  Alerts.refresh(world)
}

/** Takes out of `all` what `gone` says goes; answers what went. */
const remove = <A>(all: Array<A>, gone: (a: A) => boolean): ReadonlyArray<A> => {
  const removed = all.filter(gone)
  for (const a of removed) all.splice(all.indexOf(a), 1)
  return removed
}

/** Bytes a volume holds when none are given. */
export const VOLUME_SIZE = 50_000_000

const images = (world: World, server: Resource) => {
  // An image any container uses, running or not, is in use: docker keeps it.
  const used = new Set(world.containersOn(server).map((c) => c.image))
  const pruned = remove(world.docker.imagesOn(server.id), (i) => !used.has(i.name))
  const lines = pruned.flatMap((i) => [`untagged: ${i.name}`, `deleted: ${i.id}`])
  return { heading: "Deleted Images:", lines, bytes: pruned.reduce((sum, i) => sum + i.size, 0) }
}

const volumes = (world: World, server: Resource) => {
  const used = new Set(world.containersOn(server).flatMap((c) => c.volumes))
  const pruned = remove(world.docker.volumesOn(server.id), (v) => !used.has(v.name))
  return {
    heading: "Deleted Volumes:",
    lines: pruned.map((v) => v.name),
    bytes: pruned.reduce((sum, v) => sum + (v.size ?? VOLUME_SIZE), 0),
  }
}

const containers = (world: World, server: Resource) => {
  const pruned = remove(world.containersOn(server), (c) => ["exited", "created", "dead"].includes(c.state))
  removed(world, pruned)
  return { heading: "Deleted Containers:", lines: pruned.map((c) => c.id), bytes: pruned.length * 1_000_000 }
}

const networks = (world: World, server: Resource) => {
  const used = new Set(world.containersOn(server).flatMap((c) => c.networks))
  const kept = (n: { name: string }) => used.has(n.name) || ["bridge", "host", "none"].includes(n.name)
  const pruned = remove(world.docker.networksOn(server.id), (n) => !kept(n))
  return { heading: "Deleted Networks:", lines: pruned.map((n) => n.name), bytes: 0 }
}

type Part = typeof images

const run = (world: World, server: Resource, parts: ReadonlyArray<Part>): ReadonlyArray<string> => {
  const done = parts.map((part) => part(world, server))
  const bytes = done.reduce((sum, d) => sum + d.bytes, 0)
  reclaim(world, server, bytes)
  return [
    ...done.flatMap((d) => (d.lines.length === 0 ? [] : [d.heading, ...d.lines, ""])),
    `Total reclaimed space: ${size(bytes)}`,
  ]
}

/** Each prune the service runs on a server, with what it does there. */
export const PRUNES: Readonly<Record<string, (world: World, server: Resource) => ReadonlyArray<string>>> = {
  PruneImages: (world, server) => run(world, server, [images]),
  PruneVolumes: (world, server) => run(world, server, [volumes]),
  PruneContainers: (world, server) => run(world, server, [containers]),
  PruneNetworks: (world, server) => run(world, server, [networks]),
  // `docker system prune -a -f --volumes`: the stopped containers go first, so what only they used goes too.
  PruneSystem: (world, server) => run(world, server, [containers, networks, images, volumes]),
}
