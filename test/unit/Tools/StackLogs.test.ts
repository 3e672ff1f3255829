/**
 * A stack's logs: `services` may be left out, and is then sent as `[]`, which the service reads as
 * every service (GetStackLog and SearchStackLog require the field); a list given is sent as given.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

describe("a stack's logs", () => {
  it.scoped("without services are every service's: services [] is sent; a list given is sent as it is", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
      const call = (name: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        Effect.promise(() => client.callTool({ name, arguments: { resource_type: "stack", params, ...extra } }))
      const all = yield* call("svc_logs", { stack: "web" })
      expect(all.isError).toBeFalsy()
      const some = yield* call("svc_logs", { stack: "web", services: ["db"] })
      expect(some.isError).toBeFalsy()
      const searched = yield* call("svc_search_logs", { stack: "web" }, { query: "error" })
      expect(searched.isError).toBeFalsy()
      const bodies = double.calls().map((r) => [r.path, r.body])
      expect(bodies).toEqual([
        ["/read/GetStackLog", { stack: "web", services: [] }],
        ["/read/GetStackLog", { stack: "web", services: ["db"] }],
        ["/read/SearchStackLog", { stack: "web", services: [], terms: ["error"] }],
      ])
      // A deployment's logs take no services, and none is added.
      yield* Effect.promise(() =>
        client.callTool({
          name: "svc_logs",
          arguments: { resource_type: "deployment", params: { deployment: "api" } },
        }),
      )
      expect(double.calls().at(-1)?.body).toEqual({ deployment: "api" })
    }),
  )

  it.scoped("with SVC_LOG_TIMESTAMPS each svc_logs call asks for each line's time, unless it says itself", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url), { logTimestamps: true })
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      yield* call("svc_logs", { resource_type: "stack", params: { stack: "web" } })
      yield* call("svc_logs", { resource_type: "deployment", params: { deployment: "api", timestamps: false } })
      // Another tool's answer is as before.
      yield* call("svc_search_logs", { resource_type: "deployment", params: { deployment: "api" }, query: "error" })
      expect(double.calls().map((r) => [r.path, r.body])).toEqual([
        ["/read/GetStackLog", { stack: "web", services: [], timestamps: true }],
        ["/read/GetDeploymentLog", { deployment: "api", timestamps: false }],
        ["/read/SearchDeploymentLog", { deployment: "api", terms: ["error"] }],
      ])
    }),
  )
})
