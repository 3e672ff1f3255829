/**
 * The README's tour, run: every command in its first 60 lines that needs no
 * real service runs here as the README shows it (the built server standing in
 * for `svc-mcp`), and each of the others says why it is not run in a test. A
 * command added to those lines without either fails here. The demo is played
 * whole and its landmarks checked: it is what a newcomer runs first. The
 * embedding example runs as docs/embedding.md tells its reader to run it.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

const ROOT = Path.resolve(Path.dirname(import.meta.dirname), "..")
const HEAD = Fs.readFileSync(Path.join(ROOT, "README.md"), "utf8").split("\n").slice(0, 60)

/** The commands of the `sh` blocks in the README's first 60 lines, comments off. */
const blockCommands = (): Array<string> => {
  const commands: Array<string> = []
  let inside = false
  for (const line of HEAD) {
    if (line.startsWith("```")) {
      inside = !inside && line.trim() === "```sh"
      continue
    }
    if (!inside) continue
    const command = line.replace(/\s+#.*$/, "").trim()
    if (command !== "") commands.push(command)
  }
  return commands
}

/** Commands shown inline in the prose, `svc-mcp ...`, as written. */
const inlineCommands = (): Array<string> =>
  HEAD.join("\n")
    .match(/`svc-mcp [^`]+`/g)
    ?.map((quoted) => quoted.slice(1, -1)) ?? []

/** What each command the README shows is, in the tests: run below, or why it is not run in a test. */
const COVERED: Readonly<Record<string, string>> = {
  "npx -y svc-mcp --version": "run in test/e2e/Package.e2e.test.ts, the packed package on a registry of its own",
  "npx -y svc-mcp setup claude-code":
    "run in test/e2e/Package.e2e.test.ts, the packed package on a registry of its own",
  "npm ci && npm run build": "what .ci/run and npm test do before these tests run",
  "npm install -g .": "run below, into a prefix of the test's own",
  "svc-mcp --version": "run below",
  "svc-mcp --sandbox": "run below",
  "npm run demo": "run below (the build it starts with is the one npm test made)",
  "npm ci && npm test": "the command CI runs, these tests among it",
  "npm run test:unit": "the unit lane of the same tests",
  "svc-mcp setup claude-code --sandbox": "run below",
  "svc-mcp sandbox [--port N]": "run below",
  "svc-mcp --sandbox --estate large": "run in test/e2e/Glance.e2e.test.ts, in both eras",
}

const run = (command: string, args: ReadonlyArray<string>, options: ChildProcess.SpawnSyncOptions = {}) => {
  const result = ChildProcess.spawnSync(command, args, { encoding: "utf8", timeout: 120_000, ...options })
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) }
}

describe("the README's first 60 lines", () => {
  it("every command shown is run here or says why not", () => {
    const shown = [...blockCommands(), ...inlineCommands()]
    expect(shown).toContain("npm run demo")
    expect(shown).toContain("svc-mcp --sandbox")
    expect(shown.filter((command) => COVERED[command] === undefined)).toEqual([])
  })

  it("npm install -g . gives a svc-mcp command that answers --version", () => {
    const prefix = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-readme-"))
    try {
      const installed = run("npm", ["install", "-g", ".", "--prefix", prefix, "--no-audit", "--no-fund"], {
        cwd: ROOT,
      })
      expect(installed.status, installed.stderr).toBe(0)
      const version = run(Path.join(prefix, "bin", "svc-mcp"), ["--version"])
      expect(version.status).toBe(0)
      // Only the MCP adapter writes to stdout: the command line speaks on stderr.
      expect(version.stderr.trim()).toBe(
        (JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8")) as { version: string }).version,
      )
    } finally {
      Fs.rmSync(prefix, { recursive: true, force: true })
    }
  })

  it.scopedLive("svc-mcp --sandbox serves the 13 tools over stdio", () =>
    Effect.gen(function* () {
      const { client } = yield* Spawn.connect({}, ["--sandbox"])
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools).toHaveLength(13)
    }),
  )

  it("svc-mcp setup claude-code --sandbox prints the line that adds it", () => {
    const setup = run(process.execPath, [Spawn.ENTRY, "setup", "claude-code", "--sandbox"])
    expect(setup.status).toBe(0)
    expect(setup.stdout).toMatch(/^claude mcp add --scope user svc-sandbox/)
    expect(setup.stdout).toContain("--sandbox")
  })

  it("svc-mcp sandbox --port 0 serves the sandbox and prints its URL and credentials", async () => {
    const child = ChildProcess.spawn(process.execPath, [Spawn.ENTRY, "sandbox", "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    })
    try {
      let out = ""
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8")
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
          if (found?.[1] !== undefined && out.includes("viewer-secret")) resolve(found[1])
        })
        child.on("exit", () => reject(new Error(`the sandbox exited: ${out}`)))
      })
      expect(out).toContain("SVC_API_KEY=sandbox-key SVC_API_SECRET=sandbox-secret")
      const answer = await fetch(`${url}/read/ListTags`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "sandbox-key", "x-api-secret": "sandbox-secret" },
        body: "{}",
      })
      expect(answer.status).toBe(200)
    } finally {
      child.kill("SIGTERM")
    }
  })

  it("npm run demo plays the tour to its end: the guard asks after the logs, and the user's accept is honoured", () => {
    // npm run demo builds first; npm test built already, so the built demo is run as npm run demo then runs it.
    const demo = run(process.execPath, [Path.join(ROOT, "scripts/demo.mjs")], { cwd: ROOT })
    expect(demo.stderr).toBe("")
    expect(demo.status).toBe(0)
    const landmarks = [
      /^Connected to svc-mcp \d+\.\d+\.\d+ in sandbox mode\.$/m,
      /^13 tools: svc_list, /m,
      /^< prod-01 \(Ok\), prod-02 \(Ok\), staging-01 \(Ok\)$/m,
      /^< web \(running\), monitoring \(running\), staging-web \(stopped\)$/m,
      /^< staging-web \(stopped\): acme\/staging-web@main, files compose\.yaml in the repo, on server staging-01$/m,
      /^< \/web-web-1: running, image library\/web:latest$/m,
      /^ {2}Complete, success: true$/m,
      /^< staging-web \(running\)$/m,
      /^web \| listening on 0\.0\.0\.0:8080$/m,
      /^< created tag demo$/m,
      /^ {2}\(the user is asked: svc_rename resource_type "tag" will call write\/RenameTag .*SVC_GUARD/m,
      /^< renamed to demo-renamed$/m,
      /^< deleted tag demo-renamed$/m,
      /^< write\/DeleteVariable takes \{name: string\}$/m,
      /^< error: svc_get resource_type "stack": read\/GetStack failed: the service answered 500/m,
      /^< error: staging: svc_delete "tag" is refused: the server runs in read-only mode/m,
      /^Done\. /m,
    ]
    for (const landmark of landmarks) expect(demo.stdout).toMatch(landmark)
  })
})

/** The commands of the README's safe first run, as written: its `export` line, then each command. */
const safeFirstRun = (): { readonly exported: ReadonlyArray<string>; readonly commands: ReadonlyArray<string> } => {
  const lines = Fs.readFileSync(Path.join(ROOT, "README.md"), "utf8").split("\n")
  const from = lines.indexOf("### A safe first run")
  const open = lines.indexOf("```sh", from)
  const close = lines.indexOf("```", open + 1)
  const block = lines.slice(open + 1, close).map((line) => line.replace(/\s+#.*$/, "").trim())
  const [exportLine = "", ...commands] = block
  return {
    exported: exportLine
      .replace(/^export /, "")
      .split(" ")
      .map((pair) => pair.slice(0, pair.indexOf("="))),
    commands,
  }
}

/** A README command line, `NAME=value ... svc-mcp args...`, run with the built server standing in for svc-mcp. */
const runAsWritten = (command: string, env: Record<string, string>) => {
  const words = command.split(/\s+/)
  const at = words.indexOf("svc-mcp")
  const set = Object.fromEntries(
    words.slice(0, at).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  )
  return run(process.execPath, [Spawn.ENTRY, ...words.slice(at + 1)], {
    env: { PATH: process.env.PATH ?? "", HOME: Os.tmpdir(), ...env, ...set },
  })
}

describe("the README's safe first run", () => {
  it("run as written against the sandbox: check warns of what runs unasked, SVC_CONFIRM=destructive asks it all, setup carries it", async () => {
    const { exported, commands } = safeFirstRun()
    expect(exported).toEqual(["SVC_URL", "SVC_API_KEY_FILE", "SVC_API_SECRET_FILE"])
    expect(commands).toEqual([
      "svc-mcp check",
      "SVC_CONFIRM=destructive svc-mcp check",
      "SVC_CONFIRM=destructive svc-mcp setup claude-code",
    ])
    const child = ChildProcess.spawn(process.execPath, [Spawn.ENTRY, "sandbox", "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    })
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-first-run-"))
    try {
      let out = ""
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8")
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
          if (found?.[1] !== undefined && out.includes("viewer-secret")) resolve(found[1])
        })
        child.on("exit", () => reject(new Error(`the sandbox exited: ${out}`)))
      })
      Fs.writeFileSync(Path.join(dir, "key"), "sandbox-key\n", { mode: 0o600 })
      Fs.writeFileSync(Path.join(dir, "secret"), "sandbox-secret\n", { mode: 0o600 })
      // The export line's values, for the sandbox's: its URL, and files holding its key.
      const env = {
        SVC_URL: url,
        SVC_API_KEY_FILE: Path.join(dir, "key"),
        SVC_API_SECRET_FILE: Path.join(dir, "secret"),
      }
      const [plain = "", confirmed = "", setup = ""] = commands
      const first = runAsWritten(plain, env)
      expect(first.status, first.stderr).toBe(0)
      expect(first.stderr).toMatch(/^ {2}\[ok {2}\] auth /m)
      expect(first.stderr).toMatch(/^ {2}\[warn\] losing {3}\d+ calls that remove or stop something are offered/m)
      for (const unasked of ["run_server_prune_images", "delete_volume", "stop_stack"])
        expect(first.stderr).toContain(unasked)
      const second = runAsWritten(confirmed, env)
      expect(second.status, second.stderr).toBe(0)
      expect(second.stderr).toMatch(
        /^ {2}\[ok {2}\] losing {3}every call offered that removes or stops something is asked first/m,
      )
      const printed = runAsWritten(setup, env)
      expect(printed.status, printed.stderr).toBe(0)
      expect(printed.stdout).toMatch(/^claude mcp add --scope user svc/)
      expect(printed.stdout).toContain("-e SVC_CONFIRM=destructive")
      expect(printed.stdout).toContain(`-e SVC_API_KEY_FILE=${Path.join(dir, "key")}`)
      expect(printed.stdout).not.toContain("sandbox-secret")
    } finally {
      child.kill("SIGTERM")
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("docs/embedding.md", () => {
  it("npx vite-node examples/embed.ts runs the example as a program (vite-node, which vitest brings)", () => {
    const example = run(
      process.execPath,
      [Path.join(ROOT, "node_modules/vite-node/vite-node.mjs"), "examples/embed.ts"],
      {
        cwd: ROOT,
        env: { ...process.env, VITEST: undefined },
      },
    )
    expect(example.status, example.stderr).toBe(0)
    expect(example.stdout).toMatch(/^served over MCP at http:\/\/127\.0\.0\.1:\d+\/mcp: svc_list, svc_get/)
    expect(example.stdout).toContain("stacks, by the tool program: web,")
  })
})
