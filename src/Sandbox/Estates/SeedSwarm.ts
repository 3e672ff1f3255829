/**
 * The calm estate's deployment on its swarm (Seed.ts seeds the swarm): the public status page,
 * two replicas behind the swarm's routing mesh, which follows its image's tag on its own.
 * Made after the rest, so that the ids of what Seed.ts makes stay as they were.
 */
import { DAY } from "../World/Clock.js"
import { logKey } from "../World/Lifecycle.js"
import type { World } from "../World/World.js"

export const seedSwarm = (world: World) => {
  const { store, clock } = world
  const swarm = store.find("swarm", "edge-swarm")
  // Made a week ago; its config last changed (a second replica) two days ago.
  clock.at(clock.start - 7 * DAY)
  const deployment = store.create("deployment", "status-page", {
    tags: swarm.tags,
    config: {
      swarm_id: swarm.id,
      image: { type: "Image", params: { image: "ghcr.io/acme/status-page:3.1" } },
      replicas: 2,
      ports: "8081:8080",
      // Its registry is checked for a newer build of its tag, which it deploys on its own.
      poll_for_updates: true,
      auto_update: true,
    },
    info: { state: "running" },
  })
  deployment.updated_at = clock.start - 2 * DAY
  world.log(logKey("deployment", deployment), "status-page", "status-page | serving on :8080")
  clock.at(clock.start)
}
