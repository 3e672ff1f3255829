/**
 * The calm estate's settings (Seed.ts seeds the rest): its variables, user groups and accounts,
 * and last the sync that keeps the estate as its repository says, whose pending changes name the
 * resources seeded before it.
 */
import { pendingInfo } from "../Sync/SyncPending.js"
import { DAY } from "../World/Clock.js"
import type { RepoCommit, World } from "../World/World.js"

/** The head of the estate's repository: beyond the estate by changes of each kind. */
const INFRA_HEAD: RepoCommit = {
  hash: "c41e7d2",
  message: "Move the cache to its own stack; retire legacy-cron",
  declared: [
    { kind: "stack", name: "cache", fields: { server: "prod-01" } },
    { kind: "stack", name: "web", fields: { branch: "release" }, deploy: true },
    { kind: "deployment", name: "legacy-cron" },
    { kind: "build", name: "docs-image", fields: { branch: "docs-v2" } },
    { kind: "variable", name: "LOG_LEVEL", fields: { value: "debug" } },
    { kind: "variable", name: "CACHE_SIZE", fields: { value: "512mb" } },
    { kind: "user_group", name: "developers", fields: { everyone: true } },
  ],
}

/** Variables, user groups, accounts; and the sync last, whose pending changes name the resources above. */
export const seedSettings = (world: World) => {
  const { store } = world
  const variable = (name: string, value: string, description: string, is_secret = false) =>
    store.create("variable", name, { config: { value, description, is_secret } })
  variable("REGISTRY", "ghcr.io/acme", "Image registry for builds")
  variable("LOG_LEVEL", "info", "Default log level")
  variable("DB_PASSWORD", "s3cr3t-db-passw0rd", "Production database password", true)

  store.create("user_group", "operators", { config: { users: ["alice"], everyone: false, all: { Server: "Execute" } } })
  store.create("user_group", "developers", { config: { users: ["bob"], everyone: false, all: { Build: "Read" } } })
  store.create("git_provider_account", "github.com:acme-bot", {
    config: { domain: "github.com", username: "acme-bot", token: "ghp_sandboxtokennotreal", https: true },
  })
  store.create("image_registry_account", "ghcr.io:acme-bot", {
    config: { domain: "ghcr.io", username: "acme-bot", token: "ghcr_sandboxtokennotreal" },
  })
  // Created last: its pending changes name the resources above.
  world.repositories.set("acme/infra", INFRA_HEAD)
  // It keeps the whole estate as its repository says: resources (deletes too), variables and user groups.
  const config = {
    repo: "acme/infra",
    branch: "main",
    resource_path: ["resources"],
    include_resources: true,
    delete: true,
    include_variables: true,
    include_user_groups: true,
  }
  store.create("sync_resource", "estate-sync", {
    // It changes production: tagged so, as what it keeps is.
    tags: [store.find("tag", "production").id],
    config,
    info: { last_sync_ts: world.now() - 5 * DAY, last_sync_hash: "9b1d2aa", ...pendingInfo(world, INFRA_HEAD, config) },
  })
}
