/**
 * The calm estate's access beside its users (Seed.ts seeds them): the CI service user's API key,
 * a developer's rights on the staging stack, the key new edge servers join with, and a shell left
 * open on prod-01. A key's secret and an onboarding key's private key are answered once, when
 * made: the service keeps neither to show. Made after the rest, so that the ids of what Seed.ts
 * makes stay as they were.
 */
import { DAY, HOUR } from "../World/Clock.js"
import type { World } from "../World/World.js"

export const seedAccess = (world: World) => {
  const { store } = world
  const now = world.now()
  const id = (username: string) => world.user(username)._id.$oid
  // What CI logs in with: made three weeks ago, for a year.
  world.apiKeys.push({
    name: "deploy-on-merge",
    key: "K-6b1f0c2d9e8a7f3b4c5d6e7f",
    secret: "S-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f",
    user_id: id("ci-deployer"),
    created_at: now - 21 * DAY,
    expires: now + 344 * DAY,
  })
  // bob deploys staging-web and reads its logs, beyond the developers' Read on builds.
  world.permissions.push({
    _id: { $oid: store.newId() },
    user_target: { type: "User", id: id("bob") },
    resource_target: { type: "Stack", id: store.find("stack", "staging-web").id },
    level: "Execute",
    specific: ["Logs"],
  })
  // New edge servers join with it, tagged production; prod-02 joined with it.
  world.access.onboardingKeys.push({
    name: "edge-nodes",
    enabled: true,
    public_key: "MCowBQYDK2VuAyEA3e7a91c04b5d28f6",
    tags: [store.find("tag", "production").id],
    onboarded: [store.find("server", "prod-02").id],
    privileged: false,
    create_builder: false,
    created_at: now - 40 * DAY,
    expires: now + 50 * DAY,
  })
  const prod1 = store.find("server", "prod-01")
  world.access.terminals.push({
    name: "ops",
    target: { type: "Server", params: { server: prod1.id } },
    command: "bash",
    stored_size_kb: 84.5,
    created_at: now - 3 * HOUR,
    target_name: prod1.name,
  })
}

/**
 * A right the admin was given as a developer, before being made one: Write on the web stack, with
 * its terminal. An admin may do everything, so it changes nothing they may do, but the service keeps
 * it and lists it as theirs (ListPermissions), as it keeps any user's. Made last, after every other
 * seed, so that no id made before it moves.
 */
export const seedFormerRights = (world: World) => {
  world.permissions.push({
    _id: { $oid: world.store.newId() },
    user_target: { type: "User", id: world.user("admin")._id.$oid },
    resource_target: { type: "Stack", id: world.store.find("stack", "web").id },
    level: "Write",
    specific: ["Terminal"],
  })
}
