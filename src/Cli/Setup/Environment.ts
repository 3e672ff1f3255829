/**
 * What setup learns before it writes anything: how this very executable is
 * started, and what the environment says (secrets only by name, never by value).
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Variables from "../Variables.js"

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export
// (node:fs's `promises` alone loads readline), which a start pays for.
const Fs = process.getBuiltinModule("node:fs")
const Path = process.getBuiltinModule("node:path")

/** How the client starts this very executable. */
export interface Invocation {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Started as `node <script>` rather than as an installed command. */
  readonly script: boolean
  /** For an installed command: node's path and the script's real path, which need no `node` on the PATH. */
  readonly viaNode?: readonly [string, string]
  /** The package as published: `npx -y svc-mcp`, which fetches it from the registry. */
  readonly npx?: boolean
}

/** The package's name on npm. */
const PACKAGE = "svc-mcp"

/** A registry's tarball of the package, as npm records where it came from. */
const REGISTRY_TARBALL = /^https?:\/\/[^/]+\/(?:.+\/)?svc-mcp\/-\/svc-mcp-[^/]+\.tgz$/

/**
 * Whether the script at this real path came from a registry, as `npx` and a project's `npm install`
 * put it: `<dir>/node_modules/svc-mcp/dist/svc-mcp.js`, where npm's record of that install
 * (`<dir>/node_modules/.package-lock.json`) names a registry's tarball of the package, or names none
 * (`omit-lockfile-registry-resolved` leaves it out for a registry's package, and only for one). A
 * clone, a link to one (`npm install -g .`) and a tarball's install are not; nor is a global install,
 * of which npm keeps no such record: its installed command is named by its path, and runs the version
 * installed.
 */
const fromRegistry = (real: string): boolean => {
  const packageDir = Path.dirname(Path.dirname(real))
  const modules = Path.dirname(packageDir)
  if (Path.basename(packageDir) !== PACKAGE || Path.basename(modules) !== "node_modules") return false
  try {
    const lock = JSON.parse(Fs.readFileSync(Path.join(modules, ".package-lock.json"), "utf8"))
    const entry = lock?.packages?.[`node_modules/${PACKAGE}`]
    if (typeof entry !== "object" || entry === null || entry.link === true) return false
    return entry.resolved === undefined
      ? typeof entry.version === "string" && typeof entry.integrity === "string"
      : typeof entry.resolved === "string" && REGISTRY_TARBALL.test(entry.resolved)
  } catch {
    return false
  }
}

/**
 * The package from a registry is given as `npx -y svc-mcp`, as users add MCP servers. An installed
 * command (`svc-mcp` on the PATH, a bin link) is given as its absolute path; a script run with node
 * as node's absolute path and the script's real path (a clone's), since clients start servers from
 * a directory of their own.
 */
export const invocation = (argv1: string, execPath: string): Invocation => {
  const path = Path.resolve(argv1)
  let real = path
  try {
    real = Fs.realpathSync(path)
  } catch {
    // The script runs, so it exists; a failure here leaves the resolved path, which also works.
  }
  if (fromRegistry(real)) return { command: "npx", args: ["-y", PACKAGE], script: false, npx: true }
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
  /**
   * The settings set here beyond the service's URL and credentials, carried into the
   * configuration as they are (a path made absolute; a secret only by its `_FILE`).
   */
  readonly policy: ReadonlyArray<readonly [string, string]>
  /** Credentials set as values in this environment, which setup leaves out. */
  readonly secretsSet: ReadonlyArray<string>
  /** Of `policy`, those that only a server over HTTP reads: a client that starts it over stdio leaves them out. */
  readonly httpOnly?: ReadonlyArray<string>
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

/** The service's URL and credentials: setup writes them by its own rule (Target.ts), not as set. */
const CREDENTIALS = new Set([
  "SVC_URL",
  "SVC_API_KEY",
  "SVC_API_SECRET",
  "SVC_INIT_ADMIN_USERNAME",
  "SVC_INIT_ADMIN_PASSWORD",
  "SVC_API_KEY_FILE",
  "SVC_API_SECRET_FILE",
  "SVC_INIT_ADMIN_USERNAME_FILE",
  "SVC_INIT_ADMIN_PASSWORD_FILE",
])

/** The settings whose value is a path, made absolute: the client starts the server from a directory of its own. */
const isPath = (name: string, value: string) =>
  name.endsWith("_FILE") ||
  name === "SVC_DEFINITIONS" ||
  name === "SVC_MCP_IDENTITIES" ||
  (name === "SVC_AUDIT_LOG" && value !== "-")

/** Every other setting set here, as it is carried; a secret set by its value is left out, and named. */
const readSettings = Effect.gen(function* () {
  const policy: Array<readonly [string, string]> = []
  const secretsSet: Array<string> = []
  const httpOnly: Array<string> = []
  for (const variable of Variables.ALL) {
    const value = yield* optional(variable.name)
    if (value === undefined) continue
    if (variable.secret === true) {
      secretsSet.push(variable.name)
      continue
    }
    if (CREDENTIALS.has(variable.name)) continue
    policy.push([variable.name, isPath(variable.name, value) ? Path.resolve(value.trim()) : value])
    if (variable.httpOnly === true) httpOnly.push(variable.name)
  }
  return { policy, secretsSet, httpOnly }
})

export const readEnvironment: Effect.Effect<Environment> = Effect.gen(function* () {
  const { policy, secretsSet, httpOnly } = yield* readSettings
  return {
    url: (yield* optional("SVC_URL"))?.trim(),
    apiKeyFile: yield* optionalPath("SVC_API_KEY_FILE"),
    apiSecretFile: yield* optionalPath("SVC_API_SECRET_FILE"),
    username: (yield* optional("SVC_INIT_ADMIN_USERNAME"))?.trim(),
    usernameFile: yield* optionalPath("SVC_INIT_ADMIN_USERNAME_FILE"),
    passwordFile: yield* optionalPath("SVC_INIT_ADMIN_PASSWORD_FILE"),
    policy,
    secretsSet,
    httpOnly,
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
