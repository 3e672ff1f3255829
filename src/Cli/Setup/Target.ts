/**
 * What the client is to start or reach: this executable over stdio with the
 * environment it needs (the service's URL, the credentials' files, placeholders
 * or VS Code inputs, the policy), or a server already running over HTTP.
 */
import type { Environment, Invocation } from "./Environment.js"
import { PLACEHOLDER } from "./Environment.js"
import type { Client, Options } from "./Options.js"

/** A VS Code input: asked for once, kept by VS Code, referred to as `${input:id}`. */
export const inputRef = (id: string) => `\${input:${id}}`

interface Input {
  readonly id: string
  readonly description: string
  readonly password: boolean
}

export interface Stdio {
  readonly _tag: "Stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: ReadonlyArray<readonly [string, string]>
  readonly inputs: ReadonlyArray<Input>
}

export interface Http {
  readonly _tag: "Http"
  readonly url: string
  /** The server signs its users in (Cli/Setup/SignInSetup.ts): the client needs the URL alone. */
  readonly signIn?: boolean
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
  vars.push(...carried(env, notes))
  return { vars, inputs }
}

/**
 * The settings set here that a server started over stdio reads, carried as they are; those only a
 * server over HTTP reads are left out, and named.
 */
const carried = (env: Environment, notes: Array<string>): ReadonlyArray<readonly [string, string]> => {
  const httpOnly = new Set(env.httpOnly ?? [])
  const left = env.policy.filter(([name]) => httpOnly.has(name)).map(([name]) => name)
  if (left.length > 0) {
    notes.push(
      `Left out: ${left.join(", ")}, which only a server serving over HTTP reads; this client starts svc-mcp over stdio.`,
    )
  }
  return env.policy.filter(([name]) => !httpOnly.has(name))
}

export const server = (
  options: Options,
  invocation: Invocation,
  env: Environment,
  notes: Array<string>,
): Stdio | Http => {
  if (options.http !== undefined) {
    const set = [...env.policy.map(([name]) => name), ...env.secretsSet]
    if (set.length > 0) {
      notes.push(
        `Left out: ${set.join(", ")}, set in this shell: they are the server's settings, read where the server at ${options.http} runs; the client needs its URL alone.`,
      )
    }
    return { _tag: "Http", url: options.http }
  }
  const args = [...invocation.args, ...(options.sandbox ? ["--sandbox"] : [])]
  if (options.sandbox) {
    notes.push("It runs the in-memory sandbox: no service, no credentials, nothing real touched.")
    return { _tag: "Stdio", command: invocation.command, args, env: carried(env, notes), inputs: [] }
  }
  const { vars, inputs } = serverEnv(options.client, env, notes)
  return { _tag: "Stdio", command: invocation.command, args, env: vars, inputs }
}
