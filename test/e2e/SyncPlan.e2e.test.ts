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
import * as Clients from "../support/Clients.js"
import * as Sandbox from "../support/Sandbox.js"
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
      expect(line).toMatch(/^\[svc-mcp: the sync's pending changes, .*fields: \["\*"\]: the whole record\]$/)
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

/**
 * A secret variable's value never shows through a sync's plan, over HTTP against the sandbox:
 * estate-sync's file gives DB_PASSWORD (secret at the service) a new value without saying it is
 * secret, and LOG_LEVEL (plain) a new one. On a read-only server, svc_get's plan, the plan's texts
 * (`fields: ["info.variable_updates"]`) and the whole record show neither the current secret nor
 * the new one; an operate-mode server's refresh_sync_pending neither; LOG_LEVEL's values show.
 * SVC_REVEAL_SECRETS shows them.
 */
describe("a sync's plan over HTTP, a secret variable's values", () => {
  const SECRET_NOW = "s3cr3t-db-passw0rd"
  const SECRET_NEXT = "n3xt-db-passw0rd-from-the-files"
  const FILE = `[[variable]]\nname = "DB_PASSWORD"\nvalue = "${SECRET_NEXT}"\n\n[[variable]]\nname = "LOG_LEVEL"\nvalue = "trace"\n`

  it.scopedLive("never show, in any view, in read-only or operate mode; SVC_REVEAL_SECRETS shows them", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandbox.scoped()
      const admin = Sandbox.asAdmin(sandbox)
      yield* admin.ok("write/WriteSyncFileContents", {
        sync: "estate-sync",
        resource_path: "resources",
        file_path: "variables.toml",
        contents: FILE,
      })
      const refreshed = yield* admin.ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })
      // The service's plan holds both values: the current secret and the new one.
      expect(JSON.stringify(refreshed.info.variable_updates)).toContain(SECRET_NOW)
      expect(JSON.stringify(refreshed.info.variable_updates)).toContain(SECRET_NEXT)

      const serve = (env: Record<string, string>) =>
        Effect.gen(function* () {
          const { url } = yield* Spawn.serveHttp({
            SVC_URL: sandbox.url,
            SVC_API_KEY: sandbox.apiKey.key,
            SVC_API_SECRET: sandbox.apiKey.secret,
            SVC_REACH: "all",
            SVC_GUARD: "off",
            ...env,
          })
          const { client } = yield* Clients.overHttp(url, { name: "svc-mcp-plan-secrets", era: "modern" })
          return (name: string, args: Record<string, unknown>) =>
            Effect.map(
              Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>),
              (result) => {
                expect(result.isError, JSON.stringify(result)).toBeFalsy()
                return `${result.content[0]?.text ?? ""}\n${JSON.stringify(result.structuredContent)}`
              },
            )
        })
      const get = { resource_type: "sync_resource", params: { sync: "estate-sync" } }

      const readOnly = yield* serve({ SVC_MODE: "read-only" })
      const shown = [
        yield* readOnly("svc_get", get),
        yield* readOnly("svc_get", { ...get, fields: ["info.variable_updates"] }),
        yield* readOnly("svc_get", { ...get, fields: ["*"] }),
      ]
      const operate = yield* serve({ SVC_MODE: "operate" })
      shown.push(yield* operate("svc_execute", { operation: "refresh_sync_pending", params: { sync: "estate-sync" } }))
      shown.push(
        yield* operate("svc_execute", {
          operation: "refresh_sync_pending",
          params: { sync: "estate-sync" },
          fields: ["info.variable_updates", "info.remote_contents"],
        }),
      )
      for (const text of shown) {
        expect(text).not.toContain(SECRET_NOW)
        expect(text).not.toContain(SECRET_NEXT)
      }
      // The plan says the secret changes, and shows what is plain.
      expect(shown[0]).toContain('"[redacted]","[redacted: a new value]"')
      expect(shown[0]).toContain('["value","info","trace"]')
      expect(shown[1]).toContain('value = \\"trace\\"')

      const revealed = yield* serve({ SVC_MODE: "read-only", SVC_REVEAL_SECRETS: "true" })
      const whole = yield* revealed("svc_get", { ...get, fields: ["info.variable_updates"] })
      expect(whole).toContain(SECRET_NOW)
      expect(whole).toContain(SECRET_NEXT)
    }),
  )
})
