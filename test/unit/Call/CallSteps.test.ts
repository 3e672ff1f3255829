/**
 * What a tool call costs in Effect's steps, counted by the scheduler the server's call fibers
 * inherit (its `shouldYield` is asked once a step): a step is about a microsecond of a call's CPU,
 * and a step repeated on every call (a cache read through its lock, a context scoped around the
 * call) is how the call path slid before (docs/benchmark.md, "A tool call's steps"). Counted so,
 * a list took 151 and `svc_get` 111 before the second pass; 68 and 66 after. 85 and 83 once a
 * call also resolved why it would be asked (Call/Asked.ts), whether it makes a secret for a page
 * (Mcp/Calls/Handover.ts), and the first line its own findings make (Tools/Beside.ts); 67 and 65
 * since a call no guard watches and no pattern confirms decides so with no step, the answer is
 * rendered and noted in one step, a first line with nothing to say takes no generator's, and the
 * params' check and the caller's access read what they need at once.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"
import * as Steps from "../../support/Steps.js"

const STACKS = [{ id: "s1", name: "web", info: { state: "running" } }]
const CALLS = 20

/** The steps of `CALLS` calls, after a first that makes the call path and learns the default page. */
const stepsOf = (call: { readonly name: string; readonly arguments: Record<string, unknown> }) =>
  Effect.gen(function* () {
    const counting = Steps.counter()
    const double = yield* Double.scoped(Layers.API_KEY)
    double.next("/read/ListStacks", { status: 200, body: STACKS }, { sticky: true })
    const { client } = yield* Effect.withScheduler(Mcp.connectV2(Layers.apiKey(double.url)), counting.scheduler)
    const first = yield* Effect.promise(() => client.callTool(call))
    expect(first.isError).toBeFalsy()
    counting.reset()
    for (let i = 0; i < CALLS; i++) {
      const result = yield* Effect.promise(() => client.callTool(call))
      expect(result.isError).toBeFalsy()
    }
    return counting.steps() / CALLS
  })

describe("a tool call's steps", () => {
  it.scopedLive("a list at a glance takes at most 72", () =>
    Effect.gen(function* () {
      const steps = yield* stepsOf({ name: "svc_list", arguments: { resource_type: "stack" } })
      expect(steps).toBeGreaterThan(20)
      expect(steps).toBeLessThanOrEqual(72)
    }),
  )

  it.scopedLive("a record's read takes at most 70", () =>
    Effect.gen(function* () {
      const steps = yield* stepsOf({ name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } })
      expect(steps).toBeGreaterThan(20)
      expect(steps).toBeLessThanOrEqual(70)
    }),
  )
})
