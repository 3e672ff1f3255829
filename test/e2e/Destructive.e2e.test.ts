/**
 * SVC_CONFIRM=destructive on the built server, over stdio, on the sandbox: every prune, delete,
 * destroy, remove and stop the tools list is held for the user's confirmation (this client cannot
 * answer one, so each is refused saying so, nothing sent), and a deploy, a start, a restart or a
 * pull is sent as asked. Which selectors lose data is read here from their names in tools/list,
 * not from the class's table.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

const LOSES = /^(run_server_)?(prune|delete|destroy|batch_destroy|remove|stop|clear)_/

const text = (result: unknown) =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n")

describe("SVC_CONFIRM=destructive", () => {
  it.scopedLive("asks before every prune, delete, destroy and stop, and not before a deploy", () =>
    Effect.gen(function* () {
      // Params unchecked, so that each call reaches the confirmation with no params to write out.
      const { client } = yield* Spawn.connect({ SVC_CONFIRM: "destructive", SVC_CHECK_PARAMS: "off" }, ["--sandbox"])
      const { tools } = yield* Effect.promise(() => client.listTools())
      const selectorsOf = (name: string) => {
        const tool = tools.find((t) => t.name === name)
        const key = name === "svc_execute" ? "operation" : "resource_type"
        return ((tool?.inputSchema.properties?.[key] as { enum?: Array<string> } | undefined)?.enum ??
          []) as Array<string>
      }
      const losing = [
        ...selectorsOf("svc_execute")
          .filter((operation) => LOSES.test(operation))
          .map((operation) => ({ name: "svc_execute", arguments: { operation, params: {} } })),
        ...selectorsOf("svc_delete").map((resource_type) => ({
          name: "svc_delete",
          arguments: { resource_type, params: {} },
        })),
      ]
      expect(losing.length).toBeGreaterThanOrEqual(40)
      for (const call of losing) {
        const result = yield* Effect.promise(() => client.callTool(call))
        expect(result.isError, JSON.stringify(call)).toBe(true)
        expect(text(result), JSON.stringify(call)).toMatch(
          /SVC_CONFIRM \(destructive\) requires the user's confirmation/,
        )
      }
      for (const operation of ["deploy_stack", "start_stack", "restart_stack", "pull_stack"]) {
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "svc_execute", arguments: { operation, params: { stack: "web" } } }),
        )
        expect(text(result), operation).not.toMatch(/SVC_CONFIRM/)
        expect(result.isError, `${operation}: ${text(result)}`).toBeFalsy()
      }
    }),
  )
})
