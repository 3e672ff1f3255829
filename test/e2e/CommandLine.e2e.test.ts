/**
 * The commands besides the MCP server, run as the built executable: `--help`,
 * `check` and `setup` answer with their exit codes, on the streams they promise,
 * and the sandbox configuration that setup prints starts a server with the tools.
 * What each command says is tested in Help.test.ts, Check.test.ts and Setup.test.ts.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Help from "../../src/Cli/Help.js"
import * as Setup from "../../src/Cli/Setup.js"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"
import * as Sandboxes from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"

describe("svc-mcp --help, run", () => {
  it.live("prints the help on stderr, ending with one newline, and nothing on stdout", () =>
    Effect.gen(function* () {
      for (const [args, expected] of [
        [["--help"], Help.HELP],
        [["help", "setup"], Setup.HELP],
      ] as const) {
        const finished = yield* Spawn.run({}, args)
        expect(finished.code).toBe(0)
        expect(finished.stdout).toBe("")
        expect(finished.stderr).toBe(`${expected}\n`)
      }
    }),
  )

  it.live("refuses a help topic it does not know, with exit code 2", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.run({}, ["help", "nope"])
      expect(finished.code).toBe(2)
      expect(finished.stderr).toMatch(/usage: svc-mcp help \[setup \| people\]/)
    }),
  )
})

describe("svc-mcp check, run", () => {
  it.scopedLive("as a command: exit 0 when all is well, 1 otherwise, with the report on stderr", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const env = { SVC_URL: sandbox.url, SVC_API_KEY: sandbox.apiKey.key, SVC_API_SECRET: sandbox.apiKey.secret }
      const good = yield* Spawn.run(env, ["check"])
      expect(good).toMatchObject({ code: 0, stdout: "" })
      expect(good.stderr).toMatch(/All good\./)
      const bad = yield* Spawn.run({ ...env, SVC_API_SECRET: "nope-nope" }, ["check"])
      expect(bad.code).toBe(1)
      expect(bad.stderr).toMatch(/\[FAIL\] auth/)
      const unset = yield* Spawn.run({}, ["check"])
      expect(unset.code).toBe(2)
      expect(unset.stderr).toMatch(/SVC_URL is not set/)
    }),
  )
})

describe("svc-mcp setup, run", () => {
  it.live("refuses an unknown client with the list of clients, exit code 2 and nothing on stdout", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.run({}, ["setup", "emacs"])
      expect(finished.code).toBe(2)
      expect(finished.stdout).toBe("")
      expect(finished.stderr).toContain('unknown client "emacs"')
      for (const client of Setup.CLIENTS) expect(finished.stderr).toContain(client)
    }),
  )

  it.live("prints the configuration alone on stdout and the notes on stderr, with no secret", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.run(
        { SVC_URL: "https://svc.example.org", SVC_API_SECRET: "secret-value-1d9e", SVC_API_KEY_FILE: "key" },
        ["setup", "claude-desktop"],
      )
      expect(finished.code).toBe(0)
      const config = JSON.parse(finished.stdout)
      expect(config.mcpServers.svc.command).toBe(process.execPath)
      expect(config.mcpServers.svc.args).toEqual([Fs.realpathSync(Spawn.ENTRY)])
      expect(config.mcpServers.svc.env.SVC_API_KEY_FILE).toBe(Path.resolve("key"))
      expect(finished.stderr).toMatch(/^Claude Desktop: merge this into "mcpServers"/)
      expect(`${finished.stdout}${finished.stderr}`).not.toContain("secret-value-1d9e")
    }),
  )

  it.scopedLive("prints a sandbox configuration that starts a server with the tools", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.run({}, ["setup", "cursor", "--sandbox"])
      const entry = JSON.parse(finished.stdout).mcpServers["svc-sandbox"]
      expect(entry.env).toBeUndefined()
      const { client } = yield* Spawn.connect({}, [], [entry.command, ...entry.args])
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual(Definitions.all.map((tool) => tool.name))
    }),
  )
})
