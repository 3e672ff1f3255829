/**
 * Our protocol handling, judged by tools we did not write: the MCP conformance
 * suite against the HTTP mode, and the MCP Inspector's CLI against stdio.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Node22 from "./support/Node22.js"
import * as Spawn from "./support/Spawn.js"

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  Effect.async<Ran>((resume) => {
    const child = ChildProcess.spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? "", ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The built server in HTTP mode against its sandbox, until the scope ends. */
const httpServer = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ url: string; child: ChildProcess.ChildProcess }>((resolve, reject) => {
        const child = ChildProcess.spawn(process.execPath, [Spawn.ENTRY, "--sandbox", "--http-port", "0"], {
          env: { PATH: process.env.PATH ?? "" },
        })
        let stderr = ""
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString("utf8")
          const url = /over HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1]
          if (url !== undefined) resolve({ url: url.replace("127.0.0.1", "localhost"), child })
        })
        child.on("exit", () => reject(new Error(stderr)))
      }),
  ),
  ({ child }) => Effect.sync(() => child.kill()),
)

const scratch = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-conformance-"))

let node22 = ""
let inspector = ""

describe("conformance, by independent tools", () => {
  beforeAll(() => {
    node22 = Node22.node22()
    inspector = Node22.inspector()
  }, 600_000)

  it.scopedLive(
    "the MCP conformance suite passes server-initialize, ping, tools-list, logging-set-level and dns-rebinding-protection; other failures are the baseline's",
    () =>
      Effect.gen(function* () {
        const { url } = yield* httpServer
        const result = yield* run(
          node22,
          [Node22.conformance(), "server", "--url", url, "--expected-failures", Node22.BASELINE],
          scratch(),
        )
        const output = result.stdout + result.stderr
        for (const scenario of ["server-initialize", "ping", "tools-list", "logging-set-level"]) {
          expect(output).toMatch(new RegExp(`✓ ${scenario}: 1 passed, 0 failed`))
        }
        expect(output).toMatch(/✓ dns-rebinding-protection: 2 passed, 0 failed/)
        expect(output).toMatch(/Baseline check passed/)
        expect(result.code).toBe(0)
      }),
    120_000,
  )

  it.live(
    "the MCP Inspector CLI lists the tools with its --strict schema portability check, and calls them",
    () =>
      Effect.gen(function* () {
        const cwd = scratch()
        const env = { MCP_CATALOG_PATH: Path.join(cwd, "catalog.json") }
        const target = ["--", process.execPath, Spawn.ENTRY, "--sandbox"]
        const listed = yield* run(
          node22,
          [inspector, "--cli", "--strict", "--method", "tools/list", ...target],
          cwd,
          env,
        )
        expect(listed.code).toBe(0)
        expect(JSON.parse(listed.stdout).tools).toHaveLength(13)
        const called = yield* run(
          node22,
          [
            inspector,
            "--cli",
            "--method",
            "tools/call",
            "--tool-name",
            "svc_get",
            "--tool-arg",
            "resource_type=stack",
            'params={"stack":"web"}',
            ...target,
          ],
          cwd,
          env,
        )
        expect(called.code).toBe(0)
        const result = JSON.parse(called.stdout)
        expect(JSON.parse(result.content[0].text).name).toBe("web")
        const failed = yield* run(
          node22,
          [
            inspector,
            "--cli",
            "--method",
            "tools/call",
            "--tool-name",
            "svc_get",
            "--tool-arg",
            "resource_type=user",
            ...target,
          ],
          cwd,
          env,
        )
        expect(JSON.parse(failed.stdout).isError).toBe(true)
      }),
    120_000,
  )
})
