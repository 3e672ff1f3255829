/**
 * `svc-mcp setup`'s command line: which client, and whether it starts the
 * sandbox or reaches a server already running over HTTP.
 */
import * as Either from "effect/Either"
import * as Flags from "../Flags.js"

export const CLIENTS = ["claude-code", "claude-desktop", "vscode", "cursor", "gemini", "codex"] as const
export type Client = (typeof CLIENTS)[number]

export interface Options {
  readonly client: Client
  /** A configuration that runs the in-memory sandbox instead of reaching a service. */
  readonly sandbox: boolean
  /** The MCP endpoint of a server already running over HTTP, instead of starting one over stdio. */
  readonly http: string | undefined
}

export const USAGE = "usage: svc-mcp setup <client> [--sandbox | --http URL]"

const isClient = (value: string): value is Client => (CLIENTS as ReadonlyArray<string>).includes(value)

/** The endpoint URL; a bare origin gets the server's `/mcp` path. */
const endpoint = (value: string): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.pathname === "/") url.pathname = "/mcp"
  return url.href
}

/** `<client> [--sandbox | --http URL]`: the options, or on the left what is wrong. */
export const parse = (argv: ReadonlyArray<string>): Either.Either<Options, string> => {
  const [client, ...rest] = argv
  if (client === undefined) return Either.left(`setup needs a client, one of ${CLIENTS.join(", ")} (${USAGE})`)
  if (!isClient(client)) {
    return Either.left(`unknown client ${JSON.stringify(client)}: setup knows ${CLIENTS.join(", ")} (${USAGE})`)
  }
  const read = Flags.read(rest, { sandbox: "boolean", http: "string" }, false)
  if (Either.isLeft(read)) return Either.left(`unknown argument ${JSON.stringify(read.left)} (${USAGE})`)
  const { flags } = read.right
  const sandbox = flags.has("sandbox")
  const given = flags.get("http")
  const http = given === undefined ? undefined : endpoint(given)
  if (flags.has("http") && http === undefined) {
    return Either.left("--http takes the server's http(s) URL, e.g. --http http://127.0.0.1:8765/mcp")
  }
  if (sandbox && http !== undefined) {
    return Either.left(
      "--sandbox and --http do not go together: for a sandbox over HTTP, start svc-mcp --sandbox --http-port N and give its URL to --http",
    )
  }
  if (client === "claude-desktop" && http !== undefined) {
    return Either.left(
      "Claude Desktop starts the servers of its configuration file over stdio only, and its custom connectors " +
        "send no bearer token: use svc-mcp setup claude-desktop, without --http",
    )
  }
  return Either.right({ client, sandbox, http })
}

/** What each client is given, one line each. */
const GIVES: Record<Client, string> = {
  "claude-code": "a `claude mcp add` command to run",
  "claude-desktop": "the JSON for claude_desktop_config.json (or install the bundle, svc-mcp.mcpb)",
  vscode: "the JSON for .vscode/mcp.json, with inputs for the secrets",
  cursor: "the JSON for ~/.cursor/mcp.json or a project's .cursor/mcp.json",
  gemini: "a `gemini mcp add` command to run",
  codex: "a `codex mcp add` command to run",
}

/** `svc-mcp help setup`. */
export const HELP = `${USAGE}
Prints what to run, or paste and where, for a client to start this server (or reach one over HTTP).

Clients:
${CLIENTS.map((client) => `  ${client.padEnd(16)}${GIVES[client]}`).join("\n")}

Options:
  --sandbox       configure the in-memory sandbox: no service, no credentials
  --http URL      configure a server already running over HTTP (its /mcp URL; not claude-desktop)

The command or file content goes to stdout, alone; where it goes and what to replace, to stderr.
Secrets are never copied: credentials appear as the _FILE paths the server reads, or placeholders.`
