/**
 * A check that decides reads whole, over HTTP against the sandbox: the built server in `operate`
 * mode (access changes kept away) refuses a sync's run whose files open the group `developers` to
 * everyone, before and after a file of 2.1 MB pushes the group's change past the answer cap
 * (2,000,000 bytes); it refuses a procedure whose first stage's name of 2.1 MB pushes its
 * `RunSync` stage past the cap; and the run_sync question shows the change rather than "nothing
 * pending". Each refusal sends nothing: `developers` stays closed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Sandbox from "../../src/Sandbox/Server.js"
import * as Clients from "../support/Clients.js"
import * as Sandboxes from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

const textOf = (result: Result) => result.content[0]?.text ?? ""

/** Past the default answer cap, and so placed before what a check needs. */
const BIG = 2_100_000

/** The built server over HTTP in front of `sandbox`, its user accepting every question; the questions asked. */
const serving = (sandbox: Sandbox.Sandbox, env: Record<string, string>) =>
  Effect.gen(function* () {
    const server = yield* Spawn.serveHttp({
      SVC_URL: sandbox.url,
      SVC_API_KEY: sandbox.apiKey.key,
      SVC_API_SECRET: sandbox.apiKey.secret,
      SVC_GUARD: "off",
      ...env,
    })
    const { client, asked } = yield* Clients.overHttp(server.url, {
      name: "svc-mcp-whole-reads",
      era: "modern",
      answering: "decline",
    })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)
    return { call, asked }
  })

const refused = (result: Result, ...words: ReadonlyArray<string>) => {
  expect(result.isError, textOf(result)).toBe(true)
  expect(textOf(result)).toContain("is refused")
  expect(textOf(result)).toContain("Nothing was sent")
  for (const word of words) expect(textOf(result)).toContain(word)
}

/** The sandbox, its sync's files opening `developers` to everyone (padded past the cap, when asked). */
const estate = (padded: boolean) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped()
    const admin = Sandboxes.asAdmin(sandbox)
    const write = (file_path: string, contents: string) =>
      admin.ok("write/WriteSyncFileContents", { sync: "estate-sync", resource_path: "", file_path, contents })
    yield* write("access.toml", '[[user_group]]\nname = "developers"\neveryone = true\n')
    if (padded) yield* write("padding.toml", `# ${"x".repeat(BIG)}\n`)
    yield* admin.ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })
    /** Whether `developers` is open to everyone, as the service holds it. */
    const open = Effect.map(
      admin.ok("read/GetUserGroup", { user_group: "developers" }),
      (group: { everyone?: boolean }) => group.everyone === true,
    )
    return { sandbox, admin, write, open }
  })

describe("a check reads whole what it decides on, over HTTP", () => {
  it.scopedLive(
    "operate mode: the sync's run is refused before and after a file of 2.1 MB is added; developers stays closed",
    () =>
      Effect.gen(function* () {
        const { sandbox, write, open } = yield* estate(false)
        const { call } = yield* serving(sandbox, { SVC_MODE: "operate" })
        expect(yield* open).toBe(false)
        const before = yield* call("svc_execute", { operation: "run_sync", params: { sync: "estate-sync" } })
        refused(before, 'touch user groups (update "developers")', "operate mode (SVC_MODE)")
        yield* write("padding.toml", `# ${"x".repeat(BIG)}\n`)
        const after = yield* call("svc_execute", { operation: "run_sync", params: { sync: "estate-sync" } })
        refused(after, 'touch user groups (update "developers")')
        expect(yield* open).toBe(false)
      }),
    60_000,
  )

  it.scopedLive("operate mode: a procedure whose first stage's name is 2.1 MB is read whole, and refused", () =>
    Effect.gen(function* () {
      const { sandbox, admin, open } = yield* estate(false)
      const stage = (name: string, execution: Record<string, unknown>) => ({
        name,
        enabled: true,
        executions: [{ enabled: true, execution }],
      })
      const sync = { type: "RunSync", params: { sync: "estate-sync" } }
      yield* admin.ok("write/CreateProcedure", { name: "small", config: { stages: [stage("sync", sync)] } })
      yield* admin.ok("write/CreateProcedure", {
        name: "padded",
        config: { stages: [stage("x".repeat(BIG), { type: "Sleep", params: {} }), stage("sync", sync)] },
      })
      const { call } = yield* serving(sandbox, { SVC_MODE: "operate" })
      const small = yield* call("svc_execute", { operation: "run_procedure", params: { procedure: "small" } })
      refused(small, 'a stage runs the sync "estate-sync"', '"developers"')
      const padded = yield* call("svc_execute", { operation: "run_procedure", params: { procedure: "padded" } })
      refused(padded, 'a stage runs the sync "estate-sync"', '"developers"')
      const batch = yield* call("svc_execute", { operation: "batch_run_procedure", params: { pattern: "padded" } })
      refused(batch, '"developers"')
      expect(yield* open).toBe(false)
    }),
  )

  it.scopedLive('the run_sync question names the group change past the cap, never "nothing pending"', () =>
    Effect.gen(function* () {
      const { sandbox, open } = yield* estate(true)
      const { call, asked } = yield* serving(sandbox, { SVC_CONFIRM: "svc_execute:run_sync" })
      const ran = yield* call("svc_execute", { operation: "run_sync", params: { sync: "estate-sync" } })
      expect(textOf(ran)).toContain("the user declined the confirmation")
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain('- update user group "developers"')
      expect(asked[0]).not.toContain("nothing pending")
      expect(yield* open).toBe(false)
    }),
  )
})
