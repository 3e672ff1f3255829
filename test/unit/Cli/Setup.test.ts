/**
 * `svc-mcp setup <client>`: each client's file read back the way that client reads it (JSON
 * parsed and its shape checked), the notes, the command line, and the command named by where it
 * came from. The commands, read back through a real shell, are in
 * test/integration/SetupShell.test.ts; the built command's own setup runs in CommandLine.e2e.test.ts.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Setup from "../../../src/Cli/Setup.js"
import { VERSION } from "../../../src/Shared/Version.js"
import { FILES, FILES_ENV, INSTALLED, options, SCRIPT } from "../../support/SetupCases.js"

/** What setup's command line refuses `argv` for; "accepted" when it does not. */
const refusalOf = (argv: ReadonlyArray<string>): string =>
  Either.match(Setup.parse(argv), { onLeft: (wrong) => wrong, onRight: () => "accepted" })

describe("setup for Gemini CLI", () => {
  it("says which values Gemini CLI would cut at an =", () => {
    const env = { ...FILES, url: "https://svc.example.com/?tenant=a" }
    const { notes } = Setup.make(options("gemini"), INSTALLED, env)
    expect(notes.join("\n")).toMatch(/keeps an -e value only up to an "=" in it: .* set SVC_URL in/)
    expect(Setup.make(options("gemini"), INSTALLED, FILES).notes.join("\n")).not.toMatch(/keeps an -e value/)
  })
})

// --- the clients configured by a file ---------------------------------------------------------

type Json = Record<string, unknown>

/** How VS Code's configuration refers to an input. */
const ref = (id: string) => `\${input:${id}}`

const stdioEntry = (entry: Json, invocation: Setup.Invocation, env: Record<string, string> | undefined) => {
  expect(entry.command).toBe(invocation.command)
  expect(Path.isAbsolute(entry.command as string)).toBe(true)
  expect(entry.args).toEqual(invocation.args)
  expect(entry.env).toEqual(env)
}

describe("setup for Claude Desktop", () => {
  it("prints mcpServers with the command, its arguments and environment", () => {
    const config = JSON.parse(Setup.make(options("claude-desktop"), INSTALLED, FILES).stdout)
    expect(Object.keys(config)).toEqual(["mcpServers"])
    expect(Object.keys(config.mcpServers)).toEqual(["svc"])
    stdioEntry(config.mcpServers.svc, INSTALLED, FILES_ENV)
  })

  it("says where the file is, and how to start the command without node on the app's PATH", () => {
    const viaNode = { ...INSTALLED, viaNode: ["/opt/node/bin/node", "/opt/node/lib/svc-mcp/dist/svc-mcp.js"] as const }
    const { notes } = Setup.make(options("claude-desktop"), viaNode, FILES)
    expect(notes[0]).toContain("~/Library/Application Support/Claude/claude_desktop_config.json")
    expect(notes[0]).toContain("%APPDATA%\\Claude\\claude_desktop_config.json")
    expect(notes.join("\n")).toContain(
      '"command": "/opt/node/bin/node" and put "/opt/node/lib/svc-mcp/dist/svc-mcp.js" first in "args"',
    )
  })

  it("points to the bundle, which needs nothing pasted", () => {
    const { notes } = Setup.make(options("claude-desktop"), INSTALLED, FILES)
    expect(notes.join("\n")).toMatch(/npm run bundle:mcpb.*dist\/svc-mcp\.mcpb/)
  })

  it("is refused --http: its configuration file starts stdio servers only", () => {
    expect(refusalOf(["claude-desktop", "--http", "http://127.0.0.1:1/mcp"])).toMatch(/stdio only/)
  })
})

describe("setup for VS Code", () => {
  it("prints servers with type stdio; without credential files, asks for the key and secret as password inputs", () => {
    const config = JSON.parse(Setup.make(options("vscode"), SCRIPT, Setup.emptyEnvironment).stdout)
    const entry = config.servers.svc
    expect(entry.type).toBe("stdio")
    expect(entry.command).toBe(SCRIPT.command)
    expect(entry.args).toEqual(SCRIPT.args)
    expect(entry.env).toEqual({
      SVC_URL: Setup.PLACEHOLDER.url,
      SVC_API_KEY: ref("svc-api-key"),
      SVC_API_SECRET: ref("svc-api-secret"),
    })
    // Every input referred to is declared, as a password prompt.
    const declared = new Map(config.inputs.map((input: Json) => [input.id, input]))
    for (const value of Object.values(entry.env) as Array<string>) {
      for (const [, id] of value.matchAll(/\$\{input:([^}]+)\}/g)) {
        expect(declared.get(id)).toMatchObject({ type: "promptString", password: true })
      }
    }
    expect(declared.size).toBe(2)
  })

  it("uses credential files when they are set, and then declares no input", () => {
    const config = JSON.parse(Setup.make(options("vscode"), INSTALLED, FILES).stdout)
    expect(config.inputs).toBeUndefined()
    expect(config.servers.svc.env).toEqual(FILES_ENV)
  })

  it("prints an http server whose Authorization header comes from a password input", () => {
    const url = "http://127.0.0.1:8765/mcp"
    const config = JSON.parse(Setup.make(options("vscode", { http: url }), INSTALLED, FILES).stdout)
    expect(config.servers.svc).toEqual({
      type: "http",
      url,
      headers: { Authorization: `Bearer ${ref("svc-mcp-token")}` },
    })
    expect(config.inputs).toEqual([
      { type: "promptString", id: "svc-mcp-token", description: expect.any(String), password: true },
    ])
  })
})

describe("setup for Cursor", () => {
  it("prints mcpServers with the command, its arguments and environment", () => {
    const config = JSON.parse(Setup.make(options("cursor"), INSTALLED, FILES).stdout)
    stdioEntry(config.mcpServers.svc, INSTALLED, FILES_ENV)
  })

  it("prints a remote server as url and headers", () => {
    const url = "https://mcp.example.com/mcp"
    const config = JSON.parse(Setup.make(options("cursor", { http: url }), INSTALLED, FILES).stdout)
    expect(config).toEqual({
      mcpServers: { svc: { url, headers: { Authorization: "Bearer <token>" } } },
    })
  })
})

// --- what every client gets ---------------------------------------------------------------

describe("setup, whatever the client", () => {
  const environment = (values: Record<string, string>) =>
    Setup.readEnvironment.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(values)))))

  it.effect("never copies a secret's value from the environment, and says it left it out", () =>
    Effect.gen(function* () {
      const env = yield* environment({
        SVC_URL: "https://svc.example.org",
        SVC_API_KEY: "key-value-4f1e",
        SVC_API_SECRET: "secret-value-9b2c",
        SVC_INIT_ADMIN_PASSWORD: "password-value-77aa",
      })
      for (const client of Setup.CLIENTS) {
        const { stdout, notes } = Setup.make(options(client), INSTALLED, env)
        const all = `${stdout}\n${notes.join("\n")}`
        for (const secret of ["key-value-4f1e", "secret-value-9b2c", "password-value-77aa"]) {
          expect(all).not.toContain(secret)
        }
        expect(stdout).toContain("https://svc.example.org")
        expect(notes.join("\n")).toContain("SVC_API_SECRET is set in this shell; its value is not copied")
      }
    }),
  )

  it.effect("carries every setting set into the configuration, or names on stderr what it left out and why", () =>
    Effect.gen(function* () {
      const env = yield* environment({
        SVC_URL: "https://svc.example.org",
        SVC_API_KEY_FILE: "/run/secrets/key",
        SVC_API_SECRET_FILE: "/run/secrets/secret",
        SVC_CONFIRM: "destructive",
        SVC_GUARD: "ask-all",
        SVC_AUDIT_LOG: "logs/audit.log",
        SVC_REACH: "all",
        SVC_ACCESS_CHANGES: "deny",
        SVC_TIMEOUT_MS: "5000",
        SVC_AUDIT_KEY: "audit-key-value-0c1d",
        SVC_MCP_HTTP_PORT: "8080",
      })
      const carried = {
        SVC_CONFIRM: "destructive",
        SVC_GUARD: "ask-all",
        SVC_AUDIT_LOG: Path.resolve("logs/audit.log"),
        SVC_REACH: "all",
        SVC_ACCESS_CHANGES: "deny",
        SVC_TIMEOUT_MS: "5000",
      }
      const cursor = JSON.parse(Setup.make(options("cursor"), INSTALLED, env).stdout)
      expect(cursor.mcpServers.svc.env).toEqual({
        SVC_URL: "https://svc.example.org",
        SVC_API_KEY_FILE: "/run/secrets/key",
        SVC_API_SECRET_FILE: "/run/secrets/secret",
        ...carried,
      })
      for (const client of Setup.CLIENTS) {
        const { stdout, notes } = Setup.make(options(client), INSTALLED, env)
        for (const name of Object.keys(carried)) expect(stdout, client).toContain(name)
        expect(stdout, client).toContain("destructive")
        expect(stdout, client).not.toContain("audit-key-value-0c1d")
        expect(stdout, client).not.toContain("SVC_MCP_HTTP_PORT")
        const said = notes.join("\n")
        expect(said, client).toContain("SVC_AUDIT_KEY is set in this shell; its value is not copied")
        expect(said, client).toMatch(/Left out: SVC_MCP_HTTP_PORT, which only a server serving over HTTP reads/)
      }
      // The sandbox takes the same settings; a server reached by its URL takes none, and says so.
      const sandbox = JSON.parse(Setup.make(options("cursor", { sandbox: true }), INSTALLED, env).stdout)
      expect(sandbox.mcpServers["svc-sandbox"].env).toEqual(carried)
      const remote = Setup.make(options("cursor", { http: "https://mcp.example.com/mcp" }), INSTALLED, env)
      expect(remote.notes.join("\n")).toMatch(
        /Left out: .*SVC_CONFIRM, .*SVC_AUDIT_KEY, set in this shell: they are the server's settings/,
      )
    }),
  )

  it.effect("makes a relative _FILE path absolute, and uses the login's files without an API key", () =>
    Effect.gen(function* () {
      const env = yield* environment({
        SVC_INIT_ADMIN_USERNAME: "ops",
        SVC_INIT_ADMIN_PASSWORD_FILE: "secrets/password",
      })
      const config = JSON.parse(Setup.make(options("cursor"), INSTALLED, env).stdout)
      expect(config.mcpServers.svc.env).toEqual({
        SVC_URL: Setup.PLACEHOLDER.url,
        SVC_INIT_ADMIN_USERNAME: "ops",
        SVC_INIT_ADMIN_PASSWORD_FILE: Path.resolve("secrets/password"),
      })
    }),
  )

  it("names placeholders in the notes, for the URL and each credential file", () => {
    const { stdout, notes } = Setup.make(options("codex"), INSTALLED, Setup.emptyEnvironment)
    expect(stdout).toContain(Setup.PLACEHOLDER.apiSecretFile)
    expect(notes.join("\n")).toContain(`Replace ${Setup.PLACEHOLDER.url}`)
    expect(notes.join("\n")).toContain(`Replace ${Setup.PLACEHOLDER.apiKeyFile} and ${Setup.PLACEHOLDER.apiSecretFile}`)
  })

  it("names the installed command by its absolute path, and a script by node and its real path", () => {
    expect(Setup.invocation("/usr/local/bin/svc-mcp", "/usr/bin/node")).toEqual({
      command: "/usr/local/bin/svc-mcp",
      args: [],
      script: false,
      viaNode: ["/usr/bin/node", "/usr/local/bin/svc-mcp"],
    })
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-link-"))
    try {
      const script = Path.join(dir, "lib", "svc-mcp.js")
      Fs.mkdirSync(Path.dirname(script))
      Fs.writeFileSync(script, "")
      Fs.symlinkSync(script, Path.join(dir, "svc-mcp.js"))
      expect(Setup.invocation(Path.join(dir, "svc-mcp.js"), "/usr/bin/node")).toEqual({
        command: "/usr/bin/node",
        args: [Fs.realpathSync(script)],
        script: true,
      })
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("reads its command line: the client, --sandbox, --http with the server's /mcp path by default", () => {
    expect(Setup.parse(["cursor"])).toEqual(Either.right({ client: "cursor", sandbox: false, http: undefined }))
    expect(Setup.parse(["cursor", "--sandbox"])).toEqual(
      Either.right({ client: "cursor", sandbox: true, http: undefined }),
    )
    expect(Setup.parse(["vscode", "--http", "http://127.0.0.1:8765"])).toEqual(
      Either.right({ client: "vscode", sandbox: false, http: "http://127.0.0.1:8765/mcp" }),
    )
    expect(refusalOf([])).toMatch(/setup needs a client, one of claude-code, claude-desktop/)
    expect(refusalOf(["vscode", "--http"])).toMatch(/--http takes/)
    expect(refusalOf(["vscode", "--http", "ftp://x"])).toMatch(/--http takes/)
    expect(refusalOf(["vscode", "--sandbox", "--http", "http://127.0.0.1:1/mcp"])).toMatch(/do not go together/)
    expect(refusalOf(["vscode", "--port"])).toMatch(/unknown argument "--port"/)
  })
})

// --- where the running command came from ------------------------------------------------------

/**
 * A directory as npm leaves it after installing svc-mcp into `<dir>/node_modules` (as `npx` does in
 * its cache), its hidden lockfile recording where the package came from; and the bin link to it.
 */
const installedBy = (dir: string, resolved: string | undefined) => {
  const modules = Path.join(dir, "node_modules")
  const script = Path.join(modules, "svc-mcp", "dist", "svc-mcp.js")
  Fs.mkdirSync(Path.dirname(script), { recursive: true })
  Fs.mkdirSync(Path.join(modules, ".bin"))
  Fs.writeFileSync(script, "")
  Fs.symlinkSync("../svc-mcp/dist/svc-mcp.js", Path.join(modules, ".bin", "svc-mcp"))
  const entry = { version: "0.1.0", resolved, integrity: "sha512-AAAA" }
  const lock = { name: "npx", lockfileVersion: 3, packages: { "node_modules/svc-mcp": entry } }
  Fs.writeFileSync(Path.join(modules, ".package-lock.json"), JSON.stringify(lock))
  return { bin: Path.join(modules, ".bin", "svc-mcp"), script }
}

describe("setup names the command by where it came from", () => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-from-"))
  afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))

  it("from the npm registry (npx, a project's install): npx -y svc-mcp, through the bin link or the script", () => {
    const { bin, script } = installedBy(
      Path.join(dir, "_npx", "3f2a"),
      "https://registry.npmjs.org/svc-mcp/-/svc-mcp-0.1.0.tgz",
    )
    const npx = { command: "npx", args: ["-y", "svc-mcp"], script: false, npx: true }
    expect(Setup.invocation(bin, "/usr/bin/node")).toEqual(npx)
    expect(Setup.invocation(script, "/usr/bin/node")).toEqual(npx)
    // Another registry, a mirror under a path, is a registry as well.
    const mirror = installedBy(Path.join(dir, "mirror"), "https://npm.example.com/api/npm/svc-mcp/-/svc-mcp-0.1.0.tgz")
    expect(Setup.invocation(mirror.bin, "/usr/bin/node")).toEqual(npx)
    // npm leaves a registry's address out of its record with omit-lockfile-registry-resolved.
    const omitted = installedBy(Path.join(dir, "omitted"), undefined)
    expect(Setup.invocation(omitted.bin, "/usr/bin/node")).toEqual(npx)
  })

  it("from a tarball, a link or a clone: the path of what runs, never npx, which would fetch another", () => {
    const tarball = installedBy(Path.join(dir, "tarball"), "file:../svc-mcp-0.1.0.tgz")
    expect(Setup.invocation(tarball.bin, "/usr/bin/node")).toEqual({
      command: tarball.bin,
      args: [],
      script: false,
      viaNode: ["/usr/bin/node", Fs.realpathSync(tarball.script)],
    })
    // Another package's tarball on the registry is not this package's.
    const other = installedBy(
      Path.join(dir, "other"),
      "https://registry.npmjs.org/svc-mcp-fork/-/svc-mcp-fork-1.0.0.tgz",
    )
    expect(Setup.invocation(other.bin, "/usr/bin/node").npx).toBeUndefined()
    // A clone: its own dist/, node_modules beside it.
    const clone = Path.join(dir, "clone")
    Fs.mkdirSync(Path.join(clone, "dist"), { recursive: true })
    Fs.mkdirSync(Path.join(clone, "node_modules"))
    Fs.writeFileSync(Path.join(clone, "dist", "svc-mcp.js"), "")
    expect(Setup.invocation(Path.join(clone, "dist", "svc-mcp.js"), "/usr/bin/node")).toEqual({
      command: "/usr/bin/node",
      args: [Fs.realpathSync(Path.join(clone, "dist", "svc-mcp.js"))],
      script: true,
    })
    // A lockfile that cannot be read says nothing: the path.
    const broken = installedBy(Path.join(dir, "broken"), "x")
    Fs.writeFileSync(Path.join(dir, "broken", "node_modules", ".package-lock.json"), "{")
    expect(Setup.invocation(broken.bin, "/usr/bin/node").command).toBe(broken.bin)
  })

  it("prints npx -y svc-mcp for every client configured by a file, and says how to hold the version", () => {
    const npx = { command: "npx", args: ["-y", "svc-mcp"], script: false, npx: true }
    for (const client of ["claude-desktop", "cursor"] as const) {
      const entry = JSON.parse(Setup.make(options(client, { sandbox: true }), npx, FILES).stdout).mcpServers[
        "svc-sandbox"
      ]
      // The sandbox is given the settings set, as the service would be.
      expect(entry).toEqual({ command: "npx", args: ["-y", "svc-mcp", "--sandbox"], env: { SVC_MODE: "read-only" } })
    }
    const { notes } = Setup.make(options("cursor"), npx, FILES)
    expect(notes.join("\n")).toContain(`svc-mcp@${VERSION}`)
    expect(notes.join("\n")).not.toMatch(/npm install -g/)
  })
})
