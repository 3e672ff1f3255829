/**
 * A minted grant is the most that person may do: in full mode, with access
 * changes allowed, a signed-in person whose calls carry a key minted for them
 * still changes nobody's rights: not through the access endpoints, not by a
 * sync's files that declare user groups, not by running a sync (or a procedure
 * that runs one) whose plan touches them, not by a batch of procedures. The
 * server's own calls in the same mode go through.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallContext from "../../../src/Call/Context.js"
import { SvcClient } from "../../../src/SvcClient.js"
import * as CallerAccess from "../../../src/Tools/Policy/CallerAccess.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

const BOB: CallContext.CallContext = {
  ...CallContext.empty,
  credentials: {
    _tag: "Minted",
    person: "bob@example.com",
    grant: { level: "Write", targets: [{ type: "ResourceSync", id: "estate-sync" }] },
  },
}

const FULL_ALLOWED = { mode: "full" as const, accessChanges: Option.some("allow" as const) }

describe("a minted person's calls, in full mode with access changes allowed", () => {
  it.scopedLive("never change who may do what, through any path; the server's own do", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const client = yield* SvcClient
        const as = (context: CallContext.CallContext) => (endpoint: string, params: Record<string, unknown>) =>
          CallContext.within(context)(CallerAccess.refusal(client, endpoint, params, FULL_ALLOWED, (name) => name))
        const bob = as(BOB)
        const server = as(CallContext.empty)
        yield* client.call("write", "CreateProcedure", {
          name: "resync",
          config: {
            stages: [
              {
                name: "one",
                enabled: true,
                executions: [{ enabled: true, execution: { type: "RunSync", params: { sync: "estate-sync" } } }],
              },
            ],
          },
        })
        // Bob writes a user group naming his own service user into the sync's files.
        const groups = `[[user_group]]\nname = "mine"\nusers = ["svc-mcp:bob@example.com"]\n[user_group.all]\nStack = "Write"\n`
        const write = { sync: "estate-sync", file_path: "groups.toml", resource_path: "", contents: groups }
        expect(yield* bob("WriteSyncFileContents", write)).toContain('declares the user groups "mine"')
        expect(yield* bob("WriteSyncFileContents", write)).toContain("a key minted for them")
        // The sync's plan touches user groups: its run, its commit, a procedure that runs it.
        expect(yield* bob("RunSync", { sync: "estate-sync" })).toContain("touch user groups")
        expect(yield* bob("CommitSync", { sync: "estate-sync" })).toContain("touch user groups")
        expect(yield* bob("RunProcedure", { procedure: "resync" })).toContain('a stage runs the sync "estate-sync"')
        // The access endpoints themselves, and a batch of procedures that is not read one by one.
        const permission = { user_target: { type: "User", id: "x" }, resource_target: {}, permission: "Write" }
        expect(yield* bob("UpdatePermissionOnTarget", permission)).toContain("changes a permission on a resource")
        expect(yield* bob("AddUserToUserGroup", { user_group: "developers", user: "x" })).toContain(
          "a key minted for them",
        )
        expect(yield* bob("BatchRunProcedure", { pattern: "*" })).toContain("runs every procedure")
        // An action's script acts with the service's own credentials: its run, a batch's, a procedure's stage.
        expect(yield* bob("RunAction", { action: "nightly" })).toContain("with the service's own credentials")
        expect(yield* bob("BatchRunAction", { pattern: "*" })).toContain("with the service's own credentials")
        yield* client.call("write", "CreateProcedure", {
          name: "scripted",
          config: {
            stages: [
              {
                name: "one",
                enabled: true,
                executions: [{ enabled: true, execution: { type: "RunAction", params: { action: "nightly" } } }],
              },
            ],
          },
        })
        expect(yield* bob("RunProcedure", { procedure: "scripted" })).toContain(
          'a stage runs the action "nightly", whose script acts with the service\'s own credentials',
        )
        expect(yield* server("RunProcedure", { procedure: "scripted" })).toBeUndefined()
        expect(yield* server("RunAction", { action: "nightly" })).toBeUndefined()
        // What changes no one's rights is not refused.
        expect(yield* bob("WriteSyncFileContents", { ...write, contents: '[[stack]]\nname = "web"\n' })).toBeUndefined()
        expect(yield* bob("DeployStack", { stack: "web" })).toBeUndefined()
        // The server's own credentials, in the same mode and setting: all of it goes through.
        expect(yield* server("WriteSyncFileContents", write)).toBeUndefined()
        expect(yield* server("RunSync", { sync: "estate-sync" })).toBeUndefined()
        expect(yield* server("UpdatePermissionOnTarget", permission)).toBeUndefined()
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )
})
