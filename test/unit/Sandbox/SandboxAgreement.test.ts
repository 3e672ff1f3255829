/**
 * The sandbox tells one story: every rule of agreement (test/support/Agreement.ts)
 * holds over each scenario as it starts, and after any sequence of executions
 * (deploy, stop, restart, prune, sync) on it; a prune's reclaimed space is what
 * the disk frees.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import type { Scenario } from "../../../src/Sandbox/Estates/Scenarios.js"
import { PRUNE_FREES, RULES, readAll } from "../../support/Agreement.js"
import { runs } from "../../support/Runs.js"
import * as Sandboxes from "../../support/Sandbox.js"

const SCENARIOS: ReadonlyArray<Scenario> = ["calm", "incident", "drift"]

/** The executions a sequence draws from, each with its params. */
const STEPS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["Deploy", { deployment: "api" }],
  ["Deploy", { deployment: "docs" }],
  ["StopDeployment", { deployment: "api" }],
  ["StartDeployment", { deployment: "api" }],
  ["RestartDeployment", { deployment: "api" }],
  ["DeployStack", { stack: "web" }],
  ["DeployStack", { stack: "monitoring" }],
  ["StopStack", { stack: "web" }],
  ["RestartStack", { stack: "monitoring" }],
  ["StopContainer", { server: "prod-01", container: "web-redis-1" }],
  ["PruneImages", { server: "prod-02" }],
  ["PruneVolumes", { server: "prod-02" }],
  ["PruneContainers", { server: "prod-01" }],
  ["PruneSystem", { server: "prod-01" }],
  ["RunSync", { sync: "estate-sync" }],
]

const STOP_WEB_REDIS = STEPS.find(([operation]) => operation === "StopContainer") as (typeof STEPS)[number]
const PRUNE_PROD_01 = STEPS.find(([operation]) => operation === "PruneContainers") as (typeof STEPS)[number]

/** Every rule a reading breaks, each with its name. */
const broken = (reading: Parameters<(typeof RULES)[number][1]>[0]) =>
  RULES.flatMap(([name, rule]) => rule(reading).map((what) => `${name}: ${what}`))

const sandboxOf = (scenario: Scenario) =>
  Effect.map(Sandboxes.scoped({ scenario }), (sandbox) => ({
    sandbox,
    ...Sandboxes.asAdmin(sandbox),
  }))

const diskOf = (ok: ReturnType<typeof Sandboxes.asAdmin>["ok"], server: unknown) =>
  Effect.map(ok("read/GetSystemStats", { server }), (stats) => stats.disks[0].used_gb as number)

describe("the sandbox's rules of agreement", () => {
  for (const scenario of SCENARIOS) {
    it.scopedLive(`hold over ${scenario} as it starts`, () =>
      Effect.gen(function* () {
        const { sandbox, ok } = yield* sandboxOf(scenario)
        expect(broken(yield* readAll(sandbox, ok))).toEqual([])
      }),
    )

    it.live(`hold over ${scenario} after any executions, and a prune frees what it reclaims`, () =>
      Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            FastCheck.array(FastCheck.constantFrom(...STEPS), { minLength: 1, maxLength: 4 }),
            (steps) =>
              Effect.runPromise(
                Effect.scoped(
                  Effect.gen(function* () {
                    const { sandbox, ok, call, run } = yield* sandboxOf(scenario)
                    for (const [operation, params] of steps) {
                      if (operation === "StopContainer") {
                        // An earlier prune may have removed the stopped container: the stop is then
                        // refused as the service refuses it, and changes nothing.
                        const listed = yield* ok("read/ListContainers", { server: params.server })
                        if (!listed.some((c: { name: string }) => c.name === params.container)) {
                          const refused = yield* call(`execute/${operation}`, params)
                          expect(refused.status).toBe(500)
                          expect(refused.body.error).toBe(
                            `no container named ${params.container} on server ${params.server}`,
                          )
                          continue
                        }
                      }
                      const prune = operation.startsWith("Prune")
                      const before = prune ? yield* diskOf(ok, params.server) : 0
                      const update = yield* run(operation, params)
                      if (prune) {
                        const after = yield* diskOf(ok, params.server)
                        expect(PRUNE_FREES(before, after, update.logs[0].stdout)).toEqual([])
                      }
                    }
                    const names = steps.map(([operation, params]) => `${operation} ${Object.values(params).join(" ")}`)
                    expect(broken(yield* readAll(sandbox, ok)), names.join(", ")).toEqual([])
                  }),
                ),
              ),
          ),
          // A container stopped, pruned, then stopped again: the last stop is refused.
          { numRuns: runs(6), examples: [[[STOP_WEB_REDIS, PRUNE_PROD_01, STOP_WEB_REDIS]]] },
        ),
      ),
    )
  }

  it("are each a rule that a contradiction breaks", () => {
    // One reading that contradicts itself each way: each rule names what breaks it.
    const container = {
      name: "api",
      id: "abc",
      image: "acme/api:2",
      state: "restarting",
      status: "Restarting (1) 3 minutes ago",
      created: 2_000,
      volumes: ["data"],
    }
    const inspect = {
      Id: "abc",
      Created: new Date(2_000_000).toISOString(),
      Config: { Image: "acme/api:2" },
      State: {
        Status: "restarting",
        Running: false,
        Restarting: false,
        ExitCode: 0,
        StartedAt: new Date(9_000_000).toISOString(),
        FinishedAt: new Date(9_000_000).toISOString(),
      },
    }
    const server = {
      name: "prod-01",
      containers: [container],
      inspected: new Map([["api", inspect]]),
      logs: new Map([["api", [{ ts: 2_500_000, text: "api | process exited with code 1" }]]]),
      images: [{ name: "acme/api:1", in_use: true, created: 1 }],
      volumes: [{ name: "data", in_use: false, size: 0 }],
      stats: { refresh_ts: 9_000_000, refresh_list_ts: 1, disks: [{ used_gb: 400 }] },
      history: [],
    }
    const reading = {
      now: 5_000_000,
      servers: [server],
      deployments: [{ name: "api", info: { state: "running", image: "acme/api:2" } }],
      stacks: [{ name: "web", info: { status: "3 running" } }],
      deploymentContainers: new Map([["api", { state: "running", container }]]),
      stackServices: new Map([["web", [{ service: "web", image: "library/web:latest", state: "Running" }]]]),
      alerts: [{ resolved: false, ts: 1, data: { type: "ServerDisk", data: { name: "prod-01", used_gb: 480 } } }],
      updates: [
        { operation: "Deploy", start_ts: 1_000 },
        { operation: "Deploy", start_ts: 6_000_000 },
      ],
    }
    for (const [name, rule] of RULES) expect(rule(reading).length, name).toBeGreaterThan(0)
    expect(PRUNE_FREES(400, 399.5, "Total reclaimed space: 1.2GB")).toHaveLength(1)
    expect(PRUNE_FREES(400, 398.8, "Total reclaimed space: 1.2GB")).toEqual([])
  })
})
