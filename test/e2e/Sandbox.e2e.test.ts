/**
 * `svc-mcp --sandbox` and `svc-mcp sandbox`, driven as an assistant and an operator would.
 */
import * as ChildProcess from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

const json = (result: unknown) => {
  const [first] = (result as { content: Array<{ text: string }> }).content
  // An answer with untrusted text starts with a line saying what its fences mean (src/Untrusted/Fence.ts);
  // a record at a glance, with a line saying so.
  return JSON.parse(
    (first?.text ?? "null").replace(/^\[svc-mcp: (untrusted text at|\w+ [^\n]* at a glance;) [^\n]*\n/, ""),
  )
}

describe("svc-mcp --sandbox", () => {
  it.scopedLive(
    "serves a stateful sandbox: create then get, rename then list, deploy to completion with logs, delete then get fails",
    () =>
      Effect.gen(function* () {
        // The guard off: this client cannot be asked, and its changes follow logs (test/e2e/Untrusted.e2e.test.ts has the guard).
        const { client, stderr } = yield* Spawn.connect({ SVC_GUARD: "off" }, ["--sandbox"])
        const call = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() => client.callTool({ name, arguments: args }))

        const created = yield* call("svc_create", {
          resource_type: "deployment",
          params: {
            name: "cache",
            config: { server_id: "prod-01", image: { type: "Image", params: { image: "redis:7" } } },
          },
        })
        expect(json(created).name).toBe("cache")
        // At a glance: its image among the fields an operator reads first; the whole record one field away.
        const got = yield* call("svc_get", { resource_type: "deployment", params: { deployment: "cache" } })
        expect(json(got)).toMatchObject({ name: "cache", image: "redis:7" })
        const whole = yield* call("svc_get", {
          resource_type: "deployment",
          params: { deployment: "cache" },
          fields: ["*"],
        })
        expect(json(whole).config.image).toEqual({ type: "Image", params: { image: "redis:7" } })

        yield* call("svc_rename", { resource_type: "deployment", params: { id: "cache", name: "redis-cache" } })
        const names = json(yield* call("svc_list", { resource_type: "deployment", fields: ["name"] })).map(
          (d: { name: string }) => d.name,
        )
        expect(names).toContain("redis-cache")
        expect(names).not.toContain("cache")

        const update = json(yield* call("svc_execute", { operation: "deploy", params: { deployment: "redis-cache" } }))
        // The result at a glance: its target by name, its status, the Update's id to follow.
        expect(update).toMatchObject({ operation: "Deploy", target: "Deployment redis-cache", status: "InProgress" })
        let status = ""
        for (let i = 0; i < 50 && status !== "Complete"; i++) {
          yield* Effect.sleep("100 millis")
          const { updates } = json(yield* call("svc_list_detail", { list_type: "updates" }))
          status = updates.find((u: { id: string }) => u.id === update.update)?.status
        }
        expect(status).toBe("Complete")
        const log = json(
          yield* call("svc_logs", { resource_type: "deployment", params: { deployment: "redis-cache" } }),
        )
        expect(log.stdout).toMatch(/redis-cache \| listening/)
        const summary = json(yield* call("svc_summary", { resource_type: "deployment" }))
        // api, docs and status-page (on the swarm) of the estate, and this one.
        expect(summary.running).toBe(4)

        yield* call("svc_delete", { resource_type: "deployment", params: { id: "redis-cache" } })
        const gone = yield* call("svc_get", { resource_type: "deployment", params: { deployment: "redis-cache" } })
        expect(gone.isError).toBe(true)
        expect(gone.structuredContent).toMatchObject({ error: { kind: "service_error", status: 500 } })
        expect(stderr()).toMatch(/SANDBOX/)
      }),
  )

  it.live("svc-mcp sandbox runs the service alone and prints its URL and credentials", () =>
    Effect.gen(function* () {
      const child = ChildProcess.spawn(process.execPath, [Spawn.ENTRY, "sandbox"], {
        stdio: ["ignore", "pipe", "pipe"],
      })
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      try {
        for (let i = 0; i < 100 && !/listening on http/.test(stderr); i++) yield* Effect.sleep("50 millis")
        const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1]
        expect(url).toBeDefined()
        const version = yield* Effect.promise(() => fetch(`${url}/version`).then((r) => r.text()))
        expect(version).toBe("2.3.3")
        expect(stderr).toMatch(/SVC_API_KEY=sandbox-key SVC_API_SECRET=sandbox-secret/)
        expect(stderr).toMatch(
          /read-only user .*SVC_API_KEY=viewer-key SVC_API_SECRET=viewer-secret, or log in as viewer \/ viewer-password/,
        )
        const finished = yield* Spawn.run(
          { SVC_URL: url as string, SVC_API_KEY: "sandbox-key", SVC_API_SECRET: "sandbox-secret" },
          ["check"],
        )
        expect(finished.code).toBe(0)
      } finally {
        child.kill("SIGINT")
      }
    }),
  )
})
