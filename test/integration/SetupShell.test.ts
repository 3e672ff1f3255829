/**
 * `svc-mcp setup <client>`'s commands, run by a real shell (a program beyond Node: this lane):
 * fake `claude`, `gemini` and `codex` executables report the arguments they received, which are
 * then parsed by the rules of each CLI's argument parser; and any word setup quotes reads back
 * unchanged. The clients configured by a file are in test/unit/Cli/Setup.test.ts.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as Setup from "../../src/Cli/Setup.js"
import { property } from "../support/Property.js"
import { runs } from "../support/Runs.js"
import { FILES, FILES_ENV, INSTALLED, options, SCRIPT } from "../support/SetupCases.js"

const bin = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-setup-"))
for (const name of ["claude", "gemini", "codex"]) {
  const file = Path.join(bin, name)
  // Its arguments, each ended by a NUL (which no argument can hold), by the shell alone: no Node to start.
  Fs.writeFileSync(file, `#!/bin/sh\n[ $# -eq 0 ] || printf '%s\\0' "$@"\n`)
  Fs.chmodSync(file, 0o755)
}
afterAll(() => Fs.rmSync(bin, { recursive: true, force: true }))

/** The arguments the program receives when a shell runs the printed command. */
const argvOf = (text: string, program: string): Array<string> => {
  const result = ChildProcess.spawnSync("sh", ["-c", text], {
    encoding: "utf8",
    env: { PATH: `${bin}${Path.delimiter}${process.env.PATH ?? ""}` },
  })
  expect(result.stderr).toBe("")
  expect(result.status).toBe(0)
  expect(text.startsWith(`${program} `)).toBe(true)
  return result.stdout.split("\0").slice(0, -1)
}

interface Added {
  readonly positionals: Array<string>
  readonly options: Record<string, Array<string>>
}

/**
 * A parser with the given options: `takes` one value each, `variadic` every
 * following value up to the next option or `--` (as commander's `<value...>`);
 * after `--` everything is positional.
 */
const parseWith =
  (spec: { readonly names: Record<string, string>; readonly variadic?: ReadonlyArray<string> }) =>
  (argv: ReadonlyArray<string>): Added => {
    const positionals: Array<string> = []
    const options: Record<string, Array<string>> = {}
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i] as string
      if (arg === "--") {
        positionals.push(...argv.slice(i + 1))
        break
      }
      const name = spec.names[arg]
      if (name === undefined) {
        if (arg.startsWith("-")) throw new Error(`unknown option ${arg}`)
        positionals.push(arg)
        continue
      }
      options[name] ??= []
      const values = options[name]
      if (spec.variadic?.includes(name)) {
        while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith("-")) values.push(argv[++i] as string)
      } else if (i + 1 < argv.length) {
        values.push(argv[++i] as string)
      }
      if (values.length === 0) throw new Error(`${arg} without a value`)
    }
    return { positionals, options }
  }

// `claude mcp add [options] <name> <commandOrUrl> [args...]`; -e and -H are variadic.
const claude = parseWith({
  names: {
    "-s": "scope",
    "--scope": "scope",
    "-t": "transport",
    "--transport": "transport",
    "-e": "env",
    "--env": "env",
    "-H": "header",
    "--header": "header",
  },
  variadic: ["env", "header"],
})

// `gemini mcp add [options] <name> <commandOrUrl> [args...]`; -e and -H take one value each.
const gemini = parseWith({
  names: {
    "-s": "scope",
    "--scope": "scope",
    "-t": "transport",
    "--transport": "transport",
    "--type": "transport",
    "-e": "env",
    "--env": "env",
    "-H": "header",
    "--header": "header",
  },
})

// `codex mcp add <NAME> [--env KEY=VALUE]... -- <COMMAND>...` or `--url URL [--bearer-token-env-var VAR]`.
const codex = parseWith({
  names: { "--env": "env", "--url": "url", "--bearer-token-env-var": "bearer" },
})

/** KEY=VALUE pairs as Claude Code and Codex read them (split at the first `=`). */
const pairs = (values: ReadonlyArray<string> = []) =>
  Object.fromEntries(
    values.map((value) => {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value)
      if (match === null) throw new Error(`not KEY=VALUE: ${value}`)
      return [match[1], match[2]]
    }),
  )

/** Gemini CLI keeps only the text between the first and a second `=`, so a value must hold none. */
const geminiPairs = (values: ReadonlyArray<string> = []) =>
  Object.fromEntries(
    values.map((value) => {
      const [key, kept, ...dropped] = value.split("=")
      expect(dropped).toEqual([])
      return [key, kept]
    }),
  )

describe("setup for Claude Code", () => {
  it("adds the installed command over stdio, for the user, with the environment it needs", () => {
    const { stdout } = Setup.make(options("claude-code"), INSTALLED, FILES)
    const argv = argvOf(stdout, "claude")
    expect(argv.slice(0, 2)).toEqual(["mcp", "add"])
    const { positionals, options: parsed } = claude(argv.slice(2))
    expect(positionals).toEqual(["svc", INSTALLED.command])
    expect(parsed.scope).toEqual(["user"])
    expect(parsed.transport).toBeUndefined()
    expect(pairs(parsed.env)).toEqual(FILES_ENV)
  })

  it("starts a script with node's absolute path, and the sandbox with the settings set but no credentials", () => {
    const { stdout } = Setup.make(options("claude-code", { sandbox: true }), SCRIPT, FILES)
    const { positionals, options: parsed } = claude(argvOf(stdout, "claude").slice(2))
    expect(positionals).toEqual(["svc-sandbox", SCRIPT.command, SCRIPT.args[0], "--sandbox"])
    expect(parsed.env).toEqual(["SVC_MODE=read-only"])
  })

  it("adds a running HTTP server with its bearer token header as a placeholder", () => {
    const url = "http://127.0.0.1:8765/mcp"
    const { stdout, notes } = Setup.make(options("claude-code", { http: url }), INSTALLED, FILES)
    const { positionals, options: parsed } = claude(argvOf(stdout, "claude").slice(2))
    expect(positionals).toEqual(["svc", url])
    expect(parsed.transport).toEqual(["http"])
    expect(parsed.header).toEqual(["Authorization: Bearer <token>"])
    expect(parsed.env).toBeUndefined()
    expect(notes.join("\n")).toMatch(/Replace <token>/)
  })
})

describe("setup for Gemini CLI", () => {
  it("adds the installed command over stdio, for the user, with the environment it needs", () => {
    const { stdout } = Setup.make(options("gemini"), INSTALLED, FILES)
    const argv = argvOf(stdout, "gemini")
    expect(argv.slice(0, 2)).toEqual(["mcp", "add"])
    const { positionals, options: parsed } = gemini(argv.slice(2))
    expect(positionals).toEqual(["svc", INSTALLED.command])
    expect(parsed.scope).toEqual(["user"])
    expect(geminiPairs(parsed.env)).toEqual(FILES_ENV)
  })

  it("passes a script and --sandbox as the command's arguments", () => {
    const { stdout } = Setup.make(options("gemini", { sandbox: true }), SCRIPT, FILES)
    const { positionals } = gemini(argvOf(stdout, "gemini").slice(2))
    expect(positionals).toEqual(["svc-sandbox", SCRIPT.command, SCRIPT.args[0], "--sandbox"])
  })

  it("adds a running HTTP server over the http transport with the header", () => {
    const url = "https://mcp.example.com/mcp"
    const { stdout } = Setup.make(options("gemini", { http: url }), INSTALLED, FILES)
    const { positionals, options: parsed } = gemini(argvOf(stdout, "gemini").slice(2))
    expect(positionals).toEqual(["svc", url])
    expect(parsed.transport).toEqual(["http"])
    const [header] = parsed.header ?? []
    const [key, ...value] = (header ?? "").split(":")
    expect([key?.trim(), value.join(":").trim()]).toEqual(["Authorization", "Bearer <token>"])
  })
})

describe("setup for Codex", () => {
  it("adds the installed command over stdio with the environment it needs", () => {
    const { stdout } = Setup.make(options("codex"), INSTALLED, FILES)
    const argv = argvOf(stdout, "codex")
    expect(argv.slice(0, 2)).toEqual(["mcp", "add"])
    const { positionals, options: parsed } = codex(argv.slice(2))
    expect(positionals).toEqual(["svc", INSTALLED.command])
    expect(pairs(parsed.env)).toEqual(FILES_ENV)
    expect(parsed.url).toBeUndefined()
  })

  it("adds a running HTTP server whose token Codex reads from SVC_MCP_TOKEN", () => {
    const url = "http://127.0.0.1:8765/mcp"
    const { stdout } = Setup.make(options("codex", { http: url }), INSTALLED, FILES)
    const { positionals, options: parsed } = codex(argvOf(stdout, "codex").slice(2))
    expect(positionals).toEqual(["svc"])
    expect(parsed).toEqual({ url: [url], bearer: ["SVC_MCP_TOKEN"] })
  })
})

describe("setup's shell quoting", () => {
  // Ordinary characters around one a shell treats specially, or around none.
  const plain = FastCheck.string({ unit: FastCheck.constantFrom(..."aZ09_-/.=:,@%+") })
  const special = FastCheck.constantFrom(..." '\"\\$`!*?[]{}()<>|&;#~^\n\t", "")
  const word = FastCheck.oneof(
    FastCheck.tuple(plain, special, plain).map((parts) => parts.join("")),
    FastCheck.string({ unit: "binary-ascii" }),
    FastCheck.string({ unit: "grapheme" }),
  ).filter((text) => !text.includes("\0"))

  // Many commands to one shell: a shell started per command would be most of this lane's waiting.
  property(
    "every word reads back unchanged in a POSIX shell",
    {
      commands: FastCheck.array(FastCheck.array(word, { minLength: 1, maxLength: 20 }), {
        minLength: 1,
        maxLength: 20,
      }),
    },
    ({ commands }) => {
      const script = commands.map((words) => `printf '%s\\0' ${words.map(Setup.quote).join(" ")}`).join("\n")
      const result = ChildProcess.spawnSync("sh", ["-c", script], { encoding: "utf8" })
      expect(result.stdout.split("\0").slice(0, -1)).toEqual(commands.flat())
    },
    { fastCheck: { numRuns: runs(6) } },
  )
})

describe("setup from the npm registry, through a shell", () => {
  it("prints npx -y svc-mcp for Claude Code", () => {
    const npx = { command: "npx", args: ["-y", "svc-mcp"], script: false, npx: true }
    const { positionals } = claude(argvOf(Setup.make(options("claude-code"), npx, FILES).stdout, "claude").slice(2))
    expect(positionals).toEqual(["svc", "npx", "-y", "svc-mcp"])
  })
})
