/**
 * Drift at a glance: a stack whose deployed commit or files differ from its repository's says so,
 * with both commits and which files, the files' paths fenced as the repository's text.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as StackDrift from "../../src/Tools/Records/StackDrift.js"
import * as Mcp from "../support/Mcp.js"
import * as Sandboxes from "../support/Sandbox.js"

const file = (path: string, contents: string) => ({ path, contents })

describe("a stack's drift", () => {
  it("names both commits and the files that differ, and nothing where there is no drift", () => {
    const info = (deployed: unknown, remote: unknown, deployedHash = "a1", latestHash = "a1") => ({
      info: {
        deployed_hash: deployedHash,
        latest_hash: latestHash,
        deployed_contents: deployed,
        remote_contents: remote,
      },
    })
    const same = [file("compose.yaml", "x"), file(".env", "A=1")]
    expect(StackDrift.of(info(same, same))).toBeUndefined()
    expect(StackDrift.of(info(same, [file("compose.yaml", "y"), file(".env", "A=1"), file("new.yaml", "")]))).toEqual({
      deployed_commit: "a1",
      repository_commit: "a1",
      files: ["compose.yaml", "new.yaml"],
    })
    expect(StackDrift.of(info(same, same, "a1", "b2"))).toEqual({
      deployed_commit: "a1",
      repository_commit: "b2",
      files: [],
    })
    // A repository not read says nothing of the files.
    expect(StackDrift.of(info(same, undefined))).toBeUndefined()
  })

  it.scopedLive("shows in the stack's glance on the drift scenario, its files fenced; not on a calm day", () =>
    Effect.gen(function* () {
      for (const scenario of ["drift", "calm"] as const) {
        const sandbox = yield* Sandboxes.scoped({ scenario })
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
        const text = Mcp.text(
          yield* Effect.promise(() =>
            client.callTool({ name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } }),
          ),
        )
        if (scenario === "calm") expect(text).not.toContain('"drift"')
        else {
          expect(text).toMatch(
            /"drift":\{"deployed_commit":"a1c4e09","repository_commit":"5d27b8f","files":\["<u:[0-9a-f]+>compose\.yaml<\/u>"\]\}/,
          )
          expect(text.split("\n")[0]).toContain("untrusted text at drift.files")
        }
      }
    }),
  )
})
