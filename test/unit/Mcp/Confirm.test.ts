/**
 * SVC_CONFIRM: a matching call is sent only once the user accepts it, in both
 * eras (2026-07-28: input_required; 2025-11-25: elicitation), as the SDK v2
 * Client asks its user.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ElicitResult } from "@modelcontextprotocol/client"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

const ERAS: ReadonlyArray<Mcp.Era> = ["modern", "legacy"]

const settingsFrom = (env: Record<string, string>) =>
  Settings.loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const confirming = (patterns: string) =>
  Effect.map(settingsFrom({ SVC_CONFIRM: patterns }), ({ confirm }) => ({ confirm }))

describe.each(ERAS)("confirmation in the %s era", (era) => {
  const deleteStack = { name: "svc_delete", arguments: { resource_type: "stack", params: { id: "web" } } }

  it.scopedLive("an accepted call is sent, after the user saw the tool, selector, endpoint and target", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const settings = yield* confirming("svc_delete:*,svc_execute:destroy_*")
      const { client, asked } = yield* Mcp.connectV2(Layers.apiKey(double.url), settings, {
        era,
        elicit: () => "accept",
      })
      const result = yield* Effect.promise(() => client.callTool(deleteStack))
      expect(result.isError).toBeFalsy()
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatch(/^svc_delete resource_type "stack" will call write\/DeleteStack on id="web"\./)
      expect(asked[0]).toMatch(/SVC_CONFIRM svc_delete:\*/)
      // The question's plan reads the stack first; the one write is the call accepted.
      expect(double.requests[0]?.path).toBe("/read/GetStack")
      expect(double.requests.filter((r) => !r.path.startsWith("/read/")).map((r) => r.path)).toEqual([
        "/write/DeleteStack",
      ])
      // Calls no pattern matches are not asked about.
      yield* Effect.promise(() =>
        client.callTool({ name: "svc_execute", arguments: { operation: "deploy_stack", params: { stack: "web" } } }),
      )
      expect(asked).toHaveLength(1)
    }),
  )

  for (const answer of ["decline", "cancel"] as const) {
    it.scopedLive(`a call the user answers ${answer} to is not sent, and the result says so`, () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const settings = yield* confirming("svc_delete:*")
        const { client, asked } = yield* Mcp.connectV2(Layers.apiKey(double.url), settings, {
          era,
          elicit: (): ElicitResult["action"] => answer,
        })
        const result = yield* Effect.promise(() => client.callTool(deleteStack))
        expect(asked).toHaveLength(1)
        expect(result.isError).toBe(true)
        const reason = answer === "decline" ? "declined" : "cancelled"
        expect(Mcp.text(result)).toMatch(
          new RegExp(`the user ${reason} the confirmation \\(SVC_CONFIRM\\).*Nothing was sent`),
        )
        expect(result.structuredContent).toMatchObject({
          error: { kind: "not_confirmed", reason, tool: "svc_delete", endpoint: "write/DeleteStack" },
        })
        // Only the plan's reads: nothing written.
        expect(double.requests.filter((r) => !r.path.startsWith("/read/"))).toHaveLength(0)
      }),
    )
  }

  it.scopedLive("an update shows each changed field's current and new value, secrets hidden", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const settings = yield* confirming("svc_update:*")
      double.next("/read/GetStack", {
        status: 200,
        body: {
          id: "s1",
          name: "web",
          config: { auto_pull: false, webhook_secret: "old-hook-secret", branch: "main" },
        },
      })
      const { client, asked } = yield* Mcp.connectV2(Layers.apiKey(double.url), settings, {
        era,
        elicit: () => "accept",
      })
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_update",
          arguments: {
            resource_type: "stack",
            params: { id: "s1", config: { auto_pull: true, webhook_secret: "new-hook-secret" } },
          },
        }),
      )
      expect(result.isError).toBeFalsy()
      expect(asked[0]).toMatch(/will call write\/UpdateStack on id="s1"\./)
      expect(asked[0]).toMatch(/config\.auto_pull: false -> true/)
      expect(asked[0]).toMatch(/config\.webhook_secret: "\[redacted\]" -> "\[redacted\]"/)
      expect(asked[0]).not.toMatch(/hook-secret/)
      expect(double.requests.map((r) => r.path)).toEqual(["/read/GetStack", "/write/UpdateStack"])
      expect(double.requests[0]?.body).toEqual({ id: "s1" })
    }),
  )

  it.scopedLive("a client that can be asked nothing is refused, naming SVC_CONFIRM; nothing is sent", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const settings = yield* confirming("svc_delete:*")
      const { client } = yield* Mcp.connectV2(Layers.apiKey(double.url), settings, { era })
      const result = yield* Effect.promise(() => client.callTool(deleteStack))
      expect(result.isError).toBe(true)
      expect(result.structuredContent).toMatchObject({ error: { kind: "denied", tool: "svc_delete" } })
      expect(Mcp.text(result)).toMatch(/SVC_CONFIRM \(svc_delete:\*\) requires the user's confirmation/)
      expect(double.requests).toHaveLength(0)
    }),
  )
})

describe("SVC_CONFIRM", () => {
  it.effect("takes SVC_DENY's patterns; one that matches no tool:selector stops the start", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.flip(settingsFrom({ SVC_CONFIRM: "svc_delete" }))
      expect(bad.message).toMatch(
        /SVC_CONFIRM has the pattern "svc_delete", which is neither tool:selector nor a class \(destructive\)/,
      )
      const typo = yield* Effect.flip(Effect.flatMap(settingsFrom({ SVC_CONFIRM: "svc_delet:*" }), Policy.make))
      expect(typo.message).toMatch(
        /SVC_CONFIRM has the pattern "svc_delet:\*", which matches no tool:selector; did you mean svc_delete:\*\?/,
      )
      expect(typo.message).not.toMatch(/tools\/list/)
      const policy = yield* Effect.flatMap(settingsFrom({ SVC_CONFIRM: "svc_execute:destroy_*" }), Policy.make)
      expect(policy.summary).toMatch(/SVC_CONFIRM=svc_execute:destroy_\*/)
    }),
  )
})
