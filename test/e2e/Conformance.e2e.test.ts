/**
 * Our protocol handling, judged by tools we did not write: the MCP conformance
 * suite against the HTTP mode, and the MCP Inspector's CLI against stdio.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Node22 from "../support/Node22.js"
import * as Spawn from "../support/Spawn.js"
import * as Spec from "../support/Spec.js"

/** The built server in HTTP mode against its sandbox; the suite wants a localhost URL. */
const httpServer = Effect.map(Spawn.serveHttp({}, ["--sandbox"]), ({ url }) => ({
  url: url.replace("127.0.0.1", "localhost"),
}))

const scratch = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-conformance-"))

let node22 = ""
let inspector = ""

describe("conformance, by independent tools", () => {
  beforeAll(() => {
    node22 = Node22.node22()
    inspector = Node22.inspector()
  }, 600_000)

  const PASSING: Record<string, ReadonlyArray<string>> = {
    "2026-07-28": ["tools-list", "resources-list", "server-sse-multiple-streams", "dns-rebinding-protection"],
    "2025-11-25": [
      "server-initialize",
      "server-session-lifecycle",
      "ping",
      "tools-list",
      "resources-list",
      "logging-set-level",
      "server-sse-multiple-streams",
      "dns-rebinding-protection",
    ],
  }

  for (const [version, passing] of Object.entries(PASSING)) {
    it.scopedLive(
      `the MCP conformance suite for ${version} passes ${passing.join(", ")}; other failures are the baseline's`,
      () =>
        Effect.gen(function* () {
          const { url } = yield* httpServer
          const result = yield* Spawn.runCommand(
            node22,
            [
              Node22.conformance(),
              "server",
              "--url",
              url,
              "--spec-version",
              version,
              "--expected-failures",
              Node22.baseline(version),
            ],
            { cwd: scratch() },
          )
          const output = result.stdout + result.stderr
          for (const scenario of passing)
            expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`))
          expect(output).toMatch(/Baseline check passed/)
          expect(result.code).toBe(0)
        }),
      120_000,
    )
  }

  it.live(
    "the MCP Inspector CLI lists the tools with its --strict schema portability check, and calls them",
    () =>
      Effect.gen(function* () {
        const cwd = scratch()
        const env = { MCP_CATALOG_PATH: Path.join(cwd, "catalog.json") }
        // The Inspector's CLI, against the built server over stdio.
        const inspect = (...args: ReadonlyArray<string>) =>
          Spawn.runCommand(node22, [inspector, "--cli", ...args, "--", process.execPath, Spawn.ENTRY, "--sandbox"], {
            cwd,
            env,
          })
        const listed = yield* inspect("--strict", "--method", "tools/list")
        expect(listed.code).toBe(0)
        expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toEqual(Spec.tools)
        const call = (...toolArgs: ReadonlyArray<string>) =>
          inspect("--method", "tools/call", "--tool-name", "svc_get", "--tool-arg", ...toolArgs)
        const called = yield* call("resource_type=stack", 'params={"stack":"web"}')
        expect(called.code).toBe(0)
        const result = JSON.parse(called.stdout)
        // The stack at a glance: a first line saying so, then the fields.
        expect(result.content[0].text).toMatch(/^\[svc-mcp: stack web at a glance; /)
        expect(JSON.parse(result.content[0].text.split("\n")[1]).name).toBe("web")
        const failed = yield* call("resource_type=user")
        expect(JSON.parse(failed.stdout).isError).toBe(true)
      }),
    120_000,
  )
})
