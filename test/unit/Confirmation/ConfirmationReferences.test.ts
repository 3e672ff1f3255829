/**
 * A delete's question against the sandbox names what refers to what it deletes, beyond the
 * procedures' stages: an action whose script names it, an alerter whose targets name it, a sync
 * whose pending changes touch it;
 * and what a stack carries: its services, with their containers' states.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Shown from "../../../src/Call/Shown.js"
import * as Question from "../../../src/Confirmation/Question.js"
import { SvcClient } from "../../../src/SvcClient.js"
import type { Invocation } from "../../../src/Tools/Invoke.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

const remove = (resource_type: string, id: string): Invocation => ({
  shown: Shown.Shown.Glance(),
  tool: "svc_delete",
  wait: false,
  schema: false,
  selectorKey: "resource_type",
  selector: resource_type,
  endpoint: `write/Delete${{ stack: "Stack", server: "Server" }[resource_type] ?? "Deployment"}`,
  body: { id },
})

const ask = (invocation: Invocation) => Question.message({ invocation, revealSecrets: false })

describe("a delete's question", () => {
  it.scopedLive("names the alerters and syncs that refer to it, and a stack's services", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const lines = (yield* ask(remove("stack", "web"))).split("\n")
        expect(lines).toContain(
          'Referring to it, which would fail once it is gone: the sync "estate-sync" (its pending "Update", "Deploy").',
        )
        expect(lines).toContain(
          'Its services go with it, their containers removed: "web" (running), "worker" (running), "redis" (running).',
        )
        expect(yield* ask(remove("deployment", "legacy-cron"))).toContain(
          '\nReferring to it, which would fail once it is gone: the sync "estate-sync" (its pending "Delete").\n',
        )

        const api = (yield* Effect.flatMap(SvcClient, (c) =>
          c.call("read", "GetDeployment", { deployment: "api" }),
        )) as {
          _id: { $oid: string }
        }
        yield* Effect.flatMap(SvcClient, (c) =>
          c.call("write", "UpdateAlerter", {
            id: "ops-slack",
            config: { resources: [{ type: "Deployment", id: api._id.$oid }] },
          }),
        )
        expect(yield* ask(remove("deployment", "api"))).toContain(
          '\nReferring to it, which would fail once it is gone: the procedure "release" (its stage "deploy"); the alerter "ops-slack" (its targets).\n',
        )
        // An action's script naming it, as a whole string, by its name or its id.
        expect(yield* ask(remove("server", "prod-01"))).toMatch(/the action "rotate-logs" \(its script names it\)/)
        const docs = (yield* Effect.flatMap(SvcClient, (c) =>
          c.call("read", "GetDeployment", { deployment: "docs" }),
        )) as { _id: { $oid: string } }
        yield* Effect.flatMap(SvcClient, (c) =>
          c.call("write", "UpdateAction", {
            id: "rotate-logs",
            config: { file_contents: `await komodo.execute("Deploy", { deployment: "${docs._id.$oid}" })` },
          }),
        )
        expect(yield* ask(remove("deployment", "docs"))).toContain(
          '\nReferring to it, which would fail once it is gone: the action "rotate-logs" (its script names it).\n',
        )
        // A name that is only part of a string names nothing.
        yield* Effect.flatMap(SvcClient, (c) =>
          c.call("write", "UpdateAction", {
            id: "rotate-logs",
            config: { file_contents: "await komodo.execute('Deploy', { deployment: 'docs-old' }) // docs" },
          }),
        )
        expect(yield* ask(remove("deployment", "docs"))).toContain(
          "\nNo procedure's stage, action, alerter or sync refers to it.\n",
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )
})
