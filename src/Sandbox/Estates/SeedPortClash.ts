/**
 * The calm estate's one mistake: the docs' release candidate, deployed beside the docs on prod-02
 * on the host port they hold. Docker made its container and could not start it, as `docker run`
 * leaves one: created, exit code 128, its inspect saying why. Made after the rest, so that the ids
 * of what Seed.ts makes stay as they were.
 */
import { HOUR } from "../World/Clock.js"
import { place } from "../World/Lifecycle.js"
import type { World } from "../World/World.js"

export const seedPortClash = (world: World) => {
  const { store, clock } = world
  const prod2 = store.find("server", "prod-02")
  clock.at(clock.start - 5 * HOUR)
  const deployment = store.create("deployment", "docs-next", {
    config: {
      server_id: prod2.id,
      image: { type: "Image", params: { image: "ghcr.io/acme/docs:2.1.0-rc.1" } },
      ports: "8080:80",
      restart: "unless-stopped",
      network: "bridge",
    },
    info: { state: "created" },
  })
  place(world, "deployment", deployment, "running")
  const container = world.containersOn(prod2).find((c) => c.owner?.id === deployment.id)
  if (container !== undefined) {
    container.state = "created"
    container.exitCode = 128
    container.error = `driver failed programming external connectivity on endpoint docs-next (${container.id}): Bind for 0.0.0.0:8080 failed: port is already allocated`
  }
  clock.at(clock.start)
}
