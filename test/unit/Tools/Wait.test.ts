/**
 * Waiting on executions as the service runs them (service-notes.md,
 * "Executions"), with the progress notifications a bridge does not lose.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

const update = (id: string | undefined, operation: string, status: string, success: boolean) => ({
  ...(id === undefined ? {} : { _id: { $oid: id } }),
  operation,
  status,
  success,
  operator: "user-1",
  start_ts: 1,
  logs: status === "Complete" ? [{ stage: "run", command: "", stdout: "done", stderr: "", success }] : [],
})

interface Progress {
  readonly progress: number
  readonly message?: string | undefined
  /** Requests the service had seen when this notification arrived. */
  readonly seen: number
}

const call = (double: Double.ServiceDouble, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
    const progress: Array<Progress> = []
    const result = yield* Effect.promise(() =>
      client.callTool({ name, arguments: args }, undefined, {
        onprogress: (p) => progress.push({ ...p, seen: double.calls().length }),
      }),
    )
    // The first line of an answer that carries logs says what their fences mean: read past it.
    const text = Mcp.unfenced(Mcp.text(result))
    const newline = text.indexOf("\n")
    return { result, summary: text.slice(0, newline), json: text.slice(newline + 1), progress }
  })

const polls = (double: Double.ServiceDouble) => double.calls().filter((r) => r.path === "/read/GetUpdate").length

describe("svc_execute wait: true", () => {
  it.scopedLive(
    "an Update that starts InProgress with success true is followed to its end; its first success means nothing",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        double.next("/execute/DeployStack", { status: 200, body: update("u1", "DeployStack", "InProgress", true) })
        double.next("/read/GetUpdate", { status: 200, body: update("u1", "DeployStack", "InProgress", true) })
        double.next("/read/GetUpdate", { status: 200, body: update("u1", "DeployStack", "Complete", false) })
        const { summary, json, progress } = yield* call(double, "svc_execute", {
          operation: "deploy_stack",
          params: { stack: "web" },
          wait: true,
        })
        // The result at a glance shows the Update's id; the sentence need not.
        expect(summary).toBe("DeployStack FAILED: see its logs below.")
        expect(JSON.parse(json)).toEqual({
          operation: "DeployStack",
          target: null,
          status: "Complete",
          success: false,
          update: "u1",
          stages: [{ stage: "run", ok: false, out: expect.stringMatching(/^<u:[0-9a-f]{16}>done<\/u>$/) }],
        })
        expect(polls(double)).toBe(2)
        // The first as soon as it started (before any poll), then one per change: the unchanged poll sends none.
        expect(progress.map((p) => [p.progress, p.message])).toEqual([
          [1, "DeployStack: InProgress"],
          [2, "DeployStack: Complete, FAILED"],
        ])
        expect(progress[0]?.seen).toBe(1)
      }),
  )

  it.scopedLive("DeployStackIfChanged with nothing changed answers an Update with no _id: said so, not polled", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/execute/DeployStackIfChanged", {
        status: 200,
        body: update(undefined, "DeployStack", "Complete", true),
      })
      const { summary, progress } = yield* call(double, "svc_execute", {
        operation: "deploy_stack_if_changed",
        params: { stack: "web" },
        wait: true,
      })
      expect(summary).toBe("DeployStack: nothing had changed, so nothing was deployed (the service started no update).")
      expect(polls(double)).toBe(0)
      expect(progress.map((p) => p.message)).toEqual(["DeployStack: nothing changed"])
    }),
  )

  it.scopedLive("DeployStack with services runs as DeployStackService, and is followed as such", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/execute/DeployStack", { status: 200, body: update("u2", "DeployStackService", "InProgress", true) })
      double.next("/read/GetUpdate", { status: 200, body: update("u2", "DeployStackService", "Complete", true) })
      const { summary } = yield* call(double, "svc_execute", {
        operation: "deploy_stack",
        params: { stack: "web", services: ["api"] },
        wait: true,
      })
      expect(summary).toBe("DeployStackService succeeded.")
      expect(double.calls()[0]?.body).toEqual({ stack: "web", services: ["api"] })
    }),
  )

  it.scopedLive("a batch with Err entries: those that started are followed, those that could not are named", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/execute/BatchDeployStack", {
        status: 200,
        body: [
          { status: "Ok", data: update("b1", "DeployStack", "InProgress", true) },
          { status: "Err", data: { name: "api", error: { error: "Stack api is not on a server", trace: [] } } },
          { status: "Ok", data: update("b2", "DeployStack", "InProgress", true) },
        ],
      })
      double.next("/read/GetUpdate", { status: 200, body: update("b1", "DeployStack", "Complete", true) })
      double.next("/read/GetUpdate", { status: 200, body: update("b2", "DeployStack", "Complete", false) })
      const { summary, json, progress } = yield* call(double, "svc_execute", {
        operation: "batch_deploy_stack",
        params: { pattern: "*" },
        wait: true,
      })
      expect(summary).toBe(
        "3 operations: 1 succeeded, 1 failed, 1 could not start (api: Stack api is not on a server).",
      )
      const items = JSON.parse(json) as Array<{ status: string; name?: string; update?: string }>
      expect(items.map((i) => [i.status, i.update ?? i.name])).toEqual([
        ["Complete", "b1"],
        ["Err", "api"],
        ["Complete", "b2"],
      ])
      expect(progress[0]?.message).toBe(
        "0 of 2 complete (DeployStack InProgress, DeployStack InProgress); 1 could not start",
      )
      expect(progress.at(-1)?.message).toMatch(/^2 of 2 complete/)
    }),
  )

  it.scopedLive("a batch of DeployStackIfChanged counts the unchanged apart", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/execute/BatchDeployStackIfChanged", {
        status: 200,
        body: [
          { status: "Ok", data: update(undefined, "DeployStack", "Complete", true) },
          { status: "Ok", data: update("c1", "DeployStack", "InProgress", true) },
        ],
      })
      double.next("/read/GetUpdate", { status: 200, body: update("c1", "DeployStack", "Complete", true) })
      const { summary } = yield* call(double, "svc_execute", {
        operation: "batch_deploy_stack_if_changed",
        params: { pattern: "*" },
        wait: true,
      })
      expect(summary).toBe("2 operations: 1 succeeded, 0 failed, 1 unchanged (nothing to deploy).")
      expect(polls(double)).toBe(1)
    }),
  )
})

describe("svc_rename", () => {
  it.scopedLive("a rename that answers an Update says plainly whether it worked, at an execution's glance", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/write/RenameStack", { status: 200, body: update("r1", "RenameStack", "Complete", true) })
      double.next("/write/RenameBuild", { status: 200, body: update("r2", "RenameBuild", "Complete", false) })
      const renamed = yield* call(double, "svc_rename", { resource_type: "stack", params: { id: "web", name: "www" } })
      expect(renamed.summary).toBe("RenameStack succeeded.")
      expect(JSON.parse(Mcp.text(renamed.result).split("\n").at(-1) ?? "")).toMatchObject({
        operation: "RenameStack",
        update: "r1",
      })
      const failed = yield* call(double, "svc_rename", { resource_type: "build", params: { id: "b", name: "c" } })
      expect(failed.summary).toMatch(/^RenameBuild FAILED/)
      expect(polls(double)).toBe(0)
    }),
  )

  it.scopedLive("a rename that answers the record (tags, user groups) is passed on as it came", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const tag = { _id: { $oid: "t1" }, name: "prod-2", owner: "user-1", color: "Red" }
      double.next("/write/RenameTag", { status: 200, body: tag })
      const { result } = yield* call(double, "svc_rename", {
        resource_type: "tag",
        params: { id: "prod", name: "prod-2" },
      })
      expect(JSON.parse(Mcp.text(result))).toEqual(tag)
    }),
  )
})
