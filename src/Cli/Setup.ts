/**
 * `svc-mcp setup <client>`: what to run, or paste into which file, so that an
 * MCP client starts this server (or reaches one running over HTTP).
 *
 * The command or file content goes to stdout, alone, so that it can be piped
 * to a shell or redirected into the file; this is not the server, so stdout
 * carries no protocol here. Where it goes and what to replace go to stderr.
 *
 * Secrets are never copied from the environment: credentials appear as the
 * `_FILE` paths the server reads them from, as placeholders, or (VS Code) as
 * inputs the client asks for once and keeps.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

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

/** `<client> [--sandbox | --http URL]`; a string is what is wrong. */
export const parse = (argv: ReadonlyArray<string>): Options | string => {
  const [client, ...rest] = argv
  if (client === undefined) return `setup needs a client, one of ${CLIENTS.join(", ")} (${USAGE})`
  if (!isClient(client)) {
    return `unknown client ${JSON.stringify(client)}: setup knows ${CLIENTS.join(", ")} (${USAGE})`
  }
  let sandbox = false
  let http: string | undefined
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]
    if (arg === "--sandbox" && !sandbox) {
      sandbox = true
    } else if (arg === "--http" && http === undefined) {
      const value = rest[++i]
      http = value === undefined ? undefined : endpoint(value)
      if (http === undefined) return "--http takes the server's http(s) URL, e.g. --http http://127.0.0.1:8765/mcp"
    } else {
      return `unknown argument ${JSON.stringify(arg)} (${USAGE})`
    }
  }
  if (sandbox && http !== undefined) {
    return "--sandbox and --http do not go together: for a sandbox over HTTP, start svc-mcp --sandbox --http-port N and give its URL to --http"
  }
  if (client === "claude-desktop" && http !== undefined) {
    return (
      "Claude Desktop starts the servers of its configuration file over stdio only, and its custom connectors " +
      "send no bearer token: use svc-mcp setup claude-desktop, without --http"
    )
  }
  return { client, sandbox, http }
}

/** How the client starts this very executable. */
export interface Invocation {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Started as `node <script>` rather than as an installed command. */
  readonly script: boolean
  /** For an installed command: node's path and the script's real path, which need no `node` on the PATH. */
  readonly viaNode?: readonly [string, string]
}

/**
 * An installed command (`svc-mcp` on the PATH, a bin link) is given as its
 * absolute path; a script run with node as node's absolute path and the
 * script's real path, since clients start servers from a directory of their own.
 */
export const invocation = (argv1: string, execPath: string): Invocation => {
  const path = Path.resolve(argv1)
  let real = path
  try {
    real = Fs.realpathSync(path)
  } catch {
    // The script runs, so it exists; a failure here leaves the resolved path, which also works.
  }
  if (!/\.[cm]?js$/.test(path)) return { command: path, args: [], script: false, viaNode: [execPath, real] }
  return { command: execPath, args: [real], script: true }
}

/** What the environment tells setup; secrets only by name, never by value. */
export interface Environment {
  readonly url: string | undefined
  readonly apiKeyFile: string | undefined
  readonly apiSecretFile: string | undefined
  readonly username: string | undefined
  readonly usernameFile: string | undefined
  readonly passwordFile: string | undefined
  /** Policy settings carried into the configuration as they are. */
  readonly policy: ReadonlyArray<readonly [string, string]>
  /** Credentials set as values in this environment, which setup leaves out. */
  readonly secretsSet: ReadonlyArray<string>
}

export const emptyEnvironment: Environment = {
  url: undefined,
  apiKeyFile: undefined,
  apiSecretFile: undefined,
  username: undefined,
  usernameFile: undefined,
  passwordFile: undefined,
  policy: [],
  secretsSet: [],
}

const optional = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map(Option.filter((value) => value.trim() !== "")),
    Config.map(Option.getOrUndefined),
    Effect.orDie,
  )

/** A `_FILE` path made absolute: the client starts the server from a directory of its own. */
const optionalPath = (name: string) =>
  optional(name).pipe(Effect.map((value) => (value === undefined ? undefined : Path.resolve(value.trim()))))

const POLICY = ["SVC_MODE", "SVC_ALLOW", "SVC_DENY"] as const
const SECRETS = ["SVC_API_KEY", "SVC_API_SECRET", "SVC_INIT_ADMIN_PASSWORD"] as const

export const readEnvironment: Effect.Effect<Environment> = Effect.gen(function* () {
  const policy: Array<readonly [string, string]> = []
  for (const name of POLICY) {
    const value = yield* optional(name)
    if (value !== undefined) policy.push([name, value])
  }
  const secretsSet: Array<string> = []
  for (const name of SECRETS) if ((yield* optional(name)) !== undefined) secretsSet.push(name)
  return {
    url: (yield* optional("SVC_URL"))?.trim(),
    apiKeyFile: yield* optionalPath("SVC_API_KEY_FILE"),
    apiSecretFile: yield* optionalPath("SVC_API_SECRET_FILE"),
    username: (yield* optional("SVC_INIT_ADMIN_USERNAME"))?.trim(),
    usernameFile: yield* optionalPath("SVC_INIT_ADMIN_USERNAME_FILE"),
    passwordFile: yield* optionalPath("SVC_INIT_ADMIN_PASSWORD_FILE"),
    policy,
    secretsSet,
  }
})

export const PLACEHOLDER = {
  url: "https://svc.example.com",
  apiKeyFile: "/path/to/svc-api-key",
  apiSecretFile: "/path/to/svc-api-secret",
  usernameFile: "/path/to/svc-username",
  passwordFile: "/path/to/svc-password",
  token: "<token>",
} as const

/** The variable Codex reads the bearer token from (it takes no literal header). */
export const TOKEN_VARIABLE = "SVC_MCP_TOKEN"

/** A VS Code input: asked for once, kept by VS Code, referred to as `${input:id}`. */
const inputRef = (id: string) => `\${input:${id}}`

interface Input {
  readonly id: string
  readonly description: string
  readonly password: boolean
}

interface Stdio {
  readonly _tag: "Stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: ReadonlyArray<readonly [string, string]>
  readonly inputs: ReadonlyArray<Input>
}

interface Http {
  readonly _tag: "Http"
  readonly url: string
}

export interface Rendered {
  /** Exactly what to run or paste. */
  readonly stdout: string
  /** Where it goes and what to replace, for stderr. */
  readonly notes: ReadonlyArray<string>
}

const usesInputs = (client: Client) => client === "vscode"

/** The server's environment: the service's URL, the credentials' files or placeholders, the policy. */
const serverEnv = (client: Client, env: Environment, notes: Array<string>) => {
  const vars: Array<readonly [string, string]> = []
  const inputs: Array<Input> = []
  const input = (id: string, description: string, password: boolean) => {
    inputs.push({ id, description, password })
    return inputRef(id)
  }
  if (env.url === undefined) {
    notes.push(`Replace ${PLACEHOLDER.url} with the service's URL (or set SVC_URL before running setup).`)
  } else if (!/^https?:\/\/[^/\s]/.test(env.url)) {
    notes.push(`SVC_URL ${JSON.stringify(env.url)} is not an http(s):// URL: the server will refuse it at start.`)
  }
  vars.push(["SVC_URL", env.url ?? PLACEHOLDER.url])
  const apiKey = env.apiKeyFile !== undefined || env.apiSecretFile !== undefined
  const login =
    !apiKey && (env.username !== undefined || env.usernameFile !== undefined || env.passwordFile !== undefined)
  if (login) {
    if (env.username !== undefined) vars.push(["SVC_INIT_ADMIN_USERNAME", env.username])
    else if (env.usernameFile !== undefined) vars.push(["SVC_INIT_ADMIN_USERNAME_FILE", env.usernameFile])
    else if (usesInputs(client))
      vars.push(["SVC_INIT_ADMIN_USERNAME", input("svc-username", "Service user name", false)])
    else vars.push(["SVC_INIT_ADMIN_USERNAME_FILE", PLACEHOLDER.usernameFile])
    if (env.passwordFile !== undefined) vars.push(["SVC_INIT_ADMIN_PASSWORD_FILE", env.passwordFile])
    else if (usesInputs(client)) vars.push(["SVC_INIT_ADMIN_PASSWORD", input("svc-password", "Service password", true)])
    else vars.push(["SVC_INIT_ADMIN_PASSWORD_FILE", PLACEHOLDER.passwordFile])
  } else if (apiKey || !usesInputs(client)) {
    vars.push(["SVC_API_KEY_FILE", env.apiKeyFile ?? PLACEHOLDER.apiKeyFile])
    vars.push(["SVC_API_SECRET_FILE", env.apiSecretFile ?? PLACEHOLDER.apiSecretFile])
  } else {
    vars.push(["SVC_API_KEY", input("svc-api-key", "Service API key", true)])
    vars.push(["SVC_API_SECRET", input("svc-api-secret", "Service API secret", true)])
  }
  const placeholders = vars.filter(([, value]) => value.startsWith("/path/to/")).map(([, value]) => value)
  if (placeholders.length > 0) {
    notes.push(
      `Replace ${placeholders.join(" and ")} with the absolute paths of files holding those values, ` +
        "readable only by you (chmod 600); or set the same _FILE variables before running setup. " +
        "The server reads them at start: no secret is written into the configuration.",
    )
  }
  if (inputs.length > 0) {
    notes.push("VS Code asks for the inputs' values when it first starts the server, and keeps them.")
  }
  for (const name of env.secretsSet) {
    notes.push(`${name} is set in this shell; its value is not copied: put it in a file and name it with ${name}_FILE.`)
  }
  vars.push(...env.policy)
  return { vars, inputs }
}

const server = (options: Options, invocation: Invocation, env: Environment, notes: Array<string>): Stdio | Http => {
  if (options.http !== undefined) return { _tag: "Http", url: options.http }
  const args = [...invocation.args, ...(options.sandbox ? ["--sandbox"] : [])]
  if (options.sandbox) {
    notes.push("It runs the in-memory sandbox: no service, no credentials, nothing real touched.")
    return { _tag: "Stdio", command: invocation.command, args, env: [], inputs: [] }
  }
  const { vars, inputs } = serverEnv(options.client, env, notes)
  return { _tag: "Stdio", command: invocation.command, args, env: vars, inputs }
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

const render = (client: Client, name: string, target: Stdio | Http, notes: Array<string>): string => {
  switch (client) {
    case "claude-code": {
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
    }
    case "gemini": {
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
    }
    case "codex": {
      notes.unshift("Codex: run this once; it writes ~/.codex/config.toml. `codex mcp get " + name + "` shows it.")
      if (target._tag === "Http") {
        notes.push(
          `Codex sends the token it reads from ${TOKEN_VARIABLE} when it starts: set ${TOKEN_VARIABLE} to the ` +
            "server's token in the environment Codex runs in (it stores the variable's name, not the token).",
        )
        return commandLine([
          ["codex", "mcp", "add", name, "--url", target.url, "--bearer-token-env-var", TOKEN_VARIABLE],
        ])
      }
      return commandLine([
        ["codex", "mcp", "add", name],
        ...target.env.map(([key, value]) => ["--env", `${key}=${value}`]),
        ["--", target.command, ...target.args],
      ])
    }
    case "claude-desktop": {
      notes.unshift(
        'Claude Desktop: merge this into "mcpServers" of claude_desktop_config.json ' +
          "(macOS: ~/Library/Application Support/Claude/claude_desktop_config.json; " +
          "Windows: %APPDATA%\\Claude\\claude_desktop_config.json; Settings > Developer > Edit Config opens it), " +
          "then restart Claude Desktop.",
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
    }
    case "vscode": {
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
    }
    case "cursor": {
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
    }
  }
}

/** The configuration for one client, and the notes that go with it. Pure: the tests call it directly. */
export const make = (options: Options, invocation: Invocation, env: Environment): Rendered => {
  const notes: Array<string> = []
  const target = server(options, invocation, env, notes)
  const name = options.sandbox ? "svc-sandbox" : "svc"
  const stdout = render(options.client, name, target, notes)
  const gui = options.client === "claude-desktop" || options.client === "vscode" || options.client === "cursor"
  if (target._tag === "Stdio" && gui && invocation.viaNode !== undefined) {
    const [node, script] = invocation.viaNode
    notes.push(
      `${invocation.command} runs with the node found on the PATH; if the client says node is not found ` +
        `(an app started outside your shell does not read its PATH), use "command": ${JSON.stringify(node)} ` +
        `and put ${JSON.stringify(script)} first in "args".`,
    )
  }
  if (target._tag === "Stdio" && invocation.script) {
    notes.push(
      `It starts ${invocation.args[0]} with this Node (${invocation.command}); ` +
        "once svc-mcp is installed (npm install -g), run svc-mcp setup again to name the installed command.",
    )
  }
  return { stdout, notes }
}

/** Prints the configuration on stdout and the notes on stderr. */
export const run = (options: Options) =>
  Effect.gen(function* () {
    const env = yield* readEnvironment
    const rendered = make(options, invocation(process.argv[1] ?? "svc-mcp", process.execPath), env)
    yield* Effect.sync(() => process.stdout.write(rendered.stdout))
    yield* Console.error(rendered.notes.join("\n"))
  })
