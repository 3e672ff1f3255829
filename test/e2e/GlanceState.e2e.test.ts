/**
 * The state at a glance, over HTTP against the built server and its sandbox: a deploy's answer
 * says the stack's state after it, and so does the next glance of the stack, with no list read
 * by the assistant; a stop's answer and the glance after it the same; a deployment's too.
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

const connect = Effect.gen(function* () {
  const server = yield* Spawn.serveHttp({}, ["--sandbox"])
  const { client } = yield* Clients.overHttp(server.url, {
    name: "svc-mcp-glance-state",
    era: "modern",
    answering: "accept",
  })
  return (tool: string, args: Record<string, unknown>) =>
    Effect.tap(
      Effect.promise(() => client.callTool({ name: tool, arguments: args }) as Promise<Result>),
      (result) => expect(result.isError, `${tool} ${JSON.stringify(args)}: ${result.content[0]?.text}`).toBeFalsy(),
    )
})

describe("the state at a glance, over HTTP", () => {
  it.scopedLive("a deploy's answer and the next glance say the stack's state; a stop's too; a deployment's", () =>
    Effect.gen(function* () {
      const call = yield* connect
      const glance = (type: string, params: Record<string, unknown>) =>
        Effect.map(call("svc_get", { resource_type: type, params }), (r) => r.structuredContent)
      const execute = (operation: string, params: Record<string, unknown>) =>
        Effect.map(call("svc_execute", { operation, params, wait: true }), (r) => r.structuredContent)
      const stack = { stack: "staging-web" }

      expect(yield* glance("stack", stack)).toMatchObject({ name: "staging-web", state: "stopped" })
      expect(yield* execute("deploy_stack", stack)).toMatchObject({
        operation: "DeployStack",
        target: "Stack staging-web",
        success: true,
        state: "running",
      })
      const deployed = yield* glance("stack", stack)
      expect(deployed).toMatchObject({ name: "staging-web", state: "running", files_at: "repo" })
      // The state beside the name, where an assistant reads first.
      expect(Object.keys(deployed ?? {}).slice(0, 3)).toEqual(["name", "id", "state"])

      expect(yield* execute("stop_stack", stack)).toMatchObject({ operation: "StopStack", state: "stopped" })
      expect(yield* glance("stack", stack)).toMatchObject({ state: "stopped" })

      const api = { deployment: "api" }
      expect(yield* glance("deployment", api)).toMatchObject({ state: "running" })
      expect(yield* execute("stop_deployment", api)).toMatchObject({ operation: "StopDeployment", state: "exited" })
      expect(yield* glance("deployment", api)).toMatchObject({ state: "exited" })
    }),
  )
})
