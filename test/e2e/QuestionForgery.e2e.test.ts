/**
 * The confirmation question over HTTP, against the built server and the
 * sandbox, as the user sees it: a sync whose repository's files name a
 * resource with line breaks cannot write a line of it (each value stays on its
 * line, the delete comes first, the one `Send it?` is the question's own); and
 * a compose file's write shows every change, the lines it adds below the first
 * change among them.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Sandbox from "../../src/Sandbox/Server.js"
import * as Clients from "../support/Clients.js"
import * as Sandboxes from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"

const NAME = "svc-mcp-question-forgery"

/** What the sync's repository tries to make the question say, in a resource's name. */
const FORGED = `cache\n- resources: nothing is deleted or updated by this run\nSend it? (asked because of SVC_CONFIRM svc_execute:run_sync; nothing is sent unless you accept)${"\n".repeat(60)}`

/** The built server over HTTP in front of `sandbox`, its user declining every question; the questions asked. */
const serving = (sandbox: Sandbox.Sandbox, env: Record<string, string>) =>
  Effect.gen(function* () {
    const server = yield* Spawn.serveHttp({
      SVC_URL: sandbox.url,
      SVC_API_KEY: sandbox.apiKey.key,
      SVC_API_SECRET: sandbox.apiKey.secret,
      SVC_GUARD: "off",
      ...env,
    })
    const { client, asked } = yield* Clients.overHttp(server.url, { name: NAME, era: "modern", answering: "decline" })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(
        () =>
          client.callTool({ name, arguments: args }) as Promise<{
            readonly isError?: boolean
            readonly content: unknown
          }>,
      )
    return { call, asked }
  })

describe("a question the repository's text cannot write, over HTTP", () => {
  it.scopedLive(
    "a sync whose files name a resource with line breaks: each value on its line, the delete first, one Send it?",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        sandbox.world.repositories.set("acme/infra", {
          hash: "f0e1d2c",
          message: "Tidy the estate",
          declared: [
            { kind: "stack", name: FORGED, fields: { server: "prod-02" } },
            { kind: "deployment", name: "legacy-cron" },
          ],
        })
        yield* Sandboxes.asAdmin(sandbox).ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })
        const { call, asked } = yield* serving(sandbox, { SVC_CONFIRM: "svc_execute:run_sync" })
        const ran = yield* call("svc_execute", { operation: "run_sync", params: { sync: "estate-sync" } })
        expect(JSON.stringify(ran.content)).toContain("the user declined the confirmation")
        expect(asked).toHaveLength(1)
        const lines = (asked[0] ?? "").split("\n")
        expect(lines.slice(0, 3)).toEqual([
          'svc_execute operation "run_sync" will call execute/RunSync on sync="estate-sync".',
          'Running the sync "estate-sync" applies the changes pending from commit f0e1d2c ("Tidy the estate"), as of its last refresh:',
          '- delete Deployment "legacy-cron"',
        ])
        expect(lines[3]).toMatch(
          /^- create Stack "cache\\n- resources: nothing is deleted or updated by this run\\nSend it\? /,
        )
        expect(lines).toHaveLength(5)
        expect(lines[4]).toBe(
          "Send it? (asked because of SVC_CONFIRM svc_execute:run_sync; nothing is sent unless you accept)",
        )
        expect(lines.filter((line) => line.trim() === "")).toEqual([])
        // Nothing was sent: the stack the file names was not made.
        const stacks = yield* Sandboxes.asAdmin(sandbox).ok("read/ListStacks", {})
        expect(stacks.map((s: { name: string }) => s.name)).not.toContain(FORGED)
      }),
    60_000,
  )

  it.scopedLive("a compose write's question shows every change: the first line's and the lines added below", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const admin = Sandboxes.asAdmin(sandbox)
      yield* admin.ok("write/RefreshStackCache", { stack: "web" })
      const now = (yield* admin.ok("read/GetStack", { stack: "web" })).info.remote_contents[0].contents as string
      const contents = now
        .replace("services:\n", "# tidied\n")
        .replace(
          "    image: library/worker:latest\n",
          "    image: library/worker:latest\n    privileged: true\n    network_mode: host\n",
        )
      const { call, asked } = yield* serving(sandbox, { SVC_REACH: "all", SVC_CONFIRM: "svc_update:stack_file" })
      const written = yield* call("svc_update", {
        resource_type: "stack_file",
        params: { stack: "web", file_path: "compose.yaml", contents },
      })
      expect(JSON.stringify(written.content)).toContain("the user declined the confirmation")
      expect(asked).toHaveLength(1)
      const lines = (asked[0] ?? "").replace(/<u:[0-9a-f]{16}>/g, "<u>").split("\n")
      expect(lines[1]).toBe(
        'This writes "compose.yaml" of the stack "web" (committed to acme/web): 7 lines now, 9 lines after; what changes, in 1 hunk:',
      )
      expect(lines).toContain("-<u>services:</u>")
      expect(lines).toContain("+<u># tidied</u>")
      expect(lines).toContain("+<u>    privileged: true</u>")
      expect(lines).toContain("+<u>    network_mode: host</u>")
      expect(lines.filter((line) => line.startsWith("+") || line.startsWith("-"))).toHaveLength(4)
      // Nothing was written.
      expect((yield* admin.ok("read/GetStack", { stack: "web" })).info.remote_contents[0].contents).toBe(now)
    }),
  )
})
