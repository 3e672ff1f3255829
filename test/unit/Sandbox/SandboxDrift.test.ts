/**
 * The sandbox's `drift` scenario: a sync whose repository moved on since its
 * last refresh, and stacks whose compose files changed since they were
 * deployed. A refresh shows the repository's head; a run applies it to the
 * estate, after which nothing is pending; a deploy brings a stack's deployed
 * files in line. The same two runs in a row.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Definitions from "../../support/Definitions.js"
import * as Sandboxes from "../../support/Sandbox.js"

const validator = Definitions.validators(true)
/** Why an answer does not conform to the endpoint's answer definition; empty if it does. */
const nonconforming = (endpoint: string, body: unknown): ReadonlyArray<string> => {
  const response = Definitions.document.endpoints[endpoint]?.response
  if (response === null || response === undefined) return [`${endpoint}: no definition`]
  const validate = validator(response)
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${endpoint} ${e.instancePath} ${e.message}`)
}

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

const sandboxOf = (scenario: "drift" | "calm") => Effect.map(Sandboxes.scoped({ scenario }), Sandboxes.asAdmin)

/** A sync's pending changes in brief: `<type> <Create|Update|Delete> <name>`, names read from the TOML. */
const brief = (info: Any): ReadonlyArray<string> => {
  const name = (data: Any) => data.name ?? /name = "([^"]+)"/.exec(data.current ?? data.proposed)?.[1]
  return [
    ...info.resource_updates.map((u: Any) => `${u.target.type} ${u.data.type} ${name(u.data.data)}`),
    ...info.variable_updates.map((u: Any) => `Variable ${u.type} ${name(u.data)}`),
    ...info.user_group_updates.map((u: Any) => `UserGroup ${u.type} ${name(u.data)}`),
  ]
}

const HEAD = [
  "Stack Create cache",
  "Stack Update web",
  "Deployment Update docs",
  "Deployment Delete legacy-cron",
  "Build Update api-image",
  "Procedure Delete release",
  "Action Create renew-certs",
  "Variable Update LOG_LEVEL",
  "Variable Create CACHE_SIZE",
  "UserGroup Update operators",
]

describe("the drift scenario", () => {
  it.scopedLive("the sync shows its last refresh's changes; a refresh, those of the repository's head", () =>
    Effect.gen(function* () {
      const { ok } = yield* sandboxOf("drift")
      const before = (yield* ok("read/GetResourceSync", { sync: "estate-sync" })).info
      expect(before.pending_hash).toBe("c41e7d2")
      const refreshed = (yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info
      expect(refreshed.pending_hash).toBe("e8a3f10")
      expect(refreshed.pending_message).toContain("retire legacy-cron")
      expect(brief(refreshed)).toEqual(HEAD)
      const docs = refreshed.resource_updates[2].data.data
      expect(docs.current).toBe('[[deployment]]\nname = "docs"\nimage.params.image = "ghcr.io/acme/docs:2.0.0"\n')
      expect(docs.proposed).toBe('[[deployment]]\nname = "docs"\nimage.params.image = "ghcr.io/acme/docs:2.1.0"\n')
      const web = yield* ok("read/GetStack", { stack: "web" })
      const docsId = (yield* ok("read/GetDeployment", { deployment: "docs" }))._id.$oid
      expect(refreshed.pending_deploys).toEqual([
        { target: { type: "Stack", id: web._id.$oid }, reason: "config changed", after: [] },
        { target: { type: "Deployment", id: docsId }, reason: "config changed", after: [] },
      ])
      // The list says the sync has changes pending.
      const syncs = yield* ok("read/ListResourceSyncs", {})
      expect(syncs.find((s: Any) => s.name === "estate-sync").info.state).toBe("Pending")
    }),
  )

  it.scopedLive("a sync's settings decide what its plan holds and what its run applies; the seeded sync's are on", () =>
    Effect.gen(function* () {
      const { ok, run } = yield* sandboxOf("drift")
      const config = (yield* ok("read/GetResourceSync", { sync: "estate-sync" })).config
      expect([config.include_resources, config.delete, config.include_variables, config.include_user_groups]).toEqual([
        true,
        true,
        true,
        true,
      ])
      const only = (settings: Record<string, boolean>) =>
        Effect.gen(function* () {
          const sync = yield* ok("read/GetResourceSync", { sync: "estate-sync" })
          yield* ok("write/UpdateResourceSync", { id: sync._id.$oid, config: settings })
          return brief((yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info)
        })
      // Without deletes: the same plan less its two deletes.
      const kept = HEAD.filter((line) => !line.includes(" Delete "))
      expect(yield* only({ delete: false })).toEqual(kept)
      // Without variables and user groups: the resources alone.
      expect(yield* only({ include_variables: false, include_user_groups: false })).toEqual(
        kept.filter((line) => !line.startsWith("Variable") && !line.startsWith("UserGroup")),
      )
      // Without resources: nothing.
      expect(yield* only({ include_resources: false })).toEqual([])
      yield* only({ include_resources: true })
      const update = yield* run("RunSync", { sync: "estate-sync" })
      expect(update.success).toBe(true)
      // The run applied what the plan held: legacy-cron stays, LOG_LEVEL is as it was, cache is made.
      const names = (yield* ok("read/ListDeployments", {})).map((d: Any) => d.name)
      expect(names).toContain("legacy-cron")
      expect((yield* ok("read/GetVariable", { name: "LOG_LEVEL" })).value).toBe("info")
      expect((yield* ok("read/ListStacks", {})).map((d: Any) => d.name)).toContain("cache")
    }),
  )

  it.scopedLive("running the sync applies the changes to the estate and deploys what they call for", () =>
    Effect.gen(function* () {
      const { call, ok, run } = yield* sandboxOf("drift")
      yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })
      const update = yield* run("RunSync", { sync: "estate-sync" })
      expect(update.success).toBe(true)
      // Each type's changes a stage, then the deploys they call for, as the service logs a sync.
      expect(update.logs.map((l: Any) => l.stage)).toEqual([
        "Sync Stacks",
        "Sync Deployments",
        "Sync Builds",
        "Sync Procedures",
        "Sync Actions",
        "Sync Variables",
        "Sync User Groups",
        "Deploy",
        "RunSync",
      ])
      expect(update.logs[1].stdout).toBe("updated Deployment docs\ndeleted Deployment legacy-cron")
      expect(update.logs[7].stdout).toContain("stack web is now running")
      expect(update.logs[8].stdout).toBe("estate-sync: applied 10 changes from e8a3f10")

      const cache = yield* ok("read/GetStack", { stack: "cache" })
      const prod2 = yield* ok("read/GetServer", { server: "prod-02" })
      expect(cache.config).toMatchObject({ server_id: prod2._id.$oid, repo: "acme/cache", branch: "main" })
      const web = yield* ok("read/GetStack", { stack: "web" })
      expect(web.config.branch).toBe("release")
      // Deployed by the sync: its files are those of its repository's head now.
      expect(web.info.deployed_hash).toBe("5d27b8f")
      const docs = yield* ok("read/GetDeployment", { deployment: "docs" })
      expect(docs.config.image).toEqual({ type: "Image", params: { image: "ghcr.io/acme/docs:2.1.0" } })
      const containers = yield* ok("read/ListContainers", { server: "prod-02" })
      expect(containers.find((c: Any) => c.name === "docs").image).toBe("ghcr.io/acme/docs:2.1.0")
      expect((yield* call("read/GetDeployment", { deployment: "legacy-cron" })).status).toBe(500)
      expect((yield* call("read/GetProcedure", { procedure: "release" })).status).toBe(500)
      expect((yield* ok("read/GetBuild", { build: "api-image" })).config.version).toEqual({
        major: 1,
        minor: 5,
        patch: 0,
      })
      expect((yield* ok("read/GetAction", { action: "renew-certs" })).config.file_contents).toContain("RestartStack")
      expect((yield* ok("read/GetVariable", { name: "LOG_LEVEL" })).value).toBe("warn")
      expect((yield* ok("read/GetVariable", { name: "CACHE_SIZE" })).value).toBe("1gb")
      expect((yield* ok("read/GetUserGroup", { user_group: "operators" })).users).toEqual(["alice", "carol"])

      // Nothing pending after it, and a refresh finds nothing either.
      const synced = (yield* ok("read/GetResourceSync", { sync: "estate-sync" })).info
      expect(synced).toMatchObject({ last_sync_hash: "e8a3f10", pending_hash: "" })
      expect(brief(synced)).toEqual([])
      expect(synced.pending_deploys).toEqual([])
      const again = (yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info
      expect(brief(again)).toEqual([])
      const syncs = yield* ok("read/ListResourceSyncs", {})
      expect(syncs.find((s: Any) => s.name === "estate-sync").info.state).toBe("Ok")
      // A change made by hand since is drift again: the next refresh shows it.
      yield* ok("write/UpdateVariableValue", { name: "LOG_LEVEL", value: "debug" })
      expect(brief((yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info)).toEqual([
        "Variable Update LOG_LEVEL",
      ])
    }),
  )

  it.scopedLive("a run limited to some resources applies those alone; the rest stay pending", () =>
    Effect.gen(function* () {
      const { call, ok, run } = yield* sandboxOf("drift")
      yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })
      yield* run("RunSync", { sync: "estate-sync", resource_type: "Deployment", resources: ["legacy-cron"] })
      expect((yield* call("read/GetDeployment", { deployment: "legacy-cron" })).status).toBe(500)
      const info = (yield* ok("read/GetResourceSync", { sync: "estate-sync" })).info
      expect(brief(info)).toEqual(HEAD.filter((line) => line !== "Deployment Delete legacy-cron"))
      expect((yield* ok("read/GetDeployment", { deployment: "docs" })).config.image.params.image).toBe(
        "ghcr.io/acme/docs:2.0.0",
      )
    }),
  )

  it.scopedLive("committing a managed sync writes the estate to its repository: nothing is pending", () =>
    Effect.gen(function* () {
      const { ok } = yield* sandboxOf("drift")
      yield* ok("write/UpdateResourceSync", { id: "estate-sync", config: { managed: true } })
      const update = yield* ok("write/CommitSync", { sync: "estate-sync" })
      expect(update.success).toBe(true)
      const info = (yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info
      expect(brief(info)).toEqual([])
      expect(info.pending_hash).toBe("")
      expect((yield* ok("read/GetDeployment", { deployment: "legacy-cron" })).name).toBe("legacy-cron")
    }),
  )

  it.scopedLive("a commit's head declares what it committed: a run after a change brings the estate back to it", () =>
    Effect.gen(function* () {
      const { ok, run } = yield* sandboxOf("drift")
      yield* ok("write/UpdateResourceSync", { id: "estate-sync", config: { managed: true } })
      const image = (yield* ok("read/GetDeployment", { deployment: "api" })).config.image.params.image
      yield* ok("write/CommitSync", { sync: "estate-sync" })
      yield* ok("write/UpdateDeployment", {
        id: "api",
        config: { image: { type: "Image", params: { image: "ghcr.io/acme/api:9.9.9" } } },
      })
      // No refresh between: the run reads the head the commit left.
      expect((yield* run("RunSync", { sync: "estate-sync" })).success).toBe(true)
      expect((yield* ok("read/GetDeployment", { deployment: "api" })).config.image.params.image).toBe(image)
    }),
  )

  it.scopedLive("web and monitoring run files their repositories no longer hold; a deploy brings them in line", () =>
    Effect.gen(function* () {
      const { ok, run } = yield* sandboxOf("drift")
      const stacks = yield* ok("read/ListStacks", {})
      const hashes = (name: string) => {
        const info = stacks.find((s: Any) => s.name === name).info
        return [info.deployed_hash, info.latest_hash]
      }
      expect(hashes("web")).toEqual(["a1c4e09", "5d27b8f"])
      expect(hashes("monitoring")).toEqual(["0f3a9c1", "b8e2d47"])
      const monitoring = (yield* ok("read/GetStack", { stack: "monitoring" })).info
      expect(monitoring.deployed_contents).toHaveLength(1)
      expect(monitoring.deployed_contents[0].path).toBe("compose.yaml")
      expect(monitoring.deployed_contents[0].contents).not.toContain("node-exporter")
      expect(monitoring.remote_contents[0].contents).toContain(
        "node-exporter:\n    image: library/node-exporter:latest",
      )
      expect(monitoring.remote_contents[0].services).toEqual(["prometheus", "grafana", "node-exporter"])
      expect(monitoring.deployed_message).toBe("grafana: provisioned dashboards")
      expect(monitoring.latest_message).toBe("Add node-exporter for host metrics")
      // The service its files add runs nowhere yet.
      const services = yield* ok("read/ListStackServices", { stack: "monitoring" })
      expect(services.map((s: Any) => `${s.service} ${s.state}`)).toEqual([
        "prometheus Running",
        "grafana Running",
        "node-exporter Down",
      ])
      const web = (yield* ok("read/GetStack", { stack: "web" })).info
      expect(web.deployed_contents[0].contents).toContain("WORKER_CONCURRENCY: 4")
      expect(web.remote_contents[0].contents).toContain("WORKER_CONCURRENCY: 8")

      // Changed: a deploy if changed deploys it, and the deployed files become the repository's.
      const update = yield* run("DeployStackIfChanged", { stack: "monitoring" })
      expect(update.success).toBe(true)
      const deployed = (yield* ok("read/GetStack", { stack: "monitoring" })).info
      expect(deployed.deployed_contents).toEqual([
        { path: "compose.yaml", contents: monitoring.remote_contents[0].contents },
      ])
      expect([deployed.deployed_hash, deployed.deployed_message]).toEqual([
        "b8e2d47",
        "Add node-exporter for host metrics",
      ])
      const after = yield* ok("read/ListStackServices", { stack: "monitoring" })
      expect(after.map((s: Any) => `${s.service} ${s.state}`)).toEqual([
        "prometheus Running",
        "grafana Running",
        "node-exporter Running",
      ])
      expect((yield* ok("execute/DeployStackIfChanged", { stack: "monitoring" }))._id).toBeUndefined()
    }),
  )

  it.scopedLive("answers as the definitions say after the sync has run and the stacks are deployed", () =>
    Effect.gen(function* () {
      const { ok, run } = yield* sandboxOf("drift")
      const update = yield* run("RunSync", { sync: "estate-sync" })
      yield* run("DeployStack", { stack: "monitoring" })
      const reads: ReadonlyArray<readonly [string, unknown]> = [
        ["read/GetUpdate", { id: update._id.$oid }],
        ["read/GetResourceSync", { sync: "estate-sync" }],
        ["read/ListResourceSyncs", {}],
        ["read/ListFullResourceSyncs", {}],
        ["read/GetStack", { stack: "cache" }],
        ["read/GetStack", { stack: "web" }],
        ["read/GetStack", { stack: "monitoring" }],
        ["read/ListStacks", {}],
        ["read/ListFullStacks", {}],
        ["read/ListStackServices", { stack: "monitoring" }],
        ["read/ListDeployments", {}],
        ["read/ListFullDeployments", {}],
        ["read/ListFullBuilds", {}],
        ["read/ListFullProcedures", {}],
        ["read/ListFullActions", {}],
        ["read/GetAction", { action: "renew-certs" }],
        ["read/ListVariables", {}],
        ["read/ListUserGroups", {}],
        ["read/ExportAllResourcesToToml", {}],
      ]
      const failures: Array<string> = []
      for (const [endpoint, params] of reads) failures.push(...nonconforming(endpoint, yield* ok(endpoint, params)))
      expect(failures).toEqual([])
    }),
  )

  it.scopedLive("is the same two runs in a row: ids, contents, pending changes", () =>
    Effect.gen(function* () {
      const story = (ok: (endpoint: string, params?: unknown) => Effect.Effect<Any>) =>
        Effect.all(
          [
            ok("read/ListFullStacks"),
            ok("read/ListFullDeployments"),
            ok("read/ListFullResourceSyncs"),
            ok("write/RefreshResourceSyncPending", { sync: "estate-sync" }),
            ok("read/ListUpdates"),
          ].map((e) => Effect.map(e, (body) => JSON.stringify(body))),
        )
      const first = yield* story((yield* sandboxOf("drift")).ok)
      const second = yield* story((yield* sandboxOf("drift")).ok)
      expect(second).toEqual(first)
    }),
  )

  it.scopedLive("calm's sync applies its changes too: legacy-cron retired, the cache stack made", () =>
    Effect.gen(function* () {
      const { call, ok, run } = yield* sandboxOf("calm")
      yield* run("RunSync", { sync: "estate-sync" })
      expect((yield* call("read/GetDeployment", { deployment: "legacy-cron" })).status).toBe(500)
      expect((yield* ok("read/GetStack", { stack: "cache" })).name).toBe("cache")
      expect(brief((yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info)).toEqual([])
    }),
  )
})
