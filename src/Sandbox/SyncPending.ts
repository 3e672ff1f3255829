/**
 * A resource sync's pending changes, in the shape the service computes them on
 * a refresh (ResourceSyncInfo): diffs of TOML text per resource, variable and
 * user group, the deploys the sync would run, and the commit they come from.
 */
import type { Resource, Store } from "./Store.js"

const toml = (section: string, fields: Record<string, string | number | boolean>) =>
  `[[${section}]]\n${Object.entries(fields)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join("\n")}\n`

/** A stack created and one changed, a deployment deleted, a build changed. */
const resourceUpdates = (web: Resource, cron: Resource, docs: Resource) => [
  {
    target: { type: "Stack", id: "" },
    data: {
      type: "Create",
      data: { name: "cache", proposed: toml("stack", { name: "cache", server: "prod-01" }) },
    },
  },
  {
    target: { type: "Stack", id: web.id },
    data: {
      type: "Update",
      data: {
        current: toml("stack", { name: "web", branch: "main" }),
        proposed: toml("stack", { name: "web", branch: "release" }),
      },
    },
  },
  {
    target: { type: "Deployment", id: cron.id },
    data: { type: "Delete", data: { current: toml("deployment", { name: "legacy-cron" }) } },
  },
  {
    target: { type: "Build", id: docs.id },
    data: {
      type: "Update",
      data: {
        current: toml("build", { name: "docs-image", branch: "main" }),
        proposed: toml("build", { name: "docs-image", branch: "docs-v2" }),
      },
    },
  },
]

/** A variable changed and one created, a user group changed. */
const settingUpdates = (logLevel: Resource, developers: Resource) => ({
  variable_updates: [
    {
      type: "Update",
      data: {
        current: toml("variable", { name: logLevel.name, value: "info" }),
        proposed: toml("variable", { name: logLevel.name, value: "debug" }),
      },
    },
    {
      type: "Create",
      data: { name: "CACHE_SIZE", proposed: toml("variable", { name: "CACHE_SIZE", value: "512mb" }) },
    },
  ],
  user_group_updates: [
    {
      type: "Update",
      data: {
        current: toml("user_group", { name: developers.name, everyone: false }),
        proposed: toml("user_group", { name: developers.name, everyone: true }),
      },
    },
  ],
})

/** The changes the seeded sync's repository holds beyond the estate: one of each kind. */
export const pendingInfo = (store: Store): Record<string, unknown> => {
  const find = (kind: "stack" | "deployment" | "build" | "variable" | "user_group", name: string): Resource => {
    const r = store.all(kind).find((x) => x.name === name)
    if (r === undefined) throw new Error(`the seed lacks ${kind} ${name}`)
    return r
  }
  const web = find("stack", "web")
  const cron = find("deployment", "legacy-cron")
  const docs = find("build", "docs-image")
  const logLevel = find("variable", "LOG_LEVEL")
  const developers = find("user_group", "developers")
  return {
    pending_hash: "c41e7d2",
    pending_message: "Move the cache to its own stack; retire legacy-cron",
    pending_error: "",
    pending_deploy_error: "",
    resource_updates: resourceUpdates(web, cron, docs),
    ...settingUpdates(logLevel, developers),
    pending_deploys: [{ target: { type: "Stack", id: web.id }, reason: "config changed", after: [] }],
  }
}

/** The info of a sync once run: nothing pending, the commit it ran recorded as synced. */
export const synced = (info: Record<string, unknown>, now: number): Record<string, unknown> => ({
  ...info,
  state: "Ok",
  last_sync_ts: now,
  last_sync_hash: typeof info.pending_hash === "string" ? info.pending_hash : "",
  last_sync_message: typeof info.pending_message === "string" ? info.pending_message : "",
  pending_hash: "",
  pending_message: "",
  resource_updates: [],
  variable_updates: [],
  user_group_updates: [],
  pending_deploys: [],
})
