/**
 * Drift at a glance: a stack whose deployed commit or files differ from its repository's says so,
 * with both commits and which files, the files' paths fenced as the repository's text.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as StackDrift from "../../../src/Tools/Records/StackDrift.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

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
    const see = { see_diff: 'fields: ["drift.diff"]' }
    expect(StackDrift.of(info(same, [file("compose.yaml", "y"), file(".env", "A=1"), file("new.yaml", "")]))).toEqual({
      deployed_commit: "a1",
      repository_commit: "a1",
      files: ["compose.yaml", "new.yaml"],
      ...see,
    })
    expect(StackDrift.of(info(same, same, "a1", "b2"))).toEqual({
      deployed_commit: "a1",
      repository_commit: "b2",
      files: [],
      ...see,
    })
    // A repository not read says nothing of the files.
    expect(StackDrift.of(info(same, undefined))).toBeUndefined()
  })

  it.effect(
    "fields under drift: a unified diff of each file, deployed (-) against repository (+), bounded and masked",
    () =>
      Effect.gen(function* () {
        const record = (deployed: unknown, remote: unknown) => ({
          name: "web",
          info: { deployed_hash: "a1", latest_hash: "a1", deployed_contents: deployed, remote_contents: remote },
        })
        const small = (yield* StackDrift.withDiff(
          record([file("compose.yaml", "a\nb\nc\n")], [file("compose.yaml", "a\nB\nc\n")]),
        )) as { drift: Record<string, unknown> }
        expect(small.drift.diff).toEqual([
          "--- deployed/compose.yaml",
          "+++ repository/compose.yaml",
          "@@ -1,3 +1,3 @@",
          " a",
          "-b",
          "+B",
          " c",
        ])
        expect(small.drift).not.toHaveProperty("diff_not_shown")
        // 100 lines changed, one hunk: 60 lines shown, the heads counted; the changes left out counted.
        const many = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix}${i}`).join("\n")
        const big = (yield* StackDrift.withDiff(
          record([file("a.yaml", many("x")), file("b.yaml", "k")], [file("a.yaml", many("y")), file("b.yaml", "l")]),
        )) as { drift: { diff: ReadonlyArray<string>; diff_not_shown: unknown } }
        expect(big.drift.diff).toHaveLength(60)
        expect(big.drift.diff.slice(0, 3)).toEqual([
          "--- deployed/a.yaml",
          "+++ repository/a.yaml",
          "@@ -1,100 +1,100 @@",
        ])
        // 57 lines of a.yaml's 200 changes are shown; b.yaml has no room left.
        expect(big.drift.diff_not_shown).toEqual({ changed_lines: 143, in_hunks: 1, files: 1 })
        // A credential in a file is masked; a stack with no drift answers as it came.
        const secret = (yield* StackDrift.withDiff(
          record([file(".env", "A=1")], [file(".env", "TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345")]),
        )) as { drift: { diff: ReadonlyArray<string> } }
        expect(secret.drift.diff.join("\n")).not.toContain("ghp_0123456789")
        const calm = record([file("x", "1")], [file("x", "1")])
        expect(yield* StackDrift.withDiff(calm)).toBe(calm)
      }),
  )

  it.scopedLive('fields: ["drift.diff"] on the drift scenario: the diff, each line fenced', () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ scenario: "drift" })
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const text = Mcp.text(
        yield* Effect.promise(() =>
          client.callTool({
            name: "svc_get",
            arguments: { resource_type: "stack", params: { stack: "web" }, fields: ["drift.diff"] },
          }),
        ),
      )
      const [first, json] = text.split("\n")
      expect(first).toContain("untrusted text at drift.diff")
      const token = /<u:([0-9a-f]+)>/.exec(json ?? "")?.[1]
      const lines = (JSON.parse(json ?? "") as { drift: { diff: ReadonlyArray<string> } }).drift.diff
      // Every line fenced; without the fences, the deployed file's change against the repository's.
      for (const line of lines) expect(line).toMatch(new RegExp(`^<u:${token}>.*</u>$`))
      const bare = lines.map((line) => line.slice(`<u:${token}>`.length, -"</u>".length))
      expect(bare).toContain("--- deployed/compose.yaml")
      expect(bare).toContain("-      WORKER_CONCURRENCY: 4")
      expect(bare).toContain("+      WORKER_CONCURRENCY: 8")
    }),
  )

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
            /"drift":\{"deployed_commit":"a1c4e09","repository_commit":"5d27b8f","files":\["<u:[0-9a-f]+>compose\.yaml<\/u>"\],"see_diff":"fields: \[\\"drift\.diff\\"\]"\}/,
          )
          expect(text.split("\n")[0]).toContain("untrusted text at drift.files")
        }
      }
    }),
  )
})
