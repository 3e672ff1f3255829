/**
 * A sync's pending changes as a plan, end to end: the built server on its
 * sandbox, spoken to by the SDK v2 Client in both eras over stdio. estate-sync's
 * get answers the plan, each change by kind, type and name, under 2,500
 * characters, its untrusted values fenced and their paths in `_meta`;
 * `fields: ["*"]` the whole record; with everything in reach, a refresh
 * answers the same plan.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

const ERAS: ReadonlyArray<Clients.Era> = ["modern", "legacy"]

interface Result {
  readonly content: ReadonlyArray<{ readonly text?: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly _meta?: Record<string, unknown>
  readonly isError?: boolean
}

describe.each(ERAS)("a sync's plan, the %s era", (era) => {
  it.scopedLive('estate-sync\'s get is its plan; fields: ["*"] the record; a refresh the same plan', () =>
    Effect.gen(function* () {
      const { client } = yield* Spawn.v2({
        name: "svc-mcp-sync-plan",
        era,
        args: ["--sandbox"],
        env: { SVC_REACH: "all", SVC_GUARD: "off" },
      })
      expect(client.getProtocolEra()).toBe(era)
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)
      const get = { resource_type: "sync_resource", params: { sync: "estate-sync" } }

      const plan = yield* call("svc_get", get)
      const text = plan.content[0]?.text ?? ""
      expect(text.length).toBeLessThan(2500)
      const [fences, line, step, json] = text.split("\n")
      expect(fences).toMatch(
        /^\[svc-mcp: untrusted text at message, changes\[\]\.name, changes\[\]\.fields \(sync estate-sync\)/,
      )
      expect(line).toMatch(
        /^\[svc-mcp: the sync's pending changes as a plan, .*fields: \["\*"\] gives the whole record\]$/,
      )
      // SVC_REACH=all offers the refresh: the step is named as the call.
      expect(step).toBe("[svc-mcp: svc_execute refresh_sync_pending computes the plan anew from the sync's repository]")
      const shown = JSON.parse((json ?? "").replace(/<u:[0-9a-f]{16}>|<\/u>/g, "")) as Record<string, unknown>
      expect(shown).toEqual(plan.structuredContent)
      expect(shown).toMatchObject({
        name: "estate-sync",
        commit: "c41e7d2",
        message: "Move the cache to its own stack; retire legacy-cron",
        deploys: [{ target: "Stack web", reason: "config changed" }],
      })
      expect((shown.changes as Array<unknown>).slice(0, 3)).toEqual([
        { change: "create", type: "Stack", name: "cache" },
        { change: "update", type: "Stack", name: "web", fields: [["branch", "main", "release"]] },
        { change: "delete", type: "Deployment", name: "legacy-cron" },
      ])
      expect(plan._meta?.["svc-mcp/untrusted"]).toContain("/changes/1/fields/0/2")

      const whole = yield* call("svc_get", { ...get, fields: ["*"] })
      expect(whole.structuredContent).toMatchObject({
        name: "estate-sync",
        info: { pending_hash: "c41e7d2", resource_updates: expect.any(Array) },
      })

      const refreshed = yield* call("svc_execute", {
        operation: "refresh_sync_pending",
        params: { sync: "estate-sync" },
      })
      expect(refreshed.isError).toBeFalsy()
      expect(refreshed.content[0]?.text?.split("\n")[1]).toBe(line)
      expect(refreshed.structuredContent?.changes).toEqual(shown.changes)
    }),
  )
})
