/**
 * Each client's configuration, as that client reads it: a command for the
 * clients with an `mcp add` (Claude Code, Gemini CLI, Codex), JSON for those
 * configured by a file (Claude Desktop, VS Code, Cursor).
 */

import { PLACEHOLDER, TOKEN_VARIABLE } from "./Environment.js"
import type { Client } from "./Options.js"
import * as SignInSetup from "./SignInSetup.js"
import { type Http, inputRef, type Stdio } from "./Target.js"

export interface Rendered {
  /** Exactly what to run or paste. */
  readonly stdout: string
  /** Where it goes and what to replace, for stderr. */
  readonly notes: ReadonlyArray<string>
}

/** A word as a POSIX shell reads it back. */
export const quote = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`

/** One command, an option group per line. */
const commandLine = (groups: ReadonlyArray<ReadonlyArray<string>>): string =>
  `${groups
    .filter((group) => group.length > 0)
    .map((group) => group.map(quote).join(" "))
    .join(" \\\n  ")}\n`

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

const envObject = (env: ReadonlyArray<readonly [string, string]>) => Object.fromEntries(env)

const bearer = `Bearer ${PLACEHOLDER.token}`

const tokenNote = (what: string) =>
  `Replace ${what} with the server's SVC_MCP_TOKEN (leave the header out if it serves loopback without a token).`

type Renderer = (name: string, target: Stdio | Http, notes: Array<string>) => string

/** Each client's configuration, with where it goes first among the notes. */
const RENDERERS: Record<Client, Renderer> = {
  "claude-code": (name, target, notes) => {
    notes.unshift(
      "Claude Code: run this once; --scope user offers the server in all your projects " +
        "(--scope project writes it to the project's .mcp.json instead). `claude mcp get " +
        name +
        "` shows it.",
    )
    if (target._tag === "Http") {
      notes.push(tokenNote(PLACEHOLDER.token))
      return commandLine([
        ["claude", "mcp", "add", "--transport", "http", "--scope", "user", name, target.url],
        ["--header", `Authorization: ${bearer}`],
      ])
    }
    // The name comes before -e: Claude Code's -e takes every value up to the next option.
    return commandLine([
      ["claude", "mcp", "add", "--scope", "user", name],
      ...target.env.map(([key, value]) => ["-e", `${key}=${value}`]),
      ["--", target.command, ...target.args],
    ])
  },
  gemini: (name, target, notes) => {
    notes.unshift(
      "Gemini CLI: run this once; --scope user writes ~/.gemini/settings.json " +
        "(--scope project, the project's .gemini/settings.json). `gemini mcp list` shows it.",
    )
    if (target._tag === "Http") {
      notes.push(tokenNote(PLACEHOLDER.token))
      return commandLine([
        ["gemini", "mcp", "add", "--scope", "user", "--transport", "http"],
        ["-H", `Authorization: ${bearer}`],
        [name, target.url],
      ])
    }
    const cut = target.env.filter(([, value]) => value.includes("="))
    if (cut.length > 0) {
      notes.push(
        `Gemini CLI keeps an -e value only up to an "=" in it: after running this, set ` +
          `${cut.map(([key]) => key).join(", ")} in ~/.gemini/settings.json by hand.`,
      )
    }
    return commandLine([
      ["gemini", "mcp", "add", "--scope", "user"],
      ...target.env.map(([key, value]) => ["-e", `${key}=${value}`]),
      [name, target.command, ...(target.args.length > 0 ? ["--", ...target.args] : [])],
    ])
  },
  codex: (name, target, notes) => {
    notes.unshift("Codex: run this once; it writes ~/.codex/config.toml. `codex mcp get " + name + "` shows it.")
    if (target._tag === "Http") {
      notes.push(
        `Codex sends the token it reads from ${TOKEN_VARIABLE} when it starts: set ${TOKEN_VARIABLE} to the ` +
          "server's token in the environment Codex runs in (it stores the variable's name, not the token).",
      )
      return commandLine([["codex", "mcp", "add", name, "--url", target.url, "--bearer-token-env-var", TOKEN_VARIABLE]])
    }
    return commandLine([
      ["codex", "mcp", "add", name],
      ...target.env.map(([key, value]) => ["--env", `${key}=${value}`]),
      ["--", target.command, ...target.args],
    ])
  },
  "claude-desktop": (name, target, notes) => {
    notes.unshift(
      'Claude Desktop: merge this into "mcpServers" of claude_desktop_config.json ' +
        "(macOS: ~/Library/Application Support/Claude/claude_desktop_config.json; " +
        "Windows: %APPDATA%\\Claude\\claude_desktop_config.json; Settings > Developer > Edit Config opens it), " +
        "then restart Claude Desktop.",
    )
    notes.push(
      "Or install the bundle instead, with nothing to paste: svc-mcp.mcpb, attached to each release " +
        "(https://github.com/svc-mcp/svc-mcp/releases/latest), or `npm run bundle:mcpb` in a clone of svc-mcp, " +
        "which writes dist/svc-mcp.mcpb; open it with Claude Desktop (or drop it on Settings > Extensions), which asks for the " +
        "service's URL, API key and secret and keeps the two secrets in the system's keychain.",
    )
    // parse() refuses --http for Claude Desktop; a Stdio target is all that reaches here.
    const stdio = target as Stdio
    return json({
      mcpServers: {
        [name]: {
          command: stdio.command,
          args: stdio.args,
          ...(stdio.env.length > 0 ? { env: envObject(stdio.env) } : {}),
        },
      },
    })
  },
  vscode: (name, target, notes) => {
    notes.unshift(
      'VS Code: save this as .vscode/mcp.json in your workspace (or merge its "servers" and "inputs" ' +
        "into an existing one), then start the server from that file or the MCP: List Servers command.",
    )
    if (target._tag === "Http") {
      notes.push("VS Code asks for the server's SVC_MCP_TOKEN when it first connects, and keeps it.")
      return json({
        inputs: [{ type: "promptString", id: "svc-mcp-token", description: "svc-mcp server token", password: true }],
        servers: {
          [name]: {
            type: "http",
            url: target.url,
            headers: { Authorization: `Bearer ${inputRef("svc-mcp-token")}` },
          },
        },
      })
    }
    return json({
      ...(target.inputs.length > 0
        ? { inputs: target.inputs.map((input) => ({ type: "promptString", ...input })) }
        : {}),
      servers: {
        [name]: {
          type: "stdio",
          command: target.command,
          args: target.args,
          ...(target.env.length > 0 ? { env: envObject(target.env) } : {}),
        },
      },
    })
  },
  cursor: (name, target, notes) => {
    notes.unshift(
      'Cursor: merge this into "mcpServers" of ~/.cursor/mcp.json (all projects) ' +
        "or .cursor/mcp.json in a project.",
    )
    if (target._tag === "Http") {
      notes.push(
        tokenNote(PLACEHOLDER.token) +
          ` Bearer \${env:${TOKEN_VARIABLE}} instead reads it from the environment Cursor runs in.`,
      )
      return json({ mcpServers: { [name]: { url: target.url, headers: { Authorization: bearer } } } })
    }
    return json({
      mcpServers: {
        [name]: {
          command: target.command,
          args: target.args,
          ...(target.env.length > 0 ? { env: envObject(target.env) } : {}),
        },
      },
    })
  },
}

export const render = (client: Client, name: string, target: Stdio | Http, notes: Array<string>): string =>
  target._tag === "Http" && target.signIn === true
    ? SignInSetup.render(client, name, target.url, notes)
    : RENDERERS[client](name, target, notes)
