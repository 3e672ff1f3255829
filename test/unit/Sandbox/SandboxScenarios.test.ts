/**
 * The sandbox's scenarios: `incident`'s bad morning as its reads tell it, the
 * same two runs in a row, and mended through the API as on the service.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Cli from "../../../src/Cli/CommandLine.js"
import { SCENARIOS } from "../../../src/Sandbox/Estates/Scenarios.js"
import { PRUNE_FREES } from "../../support/Agreement.js"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

const incident = Effect.map(Sandboxes.scoped({ scenario: "incident" }), (sandbox) => {
  const { ok, run } = Sandboxes.asAdmin(sandbox)
  const openAlerts = Effect.map(ok("read/ListAlerts", { query: { resolved: false } }), (a) =>
    a.alerts.map((x: Any) => `${x.level} ${x.data.type} ${x.data.data.name}`).sort(),
  )
  /** A deployment's state, as its list item says. */
  const stateOf = (name: string) =>
    Effect.map(ok("read/ListDeployments", {}), (list) => list.find((d: Any) => d.name === name)?.info.state)
  const buildState = Effect.map(
    ok("read/ListBuilds", {}),
    (l) => l.find((b: Any) => b.name === "docs-image")?.info.state,
  )
  /** A server's disk over time, minute by minute, oldest first: [ts, used / total]. */
  const diskSeries = (server: string) =>
    Effect.map(
      ok("read/GetHistoricalServerStats", { server, granularity: "1-min" }),
      (h): Array<[number, number]> =>
        h.stats
          .map((p: Any): [number, number] => [p.ts, p.disk_used_gb / p.disk_total_gb])
          .sort((a: [number, number], b: [number, number]) => a[0] - b[0]),
    )
  return { sandbox, ok, run, openAlerts, stateOf, buildState, diskSeries }
})

describe("the sandbox's scenarios", () => {
  it("are listed one line each, calm first (the default), and the command line knows each", () => {
    expect(SCENARIOS.map(([name]) => name)).toEqual(["calm", "incident", "drift"])
    expect(Cli.SCENARIO_NAMES).toEqual(SCENARIOS.map(([name]) => name))
    for (const [, line] of SCENARIOS) expect(line).not.toContain("\n")
  })

  it("are chosen with --scenario, with --sandbox or the sandbox alone; list lists them", () => {
    expect(Cli.parse(["--sandbox", "--scenario", "incident", "--estate", "small"])).toEqual({
      _tag: "Serve",
      sandbox: true,
      httpPort: undefined,
      estate: "small",
      scenario: "incident",
    })
    expect(Cli.parse(["sandbox", "--scenario", "incident", "--port", "0"])).toEqual({
      _tag: "Sandbox",
      port: 0,
      scenario: "incident",
    })
    for (const argv of [
      ["sandbox", "--scenario", "list"],
      ["--sandbox", "--scenario", "list"],
    ]) {
      expect(Cli.parse(argv)).toEqual({ _tag: "Scenarios" })
    }
    for (const argv of [
      ["--scenario", "incident"],
      ["--sandbox", "--scenario", "doom"],
      ["--sandbox", "--scenario"],
      ["sandbox", "--scenario", "calm", "--scenario", "incident"],
    ]) {
      expect(Cli.parse(argv), argv.join(" ")).toMatchObject({ _tag: "Invalid" })
    }
  })

  it.scopedLive("incident: a bad morning, told the same by alerts, states, logs, stats and Updates", () =>
    Effect.gen(function* () {
      const { ok, openAlerts, stateOf, buildState } = yield* incident
      expect(yield* openAlerts).toEqual(["CRITICAL ServerDisk prod-02", "CRITICAL ServerUnreachable staging-01"])
      const api = yield* ok("read/GetDeployment", { deployment: "api" })
      expect(api.config.image.params.image).toBe("ghcr.io/acme/api:1.5.0")
      expect(yield* stateOf("api")).toBe("restarting")
      const container = yield* ok("read/InspectDeploymentContainer", { deployment: "api" })
      expect(container.State.Status).toBe("restarting")
      const log = yield* ok("read/GetDeploymentLog", { deployment: "api", tail: 50 })
      expect(log.stdout).toContain("missing required setting API_SIGNING_KEY")
      const servers = yield* ok("read/ListServers", {})
      const byName = (name: string) => servers.find((s: Any) => s.name === name)
      expect(byName("staging-01").info.state).toBe("NotOk")
      const prod2 = yield* ok("read/GetSystemStats", { server: "prod-02" })
      expect(prod2.disks[0].used_gb / prod2.disks[0].total_gb).toBeCloseTo(0.96, 2)
      expect(yield* buildState).toBe("Failed")
      const updates = (yield* ok("read/ListUpdates", {})).updates
      const failed = yield* ok("read/GetUpdate", {
        id: updates.find((u: Any) => u.operation === "RunBuild")?.id,
      })
      expect(failed.success).toBe(false)
      expect(failed.logs.find((l: Any) => !l.success).stderr).toContain("exit code: 1")
      // The previous tag is in the deployment's history.
      const change = updates.find((u: Any) => u.operation === "UpdateDeployment")
      expect((yield* ok("read/GetUpdate", { id: change.id })).logs[0].stdout).toContain("ghcr.io/acme/api:1.4.2 ->")
      const checked = yield* ok("write/CheckStackForUpdate", { stack: "monitoring" })
      expect(JSON.stringify(checked)).toContain("grafana")
    }),
  )

  it.scopedLive("incident, the whole service in reach: stats over time, alerts, action states and checks agree", () =>
    Effect.gen(function* () {
      const { ok, diskSeries } = yield* incident
      // staging-01 last answered at 07:05 on the sandbox's clock (37 minutes before its start): its series stops there.
      const lastSeen = Date.UTC(2026, 2, 17, 7, 5, 0)
      const staging = (yield* ok("read/GetHistoricalServerStats", { server: "staging-01", granularity: "1-min" })).stats
      expect(staging.length).toBeGreaterThan(0)
      expect(Math.max(...staging.map((p: Any) => p.ts))).toBe(lastSeen)
      const alert = (yield* ok("read/ListAlerts", { query: { resolved: false } })).alerts.find(
        (a: Any) => a.data.type === "ServerUnreachable",
      )
      expect(alert.ts).toBe(lastSeen)
      // The servers that answer report until now.
      const start = Date.UTC(2026, 2, 17, 7, 42, 0)
      for (const server of ["prod-01", "prod-02"]) {
        const series = (yield* ok("read/GetHistoricalServerStats", { server, granularity: "1-min" })).stats
        expect(Math.max(...series.map((p: Any) => p.ts)), server).toBeGreaterThanOrEqual(start)
      }
      // prod-02's disk went past 95% at 06:51, when its alert opened, and stays at 96%.
      const filled = Date.UTC(2026, 2, 17, 6, 51, 0)
      const disk = (yield* diskSeries("prod-02")).filter(([ts]) => ts > filled - 10 * 60_000)
      expect(disk.filter(([, used]) => used >= 0.95).map(([ts]) => ts)).toEqual(
        disk.filter(([ts]) => ts >= filled).map(([ts]) => ts),
      )
      expect(disk.at(-1)?.[1]).toBeCloseTo(0.96, 2)
      const diskAlert = (yield* ok("read/ListAlerts", { query: { resolved: false } })).alerts.find(
        (a: Any) => a.data.type === "ServerDisk",
      )
      expect(diskAlert.ts).toBe(filled)
      // Nothing runs now: api's crash loop is Docker restarting it, not a deploy in progress.
      const api = yield* ok("read/GetDeploymentActionState", { deployment: "api" })
      expect(Object.values(api).every((v) => v === false)).toBe(true)
      expect(Object.values(yield* ok("read/GetServerActionState", { server: "staging-01" })).every((v) => !v)).toBe(
        true,
      )
      // The checks: grafana has a newer image; api runs the newest tag there is.
      const monitoring = yield* ok("write/CheckStackForUpdate", { stack: "monitoring" })
      expect(monitoring.services.filter((s: Any) => s.update_available).map((s: Any) => s.service)).toEqual(["grafana"])
      expect((yield* ok("write/CheckDeploymentForUpdate", { deployment: "api" })).update_available).toBe(false)
    }),
  )

  it.scopedLive("incident: a deploy to staging-01 is deploying until it fails, then not", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ scenario: "incident", timing: { completeMs: 100 } })
      const headers = { "x-api-key": sandbox.apiKey.key, "x-api-secret": sandbox.apiKey.secret }
      const ok = (endpoint: string, params: unknown): Effect.Effect<Any> =>
        Effect.map(
          Effect.promise(() => Sandboxes.request(sandbox, endpoint, params, headers)),
          (r) => r.body,
        )
      const started = yield* ok("execute/Deploy", { deployment: "legacy-cron" })
      expect((yield* ok("read/GetDeploymentActionState", { deployment: "legacy-cron" })).deploying).toBe(true)
      for (;;) {
        const update = yield* ok("read/GetUpdate", { id: started._id.$oid })
        if (update.status === "Complete") {
          expect(update.success).toBe(false)
          break
        }
        yield* Effect.sleep("5 millis")
      }
      expect((yield* ok("read/GetDeploymentActionState", { deployment: "legacy-cron" })).deploying).toBe(false)
    }),
  )

  it.scopedLive("incident is the same two runs in a row: ids, states, times and logs", () =>
    Effect.gen(function* () {
      const story = (ok: (endpoint: string, params?: unknown) => Effect.Effect<Any>) =>
        Effect.all(
          [
            ok("read/ListFullDeployments"),
            ok("read/ListFullServers"),
            ok("read/ListFullBuilds"),
            ok("read/ListAlerts"),
            ok("read/ListUpdates"),
            // Its lines; the answer's own times are those of the read.
            Effect.map(ok("read/GetDeploymentLog", { deployment: "api", tail: 100 }), (log) => log.stdout),
            ok("read/ListContainers", { server: "prod-01" }),
          ].map((e) => Effect.map(e, (body) => JSON.stringify(body))),
        )
      const first = yield* story((yield* incident).ok)
      const second = yield* story((yield* incident).ok)
      expect(second).toEqual(first)
    }),
  )

  it.scopedLive("one clock: incident's times fixed by its start, a deploy's container new and up for seconds", () =>
    Effect.gen(function* () {
      const { ok, run } = yield* incident
      const start = Date.UTC(2026, 2, 17, 7, 42, 0)
      const minutes = (ts: number) => Math.round((ts - start) / 60_000)
      const api = yield* ok("read/InspectDeploymentContainer", { deployment: "api" })
      // Deployed 8 minutes before the start; its last crash 3 minutes before.
      expect([api.Created, api.State.FinishedAt].map((t: string) => minutes(Date.parse(t)))).toEqual([-8, -3])
      const updates = (yield* ok("read/ListUpdates", {})).updates.map((u: Any) => [u.operation, minutes(u.start_ts)])
      // Newest first, as the service lists them.
      expect(updates).toEqual([
        ["Deploy", -8],
        ["UpdateDeployment", -9],
        ["RunBuild", -25],
        ["Deploy", -2880],
      ])
      const alerts = (yield* ok("read/ListAlerts", {})).alerts.map((a: Any) => [a.data.type, minutes(a.ts)])
      expect(alerts).toEqual([
        ["ServerUnreachable", -37],
        ["ServerDisk", -51],
      ])
      const web = (yield* ok("read/ListContainers", { server: "prod-01" })).find((c: Any) => c.name === "web-web-1")
      expect([web.status, minutes(web.created * 1000)]).toEqual(["Up 3 days", -3 * 24 * 60])
      const stats = yield* ok("read/GetSystemStats", { server: "prod-01" })
      expect(minutes(stats.refresh_ts)).toBe(0)

      const docsBefore = yield* ok("read/InspectDeploymentContainer", { deployment: "docs" })
      const deploy = yield* run("Deploy", { deployment: "docs" })
      const docs = yield* ok("read/InspectDeploymentContainer", { deployment: "docs" })
      expect(docs.Id).toBe(deploy.logs[0].stdout)
      expect(docs.Id).not.toBe(docsBefore.Id)
      expect(Date.parse(docs.Created)).toBeGreaterThanOrEqual(deploy.start_ts)
      const listed = (yield* ok("read/ListContainers", { server: "prod-02" })).find((c: Any) => c.name === "docs")
      expect(listed.status).toMatch(/^Up (Less than a second|1 second|[2-9] seconds)$/)
    }),
  )

  it.scopedLive("incident mended through the API: rollback, prune, rebuild; staging-01 still refuses deploys", () =>
    Effect.gen(function* () {
      const { ok, run, openAlerts, stateOf, buildState, diskSeries } = yield* incident
      yield* ok("write/UpdateDeployment", {
        id: "api",
        config: { image: { type: "Image", params: { image: "ghcr.io/acme/api:1.4.2" } } },
      })
      expect((yield* run("Deploy", { deployment: "api" })).success).toBe(true)
      expect(yield* stateOf("api")).toBe("running")
      expect((yield* ok("read/InspectDeploymentContainer", { deployment: "api" })).State.Status).toBe("running")

      const images = yield* run("PruneImages", { server: "prod-02" })
      expect(images.logs[0].stdout).toMatch(
        /untagged: ghcr\.io\/acme\/docs-build-cache:latest[\s\S]*Total reclaimed space: \d/,
      )
      const volumes = yield* run("PruneVolumes", { server: "prod-02" })
      expect(volumes.logs[0].stdout).toContain("Total reclaimed space: 88.1GB")
      // Its stats over time: 96% until the prunes, then below the threshold.
      const disk = yield* diskSeries("prod-02")
      expect(disk.at(-1)?.[1]).toBeLessThan(0.8)
      expect(disk.at(-2)?.[1]).toBeGreaterThan(0.95)

      const deploy = yield* run("Deploy", { deployment: "legacy-cron" })
      expect(deploy.success).toBe(false)
      expect(deploy.logs[0].stderr).toContain("Failed to reach the agent on server staging-01")

      const build = yield* run("RunBuild", { build: "docs-image" })
      expect(build.success).toBe(true)
      // Its steps, as the service logs them: the fixed commit cloned, built, pushed.
      expect(build.logs.map((l: Any) => l.stage)).toEqual(["Clone Repo", "Build", "Push"])
      expect(build.logs[0].stdout).toContain("HEAD is now at c7e9b02 docs: fix the link to the upgrade guide")
      expect(build.logs[1].command).toBe("docker build -t ghcr.io/acme/docs:1.4.3 -f Dockerfile .")
      expect(yield* buildState).toBe("Ok")
      expect(yield* openAlerts).toEqual(["CRITICAL ServerUnreachable staging-01"])
    }),
  )

  it.scopedLive("incident: a system prune removes the unused volumes too, and the disk frees what it reclaims", () =>
    Effect.gen(function* () {
      const { ok, run } = yield* incident
      const disk = Effect.map(ok("read/GetSystemStats", { server: "prod-02" }), (s) => s.disks[0].used_gb as number)
      const before = yield* disk
      const system = yield* run("PruneSystem", { server: "prod-02" })
      const output: string = system.logs[0].stdout
      expect(output).toContain("Deleted Volumes:")
      expect(output).toContain("Deleted Images:")
      const volumes = yield* ok("read/ListVolumes", { server: "prod-02" })
      expect(volumes.filter((v: Any) => !v.in_use)).toEqual([])
      const images = yield* ok("read/ListImages", { server: "prod-02" })
      expect(images.filter((i: Any) => !i.in_use)).toEqual([])
      expect(PRUNE_FREES(before, yield* disk, output)).toEqual([])
      // The incident's full disk: the volumes hold most of it.
      expect(before - (yield* disk)).toBeGreaterThan(80)
    }),
  )

  it.scopedLive("incident: setting what the new version needs mends it too, without a rollback", () =>
    Effect.gen(function* () {
      const { ok, run, stateOf } = yield* incident
      yield* ok("write/UpdateDeployment", { id: "api", config: { environment: "API_SIGNING_KEY=[[API_SIGNING_KEY]]" } })
      yield* run("Deploy", { deployment: "api" })
      expect(yield* stateOf("api")).toBe("running")
    }),
  )
})
