/**
 * Unknown is said as unknown, over HTTP against the built server and its sandbox: a stack never
 * deployed answers its refresh with "never deployed" and `differs: "unknown"`, never as in sync;
 * an empty log says why (the container exited, and since when); a log with lines is the log alone.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

const connect = (args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const server = yield* Spawn.serveHttp({ SVC_REACH: "all", SVC_GUARD: "off" }, ["--sandbox", ...args])
    const { client } = yield* Clients.overHttp(server.url, {
      name: "svc-mcp-unknown",
      era: "modern",
      answering: "accept",
    })
    return (tool: string, params: Record<string, unknown>) =>
      Effect.tap(
        Effect.promise(() => client.callTool({ name: tool, arguments: params }) as Promise<Result>),
        (result) => expect(result.isError, `${tool} ${JSON.stringify(params)}: ${result.content[0]?.text}`).toBeFalsy(),
      )
  })

const lines = (result: Result) => (result.content[0]?.text ?? "").split("\n")

describe("unknown said as unknown, over HTTP", () => {
  it.scopedLive("a stack never deployed: its refresh says so, and differs is unknown", () =>
    Effect.gen(function* () {
      const call = yield* connect([])
      yield* call("svc_create", {
        resource_type: "stack",
        params: { name: "fresh", config: { server_id: "prod-01", repo: "acme/fresh", branch: "main" } },
      })
      const refreshed = yield* call("svc_execute", { operation: "refresh_stack_cache", params: { stack: "fresh" } })
      expect(lines(refreshed)[0]).toBe(
        "[svc-mcp: the cache of the stack fresh is refreshed; its commits now, not all known, read back]",
      )
      expect(refreshed.structuredContent).toMatchObject({ deployed_commit: "never deployed", differs: "unknown" })
    }),
  )

  it.scopedLive("an empty log says the container exited and since when; a log with lines is the log alone", () =>
    Effect.gen(function* () {
      const call = yield* connect(["--scenario", "incident"])
      const deployment = yield* call("svc_logs", { resource_type: "deployment", params: { deployment: "legacy-cron" } })
      expect(lines(deployment)).toContain(
        "[svc-mcp: the log is empty: the deployment legacy-cron: its container is exited (Exited (0) 3 days ago)]",
      )
      const stack = yield* call("svc_logs", {
        resource_type: "stack",
        params: { stack: "staging-web", services: ["web"] },
      })
      expect(lines(stack)).toContain(
        "[svc-mcp: the log is empty: the stack staging-web: web: exited (Exited (0) 3 days ago)]",
      )
      const running = yield* call("svc_logs", { resource_type: "stack", params: { stack: "web" } })
      expect(lines(running).some((line) => line.includes("the log is empty"))).toBe(false)
      expect(lines(running).length).toBeGreaterThan(1)
    }),
  )
})
