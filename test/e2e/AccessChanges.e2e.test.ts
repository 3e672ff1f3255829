/**
 * SVC_ACCESS_CHANGES end to end: the built server over HTTP, on the sandbox's
 * `drift` scenario, whose sync's files add carol to `operators`. With access
 * changes kept away, no path changes who may do what: the direct selector, the
 * sync's run and commit (refused on their pending plan, naming the group), and
 * the sync's file written by the assistant itself. `operate` mode keeps them
 * away by default. Each refusal sends nothing: `operators` keeps its members.
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

const textOf = (result: Result) => result.content[0]?.text ?? ""

const connect = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const { url } = yield* Spawn.serveHttp(env, ["--sandbox", "--scenario", "drift"])
    const { client, asked } = yield* Clients.overHttp(url, {
      name: "svc-mcp-access",
      era: "modern",
      answering: "accept",
    })
    const call = (tool: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name: tool, arguments: args }) as Promise<Result>)
    /** The members of `operators` (user ids), as the service holds them: untouched by every refusal. */
    const operators = Effect.map(
      call("svc_get", { resource_type: "user_group", params: { user_group: "operators" }, fields: ["users"] }),
      (r): ReadonlyArray<string> => {
        expect(r.isError, textOf(r)).toBeFalsy()
        const text = textOf(r)
        return JSON.parse(text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"))).users
      },
    )
    return { call, asked, operators }
  })

const refused = (result: Result, ...words: ReadonlyArray<string>) => {
  expect(result.isError, textOf(result)).toBe(true)
  expect(textOf(result)).toContain("is refused")
  expect(textOf(result)).toContain("Nothing was sent")
  expect((result.structuredContent?.error as { kind?: string } | undefined)?.kind).toBe("denied")
  for (const word of words) expect(textOf(result)).toContain(word)
}

const SYNC_FILE = {
  sync: "estate-sync",
  resource_path: "resources",
  file_path: "access.toml",
  contents: '[[stack]]\nname = "cache"\n\n[[user_group]]\nname = "operators"\nusers = ["alice", "carol"]\n',
}

describe("SVC_ACCESS_CHANGES=deny, over HTTP on the drift scenario", () => {
  it.scopedLive(
    "the direct change, the sync's run and commit, and the sync's file are refused; carol is no operator",
    () =>
      Effect.gen(function* () {
        const { call, asked, operators } = yield* connect({ SVC_REACH: "all", SVC_ACCESS_CHANGES: "deny" })
        const before = yield* operators
        expect(before).toHaveLength(1)

        const direct = yield* call("svc_update", {
          resource_type: "user_group_add_user",
          params: { user_group: "operators", user: "carol" },
        })
        refused(direct, "SVC_ACCESS_CHANGES=deny", "adds a user to a group")

        const run = yield* call("svc_execute", { operation: "run_sync", params: { sync: "estate-sync" }, wait: true })
        refused(run, "user groups", '"operators"', "SVC_ACCESS_CHANGES=deny")

        const commit = yield* call("svc_execute", { operation: "commit_sync", params: { sync: "estate-sync" } })
        refused(commit, "user groups", '"operators"')

        const written = yield* call("svc_update", { resource_type: "sync_resource_file", params: SYNC_FILE })
        refused(written, "declares the user groups", '"operators"')
        // A key spelled with an escape is the same key to the service.
        const escaped = yield* call("svc_update", {
          resource_type: "sync_resource_file",
          params: { ...SYNC_FILE, contents: "[[\"user\\u005fgroup\"]]\nname = 'admins'\neveryone = true\n" },
        })
        refused(escaped, '"admins"')

        // Nothing of any of them reached the service, and none was asked first.
        expect(yield* operators).toEqual(before)
        expect(asked.length).toBe(0)
        const file = yield* call("svc_get", {
          resource_type: "sync_resource",
          params: { sync: "estate-sync" },
          fields: ["*"],
        })
        expect(textOf(file)).not.toContain("access.toml")

        // A sync's file without user groups, and a change of no one's rights, go through.
        const plain = yield* call("svc_update", {
          resource_type: "sync_resource_file",
          params: { ...SYNC_FILE, contents: '[[stack]]\nname = "cache"\n' },
        })
        expect(plain.isError, textOf(plain)).toBeFalsy()
      }),
  )

  it.scopedLive(
    'full mode with deny: a user group after a multi-line array\'s `["x"],` line is read as TOML reads it, and the write refused',
    () =>
      Effect.gen(function* () {
        // A line of an array that looks like a table's header is none: the user group after it is at the root.
        const contents = [
          "tags = [",
          '  ["x"],',
          "]",
          'user_group = [{ name = "writers", users = ["viewer"], everyone = false, permissions = [',
          '  { target = { type = "Server", id = "prod-01" }, level = "Write" },',
          "] }]",
          "",
          "[[stack]]",
          'name = "cache"',
          "",
        ].join("\n")
        const denied = yield* connect({ SVC_MODE: "full", SVC_REACH: "all", SVC_ACCESS_CHANGES: "deny" })
        const written = yield* denied.call("svc_update", {
          resource_type: "sync_resource_file",
          params: { ...SYNC_FILE, contents },
        })
        refused(written, 'declares the user groups "writers"', "SVC_ACCESS_CHANGES=deny")
        // A text that is no TOML cannot be read for its user groups: refused, saying so.
        const broken = yield* denied.call("svc_update", {
          resource_type: "sync_resource_file",
          params: { ...SYNC_FILE, contents: `${contents}user_group = [` },
        })
        refused(broken, "could not be read as TOML", "whether it declares user groups is unknown")
        const file = yield* denied.call("svc_get", {
          resource_type: "sync_resource",
          params: { sync: "estate-sync" },
          fields: ["*"],
        })
        expect(textOf(file)).not.toContain("access.toml")

        // The service reads the same text as a user group: allowed, the sync's plan creates it.
        const allowed = yield* connect({ SVC_MODE: "full", SVC_REACH: "all", SVC_ACCESS_CHANGES: "allow" })
        const sent = yield* allowed.call("svc_update", {
          resource_type: "sync_resource_file",
          params: { ...SYNC_FILE, contents },
        })
        expect(sent.isError, textOf(sent)).toBeFalsy()
        const plan = yield* allowed.call("svc_execute", {
          operation: "refresh_sync_pending",
          params: { sync: "estate-sync" },
        })
        expect(textOf(plan)).toMatch(/"change":"create","type":"UserGroup","name":"<u:[0-9a-f]{16}>writers<\/u>"/)
      }),
  )

  it.scopedLive("operate mode keeps access changes away unless SVC_ACCESS_CHANGES=allow", () =>
    Effect.gen(function* () {
      const { call, operators } = yield* connect({ SVC_MODE: "operate" })
      const before = yield* operators
      const run = yield* call("svc_execute", { operation: "run_sync", params: { sync: "estate-sync" }, wait: true })
      refused(run, '"operators"', "operate mode", "SVC_ACCESS_CHANGES=allow")
      expect(yield* operators).toEqual(before)

      const allowed = yield* connect({ SVC_MODE: "operate", SVC_ACCESS_CHANGES: "allow" })
      const ran = yield* allowed.call("svc_execute", {
        operation: "run_sync",
        params: { sync: "estate-sync" },
        wait: true,
      })
      expect(ran.isError, textOf(ran)).toBeFalsy()
      // The run adds carol where it may: the refusals above kept that out.
      expect(yield* allowed.operators).toHaveLength(before.length + 1)
    }),
  )
})
