/**
 * Every environment variable the server reads, in the groups `--help` and the
 * configuration table (docs/configuration.md) show them. This is the one list to extend when a
 * setting is added: the help is rendered from it, server.json's variables are written from it
 * (`npm run variables`), and tests hold that table, server.json and the names read in src/ to it.
 */
import { DEFAULT_TIMEOUT_MS } from "../Config.js"
import { DEFAULT_HOST } from "../Settings/Http.js"
import { DEFAULT_SETTINGS, MODES } from "../Settings/ToolSettings.js"

export interface Variable {
  readonly name: string
  /** One line for `--help` (and the registry entry's description). */
  readonly meaning: string
  /** A credential: never echoed, asked for as a secret. */
  readonly secret?: boolean
  /** The server does not start without it. */
  readonly required?: boolean
  /** Meaningful only when serving over HTTP: a stdio client sets none of these. */
  readonly httpOnly?: boolean
  /** Its value is a file's path (as every X_FILE's is). */
  readonly path?: boolean
}

export interface Group {
  readonly title: string
  readonly variables: ReadonlyArray<Variable>
}

export const GROUPS: ReadonlyArray<Group> = [
  {
    title: "The service",
    variables: [
      { name: "SVC_URL", meaning: "required: the service's base URL, http(s)://...", required: true },
      {
        name: "SVC_TIMEOUT_MS",
        meaning: `time-out of each call to the service (default ${DEFAULT_TIMEOUT_MS})`,
      },
      {
        // Each name N then has its own SVC_<N>_URL, credentials, time-out and policy (docs/team.md, "Several services").
        name: "SVC_SERVICES",
        meaning: "several services (prod,staging), each with SVC_<N>_URL and the rest",
      },
    ],
  },
  {
    title: "Credentials",
    variables: [
      { name: "SVC_API_KEY", meaning: "the API key (preferred; with SVC_API_SECRET)", secret: true },
      { name: "SVC_API_SECRET", meaning: "the API key's secret", secret: true },
      {
        name: "SVC_INIT_ADMIN_USERNAME",
        meaning: "a local user's name, to log in when no API key is set",
      },
      { name: "SVC_INIT_ADMIN_PASSWORD", meaning: "that user's password", secret: true },
      { name: "SVC_API_KEY_FILE", meaning: "a file holding SVC_API_KEY (as container secrets are mounted)" },
      { name: "SVC_API_SECRET_FILE", meaning: "a file holding SVC_API_SECRET" },
      { name: "SVC_INIT_ADMIN_USERNAME_FILE", meaning: "a file holding SVC_INIT_ADMIN_USERNAME" },
      { name: "SVC_INIT_ADMIN_PASSWORD_FILE", meaning: "a file holding SVC_INIT_ADMIN_PASSWORD" },
    ],
  },
  {
    title: "Tools and policy",
    variables: [
      { name: "SVC_MODE", meaning: `${MODES.join(" | ")} (default ${DEFAULT_SETTINGS.mode})` },
      {
        name: "SVC_REACH",
        meaning: "interface (default) | all: every endpoint, users and keys too",
      },
      {
        name: "SVC_ACCESS_CHANGES",
        meaning: "deny | allow: user, group, right, key changes (unset: full only)",
      },
      { name: "SVC_ALLOW", meaning: "tool:selector patterns, * as wildcard, comma separated: only these" },
      { name: "SVC_DENY", meaning: "the same patterns: never these" },
      { name: "SVC_CONFIRM", meaning: "the same patterns: calls the user confirms before they are sent" },
      {
        name: "SVC_WAIT_TIMEOUT_MS",
        meaning: `how long svc_execute with wait follows an execution (default ${DEFAULT_SETTINGS.waitTimeoutMs})`,
      },
      {
        name: "SVC_MAX_OUTPUT_CHARS",
        meaning: `the longest text of a tool result (default ${DEFAULT_SETTINGS.maxOutputChars})`,
      },
      {
        name: "SVC_MAX_ANSWER_BYTES",
        meaning: "an answer's bytes read, then cut (default 40 output budgets)",
      },
      {
        name: "SVC_REVEAL_SECRETS",
        meaning: `true to show credentials in answers (default ${DEFAULT_SETTINGS.revealSecrets})`,
      },
      {
        name: "SVC_LOG_TIMESTAMPS",
        meaning: "true: svc_logs asks for each line's time unless told (default false)",
      },
      {
        name: "SVC_MCP_SECRET_PAGE_LIFETIME",
        meaning: "how long a secret's page stays open: 30s to 1h (default 10m)",
      },
      {
        name: "SVC_GUARD",
        meaning: "ask (default): asks held changes after untrusted text; ask-all; off",
      },
      {
        name: "SVC_GUARD_HOLD",
        meaning: "tool:selector patterns held too; -tool:selector lets one through",
      },
      {
        name: "SVC_GUARD_WINDOW",
        meaning: "how long it asks without a session: 90s, 10m, 1h (default 10m)",
      },
      {
        name: "SVC_CHECK_PARAMS",
        meaning: "off: params sent unchecked, for a newer service (default on)",
      },
      {
        // Among several services SVC_<N>_CHECK_PARAMS and SVC_<N>_DEFINITIONS, each defaulting to these.
        name: "SVC_DEFINITIONS",
        meaning: "definitions for the service's version (default: the shipped ones)",
        path: true,
      },
    ],
  },
  {
    title: "Serving over HTTP",
    variables: [
      {
        name: "SVC_MCP_HTTP_PORT",
        meaning: "serve over Streamable HTTP on this port (--http-port wins)",
        httpOnly: true,
      },
      { name: "SVC_MCP_HTTP_HOST", meaning: `the host to listen on (default ${DEFAULT_HOST})`, httpOnly: true },
      {
        name: "SVC_MCP_TOKEN",
        meaning: "the Bearer token clients must send (required off loopback)",
        secret: true,
        httpOnly: true,
      },
      { name: "SVC_MCP_TOKEN_FILE", meaning: "a file holding SVC_MCP_TOKEN", httpOnly: true },
      {
        name: "SVC_MCP_CREDENTIALS",
        meaning: "server (default) | per-request: each request brings its caller's key",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_MAX_CONNECTIONS",
        meaning: "connections open at once; more are closed at once (default 1024)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_REQUEST_TIMEOUT",
        meaning: "time for a request, its headers (10s at most) and body (default 30s)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_SESSION_LIFETIME",
        meaning: "how long a 2025-era client's session lasts (default 24h)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_QUESTION_TIMEOUT",
        meaning: "how long a question waits for its answer, up to 9m (default 5m)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_QUESTIONS_PER_SESSION",
        meaning: "questions a session may have open at once (default 4)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_QUESTIONS_PER_PRINCIPAL",
        meaning: "questions one key or identity may have open at once (default 32)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_QUESTIONS_MAX",
        meaning: "questions open on this replica in all (default 256)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_TRUSTED_PROXIES",
        meaning: "proxies (CIDRs) whose X-Forwarded-For names the caller",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_STATE_KEY",
        meaning: "the key (32+ bytes) sealing confirmations; replicas share it",
        secret: true,
        httpOnly: true,
      },
      { name: "SVC_MCP_STATE_KEY_FILE", meaning: "a file holding SVC_MCP_STATE_KEY", httpOnly: true },
      {
        // The shared store (src/Store/): what replicas must agree on; needs SVC_MCP_STATE_KEY.
        name: "SVC_MCP_STORE",
        meaning: "the redis://, rediss:// or redis+sentinel:// URL of the shared store",
        secret: true,
        httpOnly: true,
      },
      { name: "SVC_MCP_STORE_FILE", meaning: "a file holding SVC_MCP_STORE", httpOnly: true },
      { name: "SVC_MCP_STORE_PASSWORD", meaning: "the store's password", secret: true, httpOnly: true },
      { name: "SVC_MCP_STORE_PASSWORD_FILE", meaning: "a file holding SVC_MCP_STORE_PASSWORD", httpOnly: true },
      { name: "SVC_MCP_STORE_PREFIX", meaning: "the prefix of the store's keys (default svc-mcp:)", httpOnly: true },
      {
        name: "SVC_MCP_STORE_CLUSTER",
        meaning: "true: SVC_MCP_STORE names a node of a Redis Cluster (default false)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_STORE_CACHE",
        meaning: "off: read the store on each call, not a tracked copy (default on)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_STORE_SENTINEL_PASSWORD",
        meaning: "the password of the Sentinels a redis+sentinel:// URL names",
        secret: true,
        httpOnly: true,
      },
      {
        name: "SVC_MCP_STORE_SENTINEL_PASSWORD_FILE",
        meaning: "a file holding SVC_MCP_STORE_SENTINEL_PASSWORD",
        httpOnly: true,
      },
    ],
  },
  {
    title: "Sign-in (OAuth)",
    variables: [
      {
        name: "SVC_MCP_OAUTH_ISSUER",
        meaning: "the identity provider's issuer URL(s), comma separated: sign-in on",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_PUBLIC_URL",
        meaning: "the server's public base URL (the resource is its /mcp)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_OAUTH_AUDIENCE",
        meaning: "what a token's aud must contain (default <public>/mcp)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_OAUTH_SCOPE_PREFIX",
        meaning: "put before svc.read, svc.operate, svc.write (e.g. api://svc-mcp/)",
        httpOnly: true,
      },
      { name: "SVC_MCP_IDENTITIES", meaning: "a JSON file: each identity's service credentials", httpOnly: true },
      {
        name: "SVC_MCP_OAUTH_PAGE_CLIENT_ID",
        meaning: "the client the secret pages sign people in as",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_OAUTH_PAGE_CLIENT_SECRET",
        meaning: "its secret (none for a public client)",
        secret: true,
        httpOnly: true,
      },
      {
        name: "SVC_MCP_OAUTH_PAGE_CLIENT_SECRET_FILE",
        meaning: "a file holding SVC_MCP_OAUTH_PAGE_CLIENT_SECRET",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_MINT_LIFETIME",
        meaning: "how long a key minted for a person lives (default 168h)",
        httpOnly: true,
      },
      {
        name: "SVC_MCP_MINT_NEW_PER_MINUTE",
        meaning: "new people minted for a minute, per process (default 30)",
        httpOnly: true,
      },
    ],
  },
  {
    title: "Operations",
    variables: [
      {
        name: "SVC_AUDIT_LOG",
        meaning: "a file to append one JSON line per audited call to, or - for stderr",
        path: true,
      },
      {
        name: "SVC_AUDIT_KEY",
        meaning: "the key (32+ bytes) the audit log's checkpoints are signed with",
        secret: true,
      },
      { name: "SVC_AUDIT_KEY_FILE", meaning: "a file holding SVC_AUDIT_KEY" },
      {
        name: "SVC_AUDIT_MAX_BYTES",
        meaning: "move the audit file aside (FILE.<time>) at this many bytes",
      },
      {
        name: "OTEL_EXPORTER_OTLP_ENDPOINT",
        meaning: "export traces and metrics over OTLP/HTTP (OTEL_EXPORTER_OTLP_*)",
      },
      { name: "OTEL_SERVICE_NAME", meaning: "the service name on spans and metrics (default svc-mcp)" },
      { name: "OTEL_METRIC_EXPORT_INTERVAL", meaning: "milliseconds between metric exports (default 60000)" },
    ],
  },
]

export const ALL: ReadonlyArray<Variable> = GROUPS.flatMap((group) => group.variables)

/** A variable as the MCP Registry's entry (server.json) gives it to a client that starts the server. */
const registryEntry = (variable: Variable) => ({
  name: variable.name,
  description: variable.meaning,
  ...(variable.required === true ? { isRequired: true } : {}),
  ...(variable.secret === true ? { isSecret: true } : {}),
  ...(variable.path === true || variable.name.endsWith("_FILE") ? { format: "filepath" } : {}),
})

/** The variables a client that starts the server over stdio may set, as server.json's packages list them. */
export const registryEntries = () => ALL.filter((variable) => variable.httpOnly !== true).map(registryEntry)

/** The help's section: a title per group, then a name and its meaning per line. */
export const help = (): string => {
  // The names' column fits all but the longest (SVC_MCP_STORE_SENTINEL_PASSWORD_FILE), which push
  // their own line's meaning along: a wider column would take every meaning past 100 characters.
  const width = Math.min(Math.max(...ALL.map((variable) => variable.name.length)), NAME_COLUMN)
  return GROUPS.map(
    (group) =>
      `${group.title}:\n${group.variables.map((variable) => `  ${variable.name.padEnd(width)}  ${variable.meaning}`).join("\n")}`,
  ).join("\n\n")
}

const NAME_COLUMN = 28
