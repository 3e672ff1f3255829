/**
 * The sandbox's state holds together across the endpoints without a tool, as
 * the service's does: tags set through resource meta, tags deleted from every
 * resource, the alerts its estate calls for, stats over time that end in the
 * last report, action states that follow the Updates in progress.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

const keyOf = (k: { key: string; secret: string }) => ({ "x-api-key": k.key, "x-api-secret": k.secret })

/** A sandbox, and calls to it as its admin or as its viewer; a refusal fails the call with its status and body. */
const session = (options: Parameters<typeof Sandboxes.scoped>[0] = {}) =>
  Effect.map(Sandboxes.scoped(options), (sandbox) => {
    const as =
      (headers: Record<string, string>) =>
      (endpoint: string, params: unknown = {}): Effect.Effect<{ status: number; body: Any }> =>
        Effect.promise(() => Sandboxes.request(sandbox, endpoint, params, headers))
    const admin = as(keyOf(sandbox.apiKey))
    const ok = (endpoint: string, params: unknown = {}) =>
      Effect.flatMap(admin(endpoint, params), ({ status, body }) =>
        status === 200 ? Effect.succeed(body) : Effect.die(new Error(`${endpoint}: ${status} ${JSON.stringify(body)}`)),
      )
    return { sandbox, admin, ok, viewer: as(keyOf(sandbox.viewer.apiKey)) }
  })

const KINDS = ["Stacks", "Deployments", "Servers", "Builds", "Repos", "Procedures", "Actions", "Alerters"]

describe("the sandbox's tags", () => {
  it.scopedLive("resource meta sets a resource's whole set of tags, by id or name, and a new name makes a tag", () =>
    Effect.gen(function* () {
      const { ok, admin, viewer } = yield* session()
      const production = (yield* ok("read/GetTag", { tag: "production" }))._id.$oid
      expect(
        yield* ok("write/UpdateResourceMeta", {
          target: { type: "Deployment", id: "docs" },
          tags: ["canary", production, "canary"],
          description: "The public docs",
        }),
      ).toEqual({})
      const canary = (yield* ok("read/ListTags", { query: { name: "canary" } }))[0]
      expect(canary).toMatchObject({ name: "canary" })
      const docs = yield* ok("read/GetDeployment", { deployment: "docs" })
      expect(docs.tags).toEqual([canary._id.$oid, production])
      expect(docs.description).toBe("The public docs")
      const tagged = yield* ok("read/ListDeployments", { query: { tags: ["canary"] } })
      expect(tagged.map((d: Any) => d.name)).toEqual(["docs"])

      // The viewer may not, and the System target has no meta.
      const refused = yield* viewer("write/UpdateResourceMeta", {
        target: { type: "Deployment", id: "docs" },
        tags: [],
      })
      expect(refused).toEqual({
        status: 500,
        body: {
          error: "User does not have required permissions on this Deployment. Must have at least Write permissions",
          trace: [],
        },
      })
      const system = yield* admin("write/UpdateResourceMeta", { target: { type: "System", id: "" }, tags: [] })
      expect(system.status).toBe(400)
      expect((yield* ok("read/GetDeployment", { deployment: "docs" })).tags).toHaveLength(2)
    }),
  )

  it.scopedLive("a deleted tag leaves every resource that carried it", () =>
    Effect.gen(function* () {
      const { ok } = yield* session()
      const production = (yield* ok("read/GetTag", { tag: "production" }))._id.$oid
      const carriers = Effect.gen(function* () {
        const names: Array<string> = []
        for (const plural of KINDS) {
          const listed: ReadonlyArray<Any> = yield* ok(`read/ListFull${plural}`, { limit: 0 })
          names.push(...listed.filter((r) => r.tags.includes(production)).map((r) => r.name))
        }
        return names.sort()
      })
      expect(yield* carriers).toEqual([
        "api",
        "api-image",
        "docs",
        "infra",
        "monitoring",
        "nightly-backup",
        "prod-01",
        "prod-02",
        "rotate-logs",
        "status-page",
        "web",
      ])
      yield* ok("write/DeleteTag", { id: "production" })
      expect(yield* carriers).toEqual([])
      // The other tags stay where they were.
      expect((yield* ok("read/GetStack", { stack: "monitoring" })).tags).toHaveLength(1)
    }),
  )
})

describe("the sandbox's alerts", () => {
  it.scopedLive("are raised for prod-02's memory and disk over their thresholds; only an admin closes one", () =>
    Effect.gen(function* () {
      const { ok, viewer } = yield* session()
      const prod2 = (yield* ok("read/GetServer", { server: "prod-02" }))._id.$oid
      const { alerts } = yield* ok("read/ListAlerts", { query: { resolved: false } })
      expect(
        alerts.map((a: Any) => [a.level, a.target, a.data.type, a.data.data.used_gb, a.data.data.total_gb]).sort(),
      ).toEqual([
        ["WARNING", { type: "Server", id: prod2 }, "ServerDisk", 401, 500],
        ["WARNING", { type: "Server", id: prod2 }, "ServerMem", 13.9, 16],
      ])
      const memory = alerts.find((a: Any) => a.data.type === "ServerMem")
      expect(memory.data.data.name).toBe("prod-02")

      const refused = yield* viewer("write/CloseAlert", { id: memory._id.$oid })
      expect(refused).toEqual({ status: 500, body: { error: "This call is admin-only", trace: [] } })
      expect(yield* ok("write/CloseAlert", { id: memory._id.$oid })).toEqual({})
      const closed = yield* ok("read/GetAlert", { id: memory._id.$oid })
      expect(closed.resolved).toBe(true)
      expect(closed.resolved_ts).toBeGreaterThanOrEqual(closed.ts)
      const open = (yield* ok("read/ListAlerts", { query: { resolved: false } })).alerts
      expect(open.map((a: Any) => a.data.type)).toEqual(["ServerDisk"])
      // The viewer reads them as everyone does.
      expect((yield* viewer("read/ListAlerts", {})).body.alerts).toHaveLength(2)
    }),
  )
})

describe("the sandbox's monitoring", () => {
  it.scopedLive(
    "a server's stats over time end in its last report, a step of the granularity apart, newest first",
    () =>
      Effect.gen(function* () {
        const { ok } = yield* session()
        const now = yield* ok("read/GetSystemStats", { server: "prod-02" })
        expect(now).toMatchObject({ cpu_perc: 71.2, mem_used_gb: 13.9, mem_total_gb: 16 })
        expect(now.disks).toEqual([{ mount: "/", file_system: "/dev/sda1", used_gb: 401, total_gb: 500 }])
        const first = yield* ok("read/GetHistoricalServerStats", { server: "prod-02", granularity: "5-min" })
        expect(first.stats).toHaveLength(100)
        expect(first.next_page).toBe(1)
        expect(first.stats[0]).toMatchObject({ cpu_perc: 71.2, mem_used_gb: 13.9, disk_used_gb: 401 })
        const gaps = first.stats.slice(1).map((s: Any, i: number) => first.stats[i].ts - s.ts)
        expect(new Set(gaps)).toEqual(new Set([300_000]))
        // A thousand points at most (3.5 days of 5 minutes); disk fills over them: the oldest holds less.
        const last = yield* ok("read/GetHistoricalServerStats", { server: "prod-02", granularity: "5-min", page: 9 })
        expect(last.next_page).toBeUndefined()
        expect(last.stats.at(-1).disk_used_gb).toBeLessThan(401)
      }),
  )

  it.scopedLive("an action state says what runs now: a deploy's while its Update is in progress", () =>
    Effect.gen(function* () {
      const { ok } = yield* session({ timing: { completeMs: 100 } })
      const idle = yield* ok("read/GetStackActionState", { stack: "web" })
      expect(Object.values(idle).every((v) => v === false)).toBe(true)
      const update = yield* ok("execute/DeployStack", { stack: "web" })
      expect(yield* ok("read/GetStackActionState", { stack: "web" })).toMatchObject({ deploying: true, pulling: false })
      for (let i = 0; i < 400 && (yield* ok("read/GetUpdate", { id: update._id.$oid })).status !== "Complete"; i++) {
        yield* Effect.sleep("5 millis")
      }
      expect((yield* ok("read/GetStackActionState", { stack: "web" })).deploying).toBe(false)
      // The container a deployment runs, and what owns a container.
      expect(yield* ok("read/GetDeploymentContainer", { deployment: "api" })).toMatchObject({
        state: "running",
        container: { name: "api", image: "ghcr.io/acme/api:1.4.2", state: "running" },
      })
      const web = (yield* ok("read/GetStack", { stack: "web" }))._id.$oid
      expect(yield* ok("read/GetResourceMatchingContainer", { server: "prod-01", container: "web-worker-1" })).toEqual({
        resource: { type: "Stack", id: web },
      })
      const services = yield* ok("read/ListStackServices", { stack: "web" })
      expect(services.map((s: Any) => [s.service, s.state, s.container.name])).toEqual([
        ["web", "Running", "web-web-1"],
        ["worker", "Running", "web-worker-1"],
        ["redis", "Running", "web-redis-1"],
      ])
    }),
  )
})

describe("the sandbox's prunes", () => {
  it.scopedLive("say what they deleted and the space reclaimed; the disk alert resolves once under its threshold", () =>
    Effect.gen(function* () {
      const { sandbox, ok } = yield* session({ timing: { completeMs: 20 } })
      // prod-02's disk just over its warning (75%): the images' 415 MB bring it under.
      const prod2 = sandbox.world.store.find("server", "prod-02")
      prod2.info = { ...prod2.info, stats: { ...(prod2.info.stats as object), disk_used_gb: 375.2 } }
      const disk = () =>
        Effect.map(ok("read/ListAlerts", { query: { "data.type": "ServerDisk" } }), ({ alerts }) => alerts[0])
      expect((yield* disk()).resolved).toBe(false)
      const update = yield* ok("execute/PruneImages", { server: "prod-02" })
      let done: Any = update
      for (let i = 0; i < 400 && done.status !== "Complete"; i++) {
        yield* Effect.sleep("5 millis")
        done = yield* ok("read/GetUpdate", { id: update._id.$oid })
      }
      expect(done.logs[0].stdout.split("\n")).toEqual([
        "Deleted Images:",
        "untagged: redis:7-alpine",
        "deleted: sha256:5d0da3dc9764",
        "untagged: ghcr.io/acme/api:1.4.2",
        "deleted: sha256:a8758716bb6a",
        "untagged: nginx:1.27",
        "deleted: sha256:0c5a7f3e21d4",
        "",
        "Total reclaimed space: 415MB",
      ])
      // What its containers run stays, in use.
      expect((yield* ok("read/ListImages", { server: "prod-02" })).map((i: Any) => [i.name, i.in_use])).toEqual([
        ["library/prometheus:latest", true],
        ["library/grafana:latest", true],
        ["ghcr.io/acme/docs:2.0.0", true],
        // docs-next's, whose container docker made and could not start.
        ["ghcr.io/acme/docs:2.1.0-rc.1", true],
      ])
      expect((yield* ok("read/GetSystemStats", { server: "prod-02" })).disks[0].used_gb).toBe(374.79)
      const resolved = yield* disk()
      expect(resolved).toMatchObject({ resolved: true, resolved_ts: expect.any(Number) })
      // Nothing more to prune: nothing deleted, nothing reclaimed.
      const again = yield* ok("execute/PruneImages", { server: "prod-02" })
      let second: Any = again
      for (let i = 0; i < 400 && second.status !== "Complete"; i++) {
        yield* Effect.sleep("5 millis")
        second = yield* ok("read/GetUpdate", { id: again._id.$oid })
      }
      expect(second.logs[0].stdout).toBe("Total reclaimed space: 0B")
    }),
  )
})

describe("the sandbox's configs of one variant or another", () => {
  it.scopedLive("a builder made another kind takes the new kind's params alone, as the service stores them", () =>
    Effect.gen(function* () {
      const { ok } = yield* session()
      yield* ok("write/CreateBuilder", { name: "farm", config: { type: "Server", params: { server_ids: [] } } })
      const url = yield* ok("write/UpdateBuilder", {
        id: "farm",
        config: { type: "Url", params: { address: "https://builder.internal:8120" } },
      })
      expect(url.config.type).toBe("Url")
      expect(url.config.params.address).toBe("https://builder.internal:8120")
      expect(Object.keys(url.config.params)).not.toContain("server_ids")
      // The same kind again: its params are merged, as a partial config is.
      const same = yield* ok("write/UpdateBuilder", {
        id: "farm",
        config: { type: "Url", params: { insecure_tls: true } },
      })
      expect(same.config.params).toMatchObject({ address: "https://builder.internal:8120", insecure_tls: true })
    }),
  )

  it.scopedLive("a deployment with no container has no stats: the service says so, docker's words its cause", () =>
    Effect.gen(function* () {
      const { ok, admin } = yield* session()
      // legacy-cron's container has exited: docker has no stats of it.
      expect(yield* ok("read/GetDeploymentContainer", { deployment: "legacy-cron" })).toMatchObject({ state: "exited" })
      const { status, body } = yield* admin("read/GetDeploymentStats", { deployment: "legacy-cron" })
      expect({ status, body }).toEqual({
        status: 500,
        body: {
          error: "failed to get stats for container legacy-cron",
          trace: ["Error: No such container: legacy-cron"],
        },
      })
    }),
  )
})
