/**
 * What the fleet view derives from the tools' answers (src/View/App/Model.ts):
 * rows with the service's own fields, the alerts it shows, its filters, and
 * the tool calls its buttons make, with the selectors of interface.md.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as Tables from "../../src/Tools/Tables.js"
import * as Model from "../../src/View/App/Model.js"

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

  it.prop("filters combine: a row passes them all only if it passes each alone", [rowArb, filterArb], ([row, f]) => {
    const r = row as Model.Row
    const filters = f as Model.Filters
    const each = (["kind", "state", "server", "tag"] as const).every((key) =>
      Model.matches(r, { ...Model.NO_FILTERS, [key]: filters[key] }),
    )
    expect(Model.matches(r, filters)).toBe(each)
    expect(Model.matches(r, Model.NO_FILTERS)).toBe(true)
  })
})
