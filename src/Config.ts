/**
 * The server's configuration, read from the environment once at start.
 *
 * Every rule is checked here so that a misconfigured server stops before it
 * serves anything, with one line that names the variable and the fix.
 */
import * as Fs from "node:fs"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

export type Credentials =
  | {
      readonly _tag: "ApiKey"
      readonly key: Redacted.Redacted<string>
      readonly secret: Redacted.Redacted<string>
    }
  | {
      readonly _tag: "Login"
      readonly username: string
      readonly password: Redacted.Redacted<string>
    }
  /** SVC_MCP_CREDENTIALS=per-request without credentials of the server's own: each caller brings its own. */
  | { readonly _tag: "None" }

export interface SvcConfigShape {
  /** Base URL without a trailing slash, e.g. `https://svc.example.com`. */
  readonly url: string
  readonly credentials: Credentials
  readonly timeoutMs: number
}

export class SvcConfig extends Context.Tag("svc-mcp/SvcConfig")<SvcConfig, SvcConfigShape>() {}

export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly variable: string
  readonly problem: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.variable} ${this.problem}: ${this.hint}`
  }
}

export const DEFAULT_TIMEOUT_MS = 30_000

/** The environment as strings; an empty value counts as unset, as client config templates often leave `""`. */
const optional = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

const fail = (variable: string, problem: string, hint: string) =>
  Effect.fail(new ConfigError({ variable, problem, hint }))

/**
 * A value given either in `name` or, as container secrets are mounted, in the
 * file that `name_FILE` names (one trailing newline is dropped). Not both.
 */
const orFile = (name: string) =>
  Effect.gen(function* () {
    const direct = yield* Effect.orDie(optional(name))
    const file = yield* Effect.orDie(optional(`${name}_FILE`))
    if (Option.isNone(file)) return direct
    if (Option.isSome(direct)) {
      return yield* fail(`${name}_FILE`, `is set, and so is ${name}`, `set only one of ${name} and ${name}_FILE`)
    }
    const path = file.value.trim()
    const content = yield* Effect.try({
      try: () => Fs.readFileSync(path, "utf8").replace(/\r?\n$/, ""),
      catch: (error) =>
        new ConfigError({
          variable: `${name}_FILE`,
          problem: `names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
          hint: `check the path ${JSON.stringify(path)} and its permissions`,
        }),
    })
    if (content.trim() === "") {
      return yield* fail(
        `${name}_FILE`,
        `names an empty file (${JSON.stringify(path)})`,
        `put the value of ${name} in it`,
      )
    }
    return Option.some(content)
  })

const raw = Effect.all({
  url: Effect.orDie(optional("SVC_URL")),
  apiKey: orFile("SVC_API_KEY"),
  apiSecret: orFile("SVC_API_SECRET"),
  username: orFile("SVC_INIT_ADMIN_USERNAME"),
  password: orFile("SVC_INIT_ADMIN_PASSWORD"),
})

type Raw = Effect.Effect.Success<typeof raw>

const parseUrl = (value: Option.Option<string>) =>
  Effect.gen(function* () {
    if (Option.isNone(value)) {
      return yield* fail(
        "SVC_URL",
        "is not set",
        "set it to the service's base URL, e.g. SVC_URL=https://svc.example.com",
      )
    }
    const text = value.value.trim()
    let parsed: URL
    try {
      parsed = new URL(text)
    } catch {
      return yield* fail(
        "SVC_URL",
        `is not a URL (${JSON.stringify(text)})`,
        "give the full base URL with its scheme, e.g. https://svc.example.com",
      )
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return yield* fail(
        "SVC_URL",
        `has the scheme ${JSON.stringify(parsed.protocol)}`,
        "use an http:// or https:// URL",
      )
    }
    if (parsed.username !== "" || parsed.password !== "") {
      return yield* fail(
        "SVC_URL",
        "holds credentials",
        "remove user:password@ from the URL and use SVC_API_KEY/SVC_API_SECRET or SVC_INIT_ADMIN_USERNAME/SVC_INIT_ADMIN_PASSWORD",
      )
    }
    if (parsed.search !== "" || parsed.hash !== "") {
      return yield* fail(
        "SVC_URL",
        "has a query or fragment",
        "give only the base URL, e.g. https://svc.example.com or https://example.com/svc",
      )
    }
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`
  })

/** A positive whole number from `variable`, or `fallback` when unset. */
const positive = (variable: string, fallback: number, unit: string, example: number) =>
  Effect.flatMap(Effect.orDie(optional(variable)), (value) => {
    if (Option.isNone(value)) return Effect.succeed(fallback)
    const text = value.value.trim()
    const n = Number(text)
    return /^\d+$/.test(text) && Number.isSafeInteger(n) && n > 0
      ? Effect.succeed(n)
      : fail(
          variable,
          `is not a positive whole number of ${unit} (${JSON.stringify(text)})`,
          `unset it for the default of ${fallback}, or give e.g. ${variable}=${example}`,
        )
  })

const parseCredentials = (env: Raw): Effect.Effect<Credentials, ConfigError> => {
  const { apiKey, apiSecret, username, password } = env
  if (Option.isSome(apiKey) || Option.isSome(apiSecret)) {
    if (Option.isNone(apiSecret)) {
      return fail("SVC_API_SECRET", "is not set but SVC_API_KEY is", "set both, or neither")
    }
    if (Option.isNone(apiKey)) {
      return fail("SVC_API_KEY", "is not set but SVC_API_SECRET is", "set both, or neither")
    }
    return Effect.succeed({
      _tag: "ApiKey",
      key: Redacted.make(apiKey.value),
      secret: Redacted.make(apiSecret.value),
    })
  }
  if (Option.isSome(username) && Option.isSome(password)) {
    return Effect.succeed({
      _tag: "Login",
      username: username.value,
      password: Redacted.make(password.value),
    })
  }
  if (Option.isSome(username)) {
    return fail(
      "SVC_INIT_ADMIN_PASSWORD",
      "is not set but SVC_INIT_ADMIN_USERNAME is",
      "set the password too, or use SVC_API_KEY and SVC_API_SECRET",
    )
  }
  if (Option.isSome(password)) {
    return fail(
      "SVC_INIT_ADMIN_USERNAME",
      "is not set but SVC_INIT_ADMIN_PASSWORD is",
      "set the username too, or use SVC_API_KEY and SVC_API_SECRET",
    )
  }
  return fail(
    "SVC_API_KEY",
    "is not set, and no login is configured",
    "set SVC_API_KEY and SVC_API_SECRET (preferred), or SVC_INIT_ADMIN_USERNAME and SVC_INIT_ADMIN_PASSWORD",
  )
}

/** Whose service credentials the calls use: the server's own, or each HTTP request's caller's. */
export type CredentialsMode = "server" | "per-request"

/** SVC_MCP_CREDENTIALS: `server` (the default) or `per-request`. */
export const loadCredentialsMode: Effect.Effect<CredentialsMode, ConfigError> = Effect.flatMap(
  Effect.orDie(optional("SVC_MCP_CREDENTIALS")),
  (value) => {
    const text = Option.getOrElse(value, () => "server")
      .trim()
      .toLowerCase()
    return text === "server" || text === "per-request"
      ? Effect.succeed(text)
      : fail(
          "SVC_MCP_CREDENTIALS",
          `is ${JSON.stringify(Option.getOrElse(value, () => ""))}`,
          "use server (the server's own credentials, the default) or per-request (each HTTP request sends X-Svc-Api-Key and X-Svc-Api-Secret)",
        )
  },
)

/** Reads and checks the whole configuration from the current ConfigProvider. */
export const load: Effect.Effect<SvcConfigShape, ConfigError> = Effect.gen(function* () {
  const env = yield* raw
  const url = yield* parseUrl(env.url)
  // In per-request mode the server's own credentials are optional (check and /readyz use them when given).
  const ownless = [env.apiKey, env.apiSecret, env.username, env.password].every(Option.isNone)
  const credentials: Credentials =
    ownless && (yield* loadCredentialsMode) === "per-request" ? { _tag: "None" } : yield* parseCredentials(env)
  const timeoutMs = yield* positive("SVC_TIMEOUT_MS", DEFAULT_TIMEOUT_MS, "milliseconds", 60_000)
  return { url, credentials, timeoutMs }
})

export const layer: Layer.Layer<SvcConfig, ConfigError> = Layer.effect(SvcConfig, load)

/** For embedding: a configuration given as a value rather than read from the environment. */
export const layerValue = (config: SvcConfigShape): Layer.Layer<SvcConfig> => Layer.succeed(SvcConfig, config)

/** Which tools an assistant may use: `read-only` (7 reading tools), `operate` (and svc_execute), `full` (all 13). */
export type Mode = "read-only" | "operate" | "full"

export const MODES: ReadonlyArray<Mode> = ["read-only", "operate", "full"]

/** A `tool:selector` pattern of SVC_ALLOW, SVC_DENY or SVC_CONFIRM; `*` matches any run of characters. */
export interface Pattern {
  readonly variable: "SVC_ALLOW" | "SVC_DENY" | "SVC_CONFIRM"
  readonly text: string
  readonly tool: RegExp
  readonly selector: RegExp
}

export interface ServerSettingsShape {
  readonly mode: Mode
  /** None: everything the mode lists is allowed. */
  readonly allow: Option.Option<ReadonlyArray<Pattern>>
  readonly deny: ReadonlyArray<Pattern>
  /** Calls the user must confirm before anything is sent. */
  readonly confirm: ReadonlyArray<Pattern>
  /** How long svc_execute with `wait` follows an Update before it gives up. */
  readonly waitTimeoutMs: number
  /** The longest text a tool result may have. */
  readonly maxOutputChars: number
  /** Show credential fields and secret variables' values as the service sent them. */
  readonly revealSecrets: boolean
}

export class ServerSettings extends Context.Tag("svc-mcp/ServerSettings")<ServerSettings, ServerSettingsShape>() {}

export const DEFAULT_SETTINGS: ServerSettingsShape = {
  mode: "full",
  allow: Option.none(),
  deny: [],
  confirm: [],
  waitTimeoutMs: 600_000,
  maxOutputChars: 50_000,
  revealSecrets: false,
}

const wildcard = (part: string) => new RegExp(`^${part.replace(/\*/g, ".*")}$`)

const parsePatterns = (variable: Pattern["variable"], text: string) =>
  Effect.forEach(
    text
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== ""),
    (item) => {
      const match = /^([A-Za-z0-9_*]+):([A-Za-z0-9_*]+)$/.exec(item)
      return match === null
        ? fail(
            variable,
            `has the pattern ${JSON.stringify(item)}, which is not tool:selector`,
            "write comma-separated tool:selector patterns with * as a wildcard, e.g. svc_execute:prune_*,svc_delete:*",
          )
        : Effect.succeed<Pattern>({
            variable,
            text: item,
            tool: wildcard(match[1] as string),
            selector: wildcard(match[2] as string),
          })
    },
  )

const parseMode = Effect.flatMap(Effect.orDie(optional("SVC_MODE")), (value) => {
  if (Option.isNone(value)) return Effect.succeed<Mode>("full")
  const mode = value.value.trim().toLowerCase()
  return (MODES as ReadonlyArray<string>).includes(mode)
    ? Effect.succeed(mode as Mode)
    : fail("SVC_MODE", `is ${JSON.stringify(value.value)}`, `use one of ${MODES.join(", ")} (default full)`)
})

const parseBoolean = (variable: string) =>
  Effect.flatMap(Effect.orDie(optional(variable)), (value) => {
    if (Option.isNone(value)) return Effect.succeed(false)
    const text = value.value.trim().toLowerCase()
    if (["true", "1", "yes"].includes(text)) return Effect.succeed(true)
    if (["false", "0", "no"].includes(text)) return Effect.succeed(false)
    return fail(variable, `is ${JSON.stringify(value.value)}`, "use true or false")
  })

export const loadSettings: Effect.Effect<ServerSettingsShape, ConfigError> = Effect.gen(function* () {
  const mode = yield* parseMode
  const allowText = yield* Effect.orDie(optional("SVC_ALLOW"))
  const allow = Option.isSome(allowText)
    ? Option.some(yield* parsePatterns("SVC_ALLOW", allowText.value))
    : Option.none<ReadonlyArray<Pattern>>()
  const denyText = yield* Effect.orDie(optional("SVC_DENY"))
  const deny = Option.isSome(denyText) ? yield* parsePatterns("SVC_DENY", denyText.value) : []
  const confirmText = yield* Effect.orDie(optional("SVC_CONFIRM"))
  const confirm = Option.isSome(confirmText) ? yield* parsePatterns("SVC_CONFIRM", confirmText.value) : []
  const waitTimeoutMs = yield* positive("SVC_WAIT_TIMEOUT_MS", DEFAULT_SETTINGS.waitTimeoutMs, "milliseconds", 900_000)
  const maxOutputChars = yield* positive("SVC_MAX_OUTPUT_CHARS", DEFAULT_SETTINGS.maxOutputChars, "characters", 20_000)
  const revealSecrets = yield* parseBoolean("SVC_REVEAL_SECRETS")
  return { mode, allow, deny, confirm, waitTimeoutMs, maxOutputChars, revealSecrets }
})

export const layerSettings: Layer.Layer<ServerSettings, ConfigError> = Layer.effect(ServerSettings, loadSettings)

export const layerSettingsValue = (settings: Partial<ServerSettingsShape> = {}): Layer.Layer<ServerSettings> =>
  Layer.succeed(ServerSettings, { ...DEFAULT_SETTINGS, ...settings })

/** Serving MCP over Streamable HTTP instead of stdio. */
export interface HttpSettingsShape {
  readonly port: number
  readonly host: string
  /** When set, every /mcp request must carry `Authorization: Bearer <token>`. */
  readonly token: Option.Option<Redacted.Redacted<string>>
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"])

export const isLoopback = (host: string): boolean => LOOPBACK.has(host.toLowerCase()) || host.startsWith("127.")

/**
 * The HTTP settings, or None to serve on stdio. `portOverride` is `--http-port`,
 * which wins over SVC_MCP_HTTP_PORT.
 */
export const loadHttp = (
  portOverride: Option.Option<number>,
): Effect.Effect<Option.Option<HttpSettingsShape>, ConfigError> =>
  Effect.gen(function* () {
    const portText = yield* Effect.orDie(optional("SVC_MCP_HTTP_PORT"))
    let port = portOverride
    if (Option.isNone(port) && Option.isSome(portText)) {
      const text = portText.value.trim()
      const n = Number(text)
      if (!/^\d+$/.test(text) || n > 65535) {
        return yield* fail(
          "SVC_MCP_HTTP_PORT",
          `is not a port number (${JSON.stringify(text)})`,
          "give a port from 0 to 65535, e.g. 8765",
        )
      }
      port = Option.some(n)
    }
    if (Option.isNone(port)) return Option.none()
    const host = Option.getOrElse(yield* Effect.orDie(optional("SVC_MCP_HTTP_HOST")), () => "127.0.0.1").trim()
    const token = yield* Effect.map(orFile("SVC_MCP_TOKEN"), Option.map(Redacted.make))
    if (Option.isSome(token) && Redacted.value(token.value).length < 16) {
      return yield* fail(
        "SVC_MCP_TOKEN",
        "is shorter than 16 characters",
        "use a long random value, e.g. from `openssl rand -hex 32`",
      )
    }
    if (!isLoopback(host) && Option.isNone(token)) {
      return yield* fail(
        "SVC_MCP_TOKEN",
        `is not set, and SVC_MCP_HTTP_HOST=${host} is not a loopback address`,
        "set SVC_MCP_TOKEN to a long random value (clients send it as a Bearer token), or bind to 127.0.0.1",
      )
    }
    return Option.some({ port: port.value, host, token })
  })
