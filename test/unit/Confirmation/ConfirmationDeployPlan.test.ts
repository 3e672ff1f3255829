/**
 * A deploy's question against the sandbox says what the deploy changes, read just before asking:
 * a deployment's image now and the image its config names; a stack's commit deployed and the
 * repository's latest; a stack whose compose file the service keeps, the file's hash as deployed
 * and now. What cannot be read is said so.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Shown from "../../../src/Call/Shown.js"
import * as Question from "../../../src/Confirmation/Question.js"
import { SvcClient } from "../../../src/SvcClient.js"
import type { Invocation } from "../../../src/Tools/Invoke.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

const call = (group: "read" | "write" | "execute", endpoint: string, params: object) =>
  Effect.flatMap(SvcClient, (client) => client.call(group, endpoint, params))
const write = (endpoint: string, params: object) => call("write", endpoint, params)

const execute = (selector: string, endpoint: string, body: Record<string, unknown>): Invocation => ({
  shown: Shown.Shown.Glance(),
  tool: "svc_execute",
  wait: false,
  schema: false,
  selectorKey: "operation",
  selector,
  endpoint: `execute/${endpoint}`,
  body,
})

/** Deploys the stack and waits for the deploy to end. */
const deployed = (stack: string) =>
  Effect.gen(function* () {
    const update = (yield* call("execute", "DeployStack", { stack })) as { _id: { $oid: string } }
    for (let i = 0; i < 400; i++) {
      const status = ((yield* call("read", "GetUpdate", { id: update._id.$oid })) as { status: string }).status
      if (status === "Complete") break
      yield* Effect.sleep("5 millis")
    }
  })

const ask = (invocation: Invocation) => Question.message({ invocation, revealSecrets: false })

describe("a deploy's question", () => {
  it.scopedLive("says the deployment's image now and the image it deploys", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const deploy = execute("deploy", "Deploy", { deployment: "api" })
        expect((yield* ask(deploy)).split("\n")[1]).toBe(
          'Runs now: "ghcr.io/acme/api:1.4.2" (running); this deploys "ghcr.io/acme/api:1.4.2", the same image, pulled again.',
        )
        yield* write("UpdateDeployment", {
          id: "api",
          config: { image: { type: "Image", params: { image: "ghcr.io/acme/api:1.5.0" } } },
        })
        expect((yield* ask(deploy)).split("\n")[1]).toBe(
          'Runs now: "ghcr.io/acme/api:1.4.2" (running); this deploys "ghcr.io/acme/api:1.5.0".',
        )
        // A batch says it of each match, under its name.
        const batch = (yield* ask(execute("batch_deploy", "BatchDeploy", { pattern: "api,docs" }))).split("\n")
        expect(batch.slice(2, 5)).toEqual([
          "What each deploy changes:",
          '  "api": Runs now: "ghcr.io/acme/api:1.4.2" (running); this deploys "ghcr.io/acme/api:1.5.0".',
          '  "docs": Runs now: "ghcr.io/acme/docs:2.0.0" (running); this deploys "ghcr.io/acme/docs:2.0.0", the same image, pulled again.',
        ])
        expect(yield* ask(execute("deploy", "Deploy", { deployment: "no-such" }))).toMatch(
          /\nWhat it changes could not be read \(.+\)\.\n/,
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive("says a stack's commit deployed and the commit it deploys, and a kept compose file's hashes", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const deploy = execute("deploy_stack", "DeployStack", { stack: "web", services: ["worker"] })
        expect((yield* ask(deploy)).split("\n")[1]).toBe(
          'Deployed now: no commit recorded; this deploys "acme/web" at the head of "main" (its latest commit is not known: the stack\'s cache was not refreshed).',
        )
        yield* write("RefreshStackCache", { stack: "web" })
        const stack = yield* call("read", "GetStack", { stack: "web" })
        const info = (stack as { info: Record<string, string> }).info
        const latest = `"${info.latest_hash}" ("${info.latest_message}")`
        const lines = (yield* ask(deploy)).split("\n")
        expect(lines[1]).toBe(`Deployed now: no commit recorded; this deploys "acme/web" at ${latest}.`)
        expect(lines[2]).toBe('Only the services "worker".')
        yield* deployed("web")
        expect((yield* ask(deploy)).split("\n")[1]).toBe(
          `Deployed now: ${latest}; this deploys "acme/web" at ${latest}, the same commit.`,
        )

        yield* write("CreateStack", {
          name: "kept",
          config: { server_id: "prod-01", file_contents: "services:\n  a:\n    image: library/a:1\n" },
        })
        const kept = execute("deploy_stack", "DeployStack", { stack: "kept" })
        const first = (yield* ask(kept)).split("\n")[1] ?? ""
        expect(first).toMatch(/^The compose file now has the hash [0-9a-f]{12}; none was deployed\.$/)
        const hash = /hash ([0-9a-f]{12})/.exec(first)?.[1]
        yield* deployed("kept")
        expect((yield* ask(kept)).split("\n")[1]).toBe(
          `The compose file is the one deployed (hash ${hash}): nothing in it changes.`,
        )
        yield* write("UpdateStack", {
          id: "kept",
          config: { file_contents: "services:\n  a:\n    image: library/a:2\n" },
        })
        expect((yield* ask(kept)).split("\n")[1]).toMatch(
          new RegExp(`^The compose file changes: deployed with the hash ${hash}, now (?!${hash})[0-9a-f]{12}\\.$`),
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )
})
