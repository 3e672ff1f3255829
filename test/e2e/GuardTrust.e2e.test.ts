/**
 * The guard's details a user trusts, against the built server with the
 * sandbox, in both eras and over stdio and HTTP: a call that would be refused
 * is refused without a question; the service's own lines in a rename's answer
 * open no window, an execution's output does; the question names what opened
 * the window as the user would say it; and a change of ids shows their names
 * on both sides.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read results field by field
type Any = any

const NAME = "svc-mcp-guard-trust"

const WAYS = [
  ["2026-07-28 over HTTP", "modern", "http"],
  ["2025-11-25 over stdio", "legacy", "stdio"],
  ["2025-11-25 over HTTP", "legacy", "http"],
] as const

/** The built server with `--sandbox`, a client that declares elicitation and declines every question. */
const connect = (era: Clients.Era, transport: "http" | "stdio") =>
  Effect.gen(function* () {
    const { client, asked } =
      transport === "http"
        ? yield* Clients.overHttp((yield* Spawn.serveHttp({}, ["--sandbox"])).url, {
            name: NAME,
            era,
            answering: "decline",
          })
        : yield* Spawn.v2({ name: NAME, era, env: {}, args: ["--sandbox"], answering: "decline" })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise((): Promise<Any> => client.callTool({ name, arguments: args }))
    return { asked, call }
  })

const textOf = (result: Any): string => result.content?.[0]?.text ?? ""

/** The id of each named record an answer holds, wherever it holds it (`id` or `_id.$oid`). */
const idsIn = (value: unknown, found = new Map<string, string>()): Map<string, string> => {
  if (Array.isArray(value)) for (const v of value) idsIn(v, found)
  else if (typeof value === "object" && value !== null) {
    const o = value as Any
    const id = typeof o.id === "string" ? o.id : o._id?.$oid
    if (typeof o.name === "string" && typeof id === "string") found.set(o.name, id)
    for (const v of Object.values(o)) idsIn(v, found)
  }
  return found
}

const readLogs = { resource_type: "stack", params: { stack: "web", services: ["worker"] } }
const deleteTag = { resource_type: "tag", params: { id: "staging" } }

describe.each(WAYS)("the guard's details, %s", (_, era, transport) => {
  it.scopedLive("after the hostile logs, an update with a field the endpoint lacks: invalid_params, nobody asked", () =>
    Effect.gen(function* () {
      const { asked, call } = yield* connect(era, transport)
      yield* call("svc_logs", readLogs)
      const refused = yield* call("svc_update", {
        resource_type: "deployment",
        params: { id: "api", config: { no_such_field: true } },
      })
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent.error.kind, textOf(refused)).toBe("invalid_params")
      expect(textOf(refused)).toMatch(/no_such_field/)
      expect(asked).toEqual([])
      // The same change with a field it has is asked, as the window holds it.
      yield* call("svc_update", { resource_type: "deployment", params: { id: "api", config: { send_alerts: false } } })
      expect(asked).toHaveLength(1)
    }),
  )

  it.scopedLive("a rename's own line opens no window: the next held change is sent unasked", () =>
    Effect.gen(function* () {
      const { asked, call } = yield* connect(era, transport)
      const renamed = yield* call("svc_rename", {
        resource_type: "deployment",
        params: { id: "docs", name: "docs-site" },
      })
      expect(renamed.isError, textOf(renamed)).toBeFalsy()
      const deleted = yield* call("svc_delete", deleteTag)
      expect(deleted.isError, textOf(deleted)).toBeFalsy()
      expect(asked).toEqual([])
    }),
  )

  it.scopedLive("a deploy's output opens it, and the question names it; logs are named as the user would", () =>
    Effect.gen(function* () {
      const { asked, call } = yield* connect(era, transport)
      // The whole Update, its output read: a glance that shows none of it opens nothing.
      const deployed = yield* call("svc_execute", {
        operation: "deploy_stack",
        params: { stack: "web" },
        wait: true,
        fields: ["*"],
      })
      expect(deployed.isError, textOf(deployed)).toBeFalsy()
      const held = yield* call("svc_delete", deleteTag)
      expect(held.isError).toBe(true)
      expect(asked).toEqual([
        expect.stringMatching(/asked because this follows reading the output of deploy_stack web, which may carry/),
      ])
      yield* call("svc_logs", readLogs)
      yield* call("svc_delete", deleteTag)
      expect(asked[1]).toMatch(/asked because this follows reading the logs of stack web \(service worker\), which/)
    }),
  )

  it.scopedLive("a change of tags and of server names them on both sides, and shows no id that has a name", () =>
    Effect.gen(function* () {
      const { asked, call } = yield* connect(era, transport)
      const tags = idsIn((yield* call("svc_list", { resource_type: "tag", fields: ["*"] })).structuredContent)
      const servers = idsIn((yield* call("svc_list", { resource_type: "server", fields: ["*"] })).structuredContent)
      const [production, staging, prod2] = [tags.get("production"), tags.get("staging"), servers.get("prod-02")]
      expect([production, staging, prod2].every((id) => typeof id === "string")).toBe(true)
      const sync = (matchTags: ReadonlyArray<unknown>) =>
        call("svc_update", {
          resource_type: "sync_resource",
          params: { id: "estate-sync", config: { match_tags: matchTags } },
        })
      // Before any read of text from outside: sent unasked, so the sync holds the tags as ids.
      const before = yield* sync([production])
      expect(before.isError, textOf(before)).toBeFalsy()
      expect(asked).toEqual([])
      yield* call("svc_logs", readLogs)
      yield* sync([staging, production])
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain('config.match_tags: ["production"] -> ["staging","production"]')
      yield* call("svc_update", { resource_type: "stack", params: { id: "web", config: { server_id: prod2 } } })
      expect(asked).toHaveLength(2)
      expect(asked[1]).toContain('config.server_id: "prod-01" -> "prod-02"')
      for (const id of [production, staging, prod2, servers.get("prod-01")]) {
        expect(asked.join("\n")).not.toContain(String(id))
      }
    }),
  )
})
