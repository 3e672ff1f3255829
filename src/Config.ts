/**
 * The server's configuration, read from the environment once at start.
 *
 * Every rule is checked here so that a misconfigured server stops before it
 * serves anything, with one line that names the variable and the fix.
 */
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

const raw = Config.all({
  url: optional("SVC_URL"),
  apiKey: optional("SVC_API_KEY"),
  apiSecret: optional("SVC_API_SECRET"),
  username: optional("SVC_INIT_ADMIN_USERNAME"),
  password: optional("SVC_INIT_ADMIN_PASSWORD"),
  timeoutMs: optional("SVC_TIMEOUT_MS"),
})

type Raw = Config.Config.Success<typeof raw>

const fail = (variable: string, problem: string, hint: string) =>
  Effect.fail(new ConfigError({ variable, problem, hint }))

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

const parseTimeout = (value: Option.Option<string>) => {
  if (Option.isNone(value)) return Effect.succeed(DEFAULT_TIMEOUT_MS)
  const text = value.value.trim()
  const ms = Number(text)
  return /^\d+$/.test(text) && Number.isSafeInteger(ms) && ms > 0
    ? Effect.succeed(ms)
    : fail(
        "SVC_TIMEOUT_MS",
        `is not a positive whole number of milliseconds (${JSON.stringify(text)})`,
        `unset it for the default of ${DEFAULT_TIMEOUT_MS}, or give e.g. SVC_TIMEOUT_MS=60000`,
      )
}

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

/** Reads and checks the whole configuration from the current ConfigProvider. */
export const load: Effect.Effect<SvcConfigShape, ConfigError> = Effect.gen(function* () {
  const env = yield* Effect.orDie(raw)
  const url = yield* parseUrl(env.url)
  const credentials = yield* parseCredentials(env)
  const timeoutMs = yield* parseTimeout(env.timeoutMs)
  return { url, credentials, timeoutMs }
})

export const layer: Layer.Layer<SvcConfig, ConfigError> = Layer.effect(SvcConfig, load)

/** For embedding: a configuration given as a value rather than read from the environment. */
export const layerValue = (config: SvcConfigShape): Layer.Layer<SvcConfig> => Layer.succeed(SvcConfig, config)
