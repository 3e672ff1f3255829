/**
 * What the fleet view derives from the tools' answers (src/View/App/Model.ts):
 * rows with the service's own fields, the alerts it shows, its filters, and
 * the tool calls its buttons make, with the selectors of interface.md.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import * as Attention from "../../../src/View/App/Attention.js"
import * as Model from "../../../src/View/App/Model.js"
import { property } from "../../support/Property.js"

const server = (name: string, state: string, stats?: Record<string, unknown>, thresholds?: Record<string, number>) => ({
  id: `id-${name}`,
  name,
  tags: ["t1"],
  info: {
    state,
    region: "eu",
    ...(stats ? { stats } : {}),
    ...(thresholds ? { alerting_thresholds: thresholds } : {}),
  },
})
const THRESHOLDS = {
  cpu_warning: 90,
  cpu_critical: 99,
  mem_warning: 75,
  mem_critical: 95,
  disk_warning: 75,
  disk_critical: 95,
}

describe("the fleet view's model", () => {
  it("reads CPU, memory and disk from MinimalSystemStats, and nothing where the service reports none", () => {
    const [withStats, without] = Model.serverRows([
      server("a", "Ok", { cpu_perc: 12.5, mem_used_gb: 4, mem_total_gb: 16, disk_used_gb: 50, disk_total_gb: 200 }),
      server("b", "NotOk"),
    ])
    expect(withStats?.stats).toEqual({
      cpu: 12.5,
      mem: 25,
      memText: "4.0 / 16 GB",
      disk: 25,
      diskText: "50.0 / 200 GB",
    })
    expect(without?.stats).toBeUndefined()
  })

  it("names a workload's server, and says whether an update is available as the service does", () => {
    const servers = Model.serverRows([server("prod", "Ok")])
    const [stack] = Model.runningRows(
      "stack",
      [
        {
          id: "s",
          name: "web",
          tags: [],
          info: {
            state: "running",
            server_id: "id-prod",
            services: [
              { service: "a", update_available: false },
              { service: "b", update_available: true },
            ],
          },
        },
      ],
      servers,
    )
    const [deployment] = Model.runningRows(
      "deployment",
      [{ id: "d", name: "api", tags: [], info: { state: "exited", server_name: "other", update_available: false } }],
      servers,
    )
    expect(stack).toMatchObject({ kind: "stack", server: "prod", updateAvailable: true, state: "running" })
    expect(deployment).toMatchObject({ kind: "deployment", server: "other", updateAvailable: false, state: "exited" })
  })

  it("opens alerts for an unreachable server, load past its thresholds, a failing workload and a failed update", () => {
    const rows = [
      ...Model.serverRows([
        server("down", "NotOk"),
        server(
          "hot",
          "Ok",
          { cpu_perc: 99.5, mem_used_gb: 13, mem_total_gb: 16, disk_used_gb: 10, disk_total_gb: 100 },
          THRESHOLDS,
        ),
        // Thresholds of 0 are none set: no alert whatever the load.
        server("unset", "Ok", { cpu_perc: 80, mem_used_gb: 1, mem_total_gb: 2, disk_used_gb: 1, disk_total_gb: 2 }, {}),
      ]),
      ...Model.runningRows("stack", [{ id: "x", name: "sick", tags: [], info: { state: "unhealthy" } }], []),
      ...Model.runningRows("deployment", [{ id: "y", name: "off", tags: [], info: { state: "exited" } }], []),
    ]
    const updates = Model.updatesOf(
      {
        updates: [
          {
            id: "u",
            operation: "DeployStack",
            status: "Complete",
            success: false,
            start_ts: 5,
            username: "alice",
            operator: "1",
            target: { type: "Stack", id: "x" },
          },
        ],
      },
      rows,
    )
    const alerts = Model.alertsOf(rows, updates).map((a) => `${a.level} ${a.name}: ${a.text}`)
    expect(alerts).toEqual([
      "critical down: unreachable",
      "critical hot: CPU at 100% (critical from 99%)",
      "warning hot: memory at 81% (warning from 75%)",
      "warning sick: unhealthy",
      "warning sick: DeployStack failed",
    ])
  })

  describe("what needs someone first", () => {
    const servers = Model.serverRows([
      server("prod-01", "Ok"),
      server("staging-01", "NotOk", { cpu_perc: 1, refresh_ts: 1_000 }),
      server("edge", "Disabled"),
    ])
    const rows = [
      ...servers,
      ...Model.runningRows(
        "stack",
        [
          { id: "s1", name: "web", tags: [], info: { state: "running" } },
          { id: "s2", name: "old", tags: [], info: { state: "stopped" } },
          { id: "s3", name: "sick", tags: [], info: { state: "unhealthy" } },
        ],
        servers,
      ),
      ...Model.runningRows(
        "deployment",
        [
          { id: "d1", name: "api", tags: [], info: { state: "restarting", server_id: "id-prod-01" } },
          { id: "d2", name: "cron", tags: [], info: { state: "exited" } },
        ],
        servers,
      ),
      ...Model.buildRows([
        { id: "b1", name: "docs-image", tags: [], info: { state: "Failed", last_built_at: 2_000 } },
        { id: "b2", name: "api-image", tags: ["t1"], info: { state: "Ok", last_built_at: 0 } },
      ]),
    ]

    it("reads builds with their state and when they were last built, never where the service says 0", () => {
      expect(rows.filter((r) => r.kind === "build")).toEqual([
        { kind: "build", id: "b1", name: "docs-image", state: "Failed", tags: [], lastSeen: 2_000 },
        { kind: "build", id: "b2", name: "api-image", state: "Ok", tags: ["t1"] },
      ])
    })

    it("orders the open alerts, then the unhealthy (workloads, servers, builds), then the rest, each row once", () => {
      const alerts: ReadonlyArray<Model.Alert> = [
        { level: "warning", kind: "server", name: "prod-01", text: "memory at 80%", since: 300 },
        { level: "critical", kind: "server", name: "prod-02", text: "disk at 96%", since: 100 },
        { level: "warning", kind: "stack", name: "sick", text: "unhealthy" },
        { level: "critical", kind: "server", name: "staging-01", text: "unreachable", since: 200 },
        { level: "warning", kind: "build", name: "docs-image", text: "RunBuild failed", since: 250 },
      ]
      const order = Attention.ordered(rows, alerts)
      expect(order.alerts.map((a) => `${a.level} ${a.name}`)).toEqual([
        "critical staging-01",
        "critical prod-02",
        "warning prod-01",
        "warning docs-image",
        "warning sick",
      ])
      expect(order.unhealthy.map(({ row, problem }) => `${row.kind} ${row.name}: ${problem}`)).toEqual([
        "stack sick: unhealthy",
        "deployment api: crash-looping: its container restarts",
        "server staging-01: unreachable",
        "build docs-image: last build failed",
      ])
      // Stopped, exited, disabled and built are choices or fine: the rest, in the order given.
      expect(order.rest.map((r) => r.name)).toEqual(["prod-01", "edge", "web", "old", "cron", "api-image"])
    })

    it("reads the service's open alerts: severity, the target by name, what, since when; resolved ones left out", () => {
      const answer = {
        alerts: [
          {
            ts: 1_773_730_260_000,
            level: "CRITICAL",
            resolved: false,
            target: { type: "Server", id: "id-prod-01" },
            data: {
              type: "ServerDisk",
              data: { id: "id-prod-01", name: "prod-01", path: "/", used_gb: 480, total_gb: 500 },
            },
          },
          {
            ts: 1_773_731_100_000,
            level: "WARNING",
            resolved: false,
            target: { type: "Deployment", id: "elsewhere" },
            data: { type: "DeploymentImageUpdateAvailable", data: { id: "elsewhere", name: "worker", image: "w:2" } },
          },
          {
            ts: 5,
            level: "CRITICAL",
            resolved: true,
            target: { type: "Server", id: "id-staging-01" },
            data: { type: "ServerUnreachable", data: { id: "id-staging-01", name: "staging-01" } },
          },
          {
            ts: 7,
            level: "CRITICAL",
            resolved: false,
            target: { type: "Server", id: "id-staging-01" },
            data: { type: "ServerMem", data: { id: "id-staging-01", name: "old-name", used_gb: 7.5, total_gb: 8 } },
          },
        ],
      }
      expect(Attention.serviceAlertsOf(answer, rows)).toEqual([
        { level: "critical", kind: "server", name: "prod-01", text: "disk at 96%", since: 1_773_730_260_000 },
        {
          level: "warning",
          kind: "deployment",
          name: "worker",
          text: "deployment image update available",
          since: 1_773_731_100_000,
        },
        { level: "critical", kind: "server", name: "staging-01", text: "memory at 94%", since: 7 },
      ])
      // Not a list of alerts (the selector out of reach answers an error): none.
      expect(Attention.serviceAlertsOf({ error: { kind: "invalid_arguments" } }, rows)).toEqual([])
    })

    it("reads an unreachable server's alert as since its last report, and a failing workload's as since its last update", () => {
      const updates = Model.updatesOf(
        {
          updates: [
            {
              id: "u1",
              operation: "Deploy",
              status: "Complete",
              success: true,
              start_ts: 40,
              target: { type: "Deployment", id: "d1" },
            },
            {
              id: "u0",
              operation: "Deploy",
              status: "Complete",
              success: true,
              start_ts: 10,
              target: { type: "Deployment", id: "d1" },
            },
          ],
        },
        rows,
      )
      const alerts = Model.alertsOf(rows, updates)
      expect(alerts.find((a) => a.name === "staging-01")).toMatchObject({ text: "unreachable", since: 1_000 })
      expect(alerts.find((a) => a.name === "api")).toMatchObject({ level: "critical", text: "restarting", since: 40 })
      expect(alerts.find((a) => a.name === "sick")).not.toHaveProperty("since")
      expect(alerts.some((a) => a.kind === "build")).toBe(false)
    })
  })

  it("lists updates newest first, by who and on what", () => {
    const rows = Model.serverRows([server("prod", "Ok")])
    const list = Model.updatesOf(
      {
        updates: [
          {
            id: "1",
            operation: "StopStack",
            status: "Complete",
            success: true,
            start_ts: 1,
            username: "bob",
            operator: "b",
            target: { type: "Server", id: "id-prod" },
          },
          {
            id: "2",
            operation: "RunBuild",
            status: "InProgress",
            success: true,
            start_ts: 9,
            username: "",
            operator: "op-id",
            target: { type: "System", id: "" },
          },
        ],
      },
      rows,
    )
    expect(list.map((u) => [u.operation, u.target, u.operator])).toEqual([
      ["RunBuild", "system", "op-id"],
      ["StopStack", "prod", "bob"],
    ])
  })

  it("calls the tools with the selectors interface.md gives, under the names the tables map", () => {
    const [stack] = Model.runningRows("stack", [{ id: "s", name: "web", tags: [], info: { state: "running" } }], [])
    const [deployment] = Model.runningRows(
      "deployment",
      [{ id: "d", name: "api", tags: [], info: { state: "running" } }],
      [],
    )
    const calls = (["deploy", "restart", "stop"] as const).flatMap((action) =>
      [stack, deployment].map((row) => Model.actionCall(row as Model.Row, action)),
    )
    for (const call of calls) {
      expect(call.name).toBe("svc_execute")
      expect(Object.keys(Tables.execute)).toContain(call.arguments.operation)
    }
    expect(calls.map((c) => c.arguments)).toEqual([
      { operation: "deploy_stack", params: { stack: "web" } },
      { operation: "deploy", params: { deployment: "api" } },
      { operation: "restart_stack", params: { stack: "web" } },
      { operation: "restart_deployment", params: { deployment: "api" } },
      { operation: "stop_stack", params: { stack: "web" } },
      { operation: "stop_deployment", params: { deployment: "api" } },
    ])
    expect(Model.detailsCall(stack as Model.Row)).toEqual({
      name: "svc_get",
      arguments: { resource_type: "stack", params: { stack: "s" } },
    })
  })

  const rowArb = FastCheck.record({
    kind: FastCheck.constantFrom("server", "stack", "deployment"),
    id: FastCheck.string(),
    name: FastCheck.constantFrom("a", "b", "c"),
    state: FastCheck.constantFrom("Ok", "running", "stopped"),
    tags: FastCheck.array(FastCheck.constantFrom("t1", "t2"), { maxLength: 2 }),
    server: FastCheck.constantFrom("a", "b"),
  })
  const filterArb = FastCheck.record({
    kind: FastCheck.constantFrom("", "server", "stack", "deployment"),
    state: FastCheck.constantFrom("", "Ok", "running"),
    server: FastCheck.constantFrom("", "a", "b"),
    tag: FastCheck.constantFrom("", "t1", "t2"),
  })

  property("filters combine: a row passes them all only if it passes each alone", [rowArb, filterArb], ([row, f]) => {
    const r = row as Model.Row
    const filters = f as Model.Filters
    const each = (["kind", "state", "server", "tag"] as const).every((key) =>
      Model.matches(r, { ...Model.NO_FILTERS, [key]: filters[key] }),
    )
    expect(Model.matches(r, filters)).toBe(each)
    expect(Model.matches(r, Model.NO_FILTERS)).toBe(true)
  })
})
