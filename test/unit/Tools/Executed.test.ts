/**
 * An execution the service answers at once, without an Update, says what was done and what it
 * found (a check: which have newer images; a sync's refresh: the plan now), with or without
 * `wait`, and never that something is missing.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

const connect = Effect.gen(function* () {
  const sandbox = yield* Sandboxes.scoped({})
  const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
  return (operation: string, params: Record<string, unknown>, wait: boolean) =>
    Effect.map(
      Effect.promise(() => client.callTool({ name: "svc_execute", arguments: { operation, params, wait } })),
      (result) => Mcp.text(result),
    )
})

/** The answer's line that says what was done, wherever the answer's notes put it. */
const said = (text: string) =>
  text.split("\n").filter((line) => line.startsWith("[svc-mcp: checked") || line.includes("computed anew"))

describe("an execution answered without an Update", () => {
  it.scopedLive("a check says what it found, by name, with or without wait", () =>
    Effect.gen(function* () {
      const call = yield* connect
      for (const wait of [false, true]) {
        const stack = yield* call("check_stack_for_update", { stack: "web" }, wait)
        expect(said(stack)).toEqual([
          "[svc-mcp: checked the stack web for newer images: none of its 3 services has a newer image]",
        ])
        const batch = yield* call("batch_check_stack_for_update", { pattern: "*" }, wait)
        expect(said(batch)).toEqual([
          "[svc-mcp: checked 3 stacks for newer images: newer images for monitoring (grafana)]",
        ])
        const deployment = yield* call("check_deployment_for_update", { deployment: "api" }, wait)
        expect(said(deployment)).toEqual(["[svc-mcp: checked the deployment api for a newer image: none is available]"])
        for (const text of [stack, batch, deployment]) expect(text).not.toMatch(/no Update/)
      }
    }),
  )

  it.scopedLive("a sync's refresh says the plan is computed anew and what it holds now", () =>
    Effect.gen(function* () {
      const call = yield* connect
      for (const wait of [false, true]) {
        const text = yield* call("refresh_sync_pending", { sync: "estate-sync" }, wait)
        expect(said(text)).toEqual([
          "[svc-mcp: the sync estate-sync's plan is computed anew from its repository: 7 changes and 1 deploy pending now]",
        ])
        expect(text).not.toMatch(/no Update/)
        // The plan below holds as many as the line says.
        const plan = JSON.parse(text.split("\n").find((line) => line.startsWith("{")) ?? "{}") as {
          changes?: ReadonlyArray<unknown>
          deploys?: ReadonlyArray<unknown>
        }
        expect([plan.changes?.length, plan.deploys?.length]).toEqual([7, 1])
      }
    }),
  )
})
