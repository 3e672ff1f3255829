/**
 * Docker lists at a glance against the sandbox: a server's containers as rows
 * at most half as long as their records, which `fields: ["*"]` gives as the
 * service sent them; the services of every stack, whose names a compose file
 * gives, as records with those names fenced.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

describe("docker lists as rows", () => {
  it.scoped("a server's containers, and every stack's services, in both eras", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      for (const era of ["legacy", "modern"] as const) {
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), {}, { era })
        const call = (args: Record<string, unknown>) =>
          Effect.promise(() => client.callTool({ name: "svc_list_detail", arguments: args }))
        const containers = { list_type: "containers", params: { server: "prod-01" } }
        const rows = Mcp.text(yield* call(containers))
        const whole = Mcp.text(yield* call({ ...containers, fields: ["*"] }))
        const [head, json] = rows.split("\n")
        expect(head).toBe(
          '[svc-mcp: 4 containers as rows of ["name","state","status","image"]; for more, fields: ["*"] or ["name","id"]]',
        )
        expect(JSON.parse(json ?? "")).toContainEqual(["api", "running", "Up 3 days", "ghcr.io/acme/api:1.4.2"])
        expect(rows.length).toBeLessThanOrEqual(whole.length / 2)
        // The whole records, as the service sent them.
        const records = JSON.parse(Mcp.unfenced(whole)) as Array<Record<string, unknown>>
        expect(records.map((record) => record.name)).toEqual(["web-web-1", "web-worker-1", "web-redis-1", "api"])
        expect(records[0]).toHaveProperty("labels")

        // A compose file's service names are anyone's with write access: the rows give way to records, fenced.
        const services = Mcp.text(yield* call({ list_type: "all_stack_services" }))
        expect(services).toMatch(/^\[svc-mcp: untrusted text at \[\]\.service, /)
        const served = JSON.parse(Mcp.unfenced(services)) as Array<Record<string, unknown>>
        expect(served).toContainEqual({
          stack_id: expect.any(String),
          stack_name: "web",
          service: expect.stringMatching(/^<u:[0-9a-f]{16}>worker<\/u>$/),
          state: "Running",
          image: "library/worker:latest",
        })
      }
    }),
  )
})
