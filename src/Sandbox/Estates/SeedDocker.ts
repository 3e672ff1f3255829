/**
 * The calm estate's Docker objects on each server (Seed.ts seeds the rest): the images its
 * workloads run, one with hostile labels (Hostile.ts), docker's own networks and a volume.
 */
import { DAY } from "../World/Clock.js"
import type { World } from "../World/World.js"
import * as Hostile from "./Hostile.js"

/** Docker's own networks, the bridge on the subnet it takes unless told another. */
const NETWORKS = [
  { name: "bridge", driver: "bridge", subnet: "172.17.0.0/16" },
  { name: "host", driver: "host" },
]

/** Every server runs the same three images, with docker's two networks and one volume. */
export const seedDocker = (world: World, servers: ReadonlyArray<string>, now: number) => {
  // In seconds, as docker dates images: built some days before the scenario's start.
  const built = (days: number) => Math.floor(now / 1000) - days * 86_400
  for (const id of servers) {
    world.docker.imagesOn(id).push(
      { id: "sha256:5d0da3dc9764", name: "redis:7-alpine", size: 41_000_000, created: built(40) },
      {
        id: "sha256:a8758716bb6a",
        name: "ghcr.io/acme/api:1.4.2",
        size: 182_000_000,
        created: built(6),
        labels: Hostile.IMAGE_LABELS,
        // Its Dockerfile checks /healthz.
        healthcheck: true,
      },
      { id: "sha256:0c5a7f3e21d4", name: "nginx:1.27", size: 192_000_000, created: built(60) },
    )
    world.docker.networksOn(id).push(...NETWORKS)
    world.docker.volumesOn(id).push({ name: "redis-data", driver: "local", size: 120_000_000, created: now - 30 * DAY })
  }
}
