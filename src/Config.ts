/**
 * The service connection and credentials, read from the environment once at
 * start. A misconfigured server stops before it serves anything, with one line
 * that names the variable and the fix. Every other section of the settings is
 * in Settings/, read with the same helpers (Settings/Read.ts).
 */

import type * as EffectConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ConfigError, optional, optionalWith, pickOne, positive, read, refuse, secret } from "./Settings/Read.js"
import * as Setting from "./Settings/Setting.js"
import { DEFAULT_SETTINGS } from "./Settings/ToolSettings.js"

export { ConfigError } from "./Settings/Read.js"

export type Credentials =
  | {
      readonly _tag: "ApiKey"
      readonly key: Redacted.Redacted<string>
      readonly secret: Redacted.Redacted<string>
      /**
       * The variables the key and secret were read from (SVC_API_KEY or SVC_API_KEY_FILE, ...), for a
       * refusal to name those set; unset, the plain ones.
       */
      readonly from?: readonly [key: string, secret: string]
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
  /**
   * SVC_MAX_ANSWER_BYTES: the most of an answer's body that is read; past it the body is cut and
   * its request aborted. Unset in a value given by an embedding program: ANSWER_TIMES the default
   * output budget.
   */
  readonly maxAnswerBytes?: number
}

/**
 * The byte cap of an answer, by default, in output budgets (SVC_MAX_OUTPUT_CHARS): forty times
 * what a result may show, so that an answer cut by it is one no result could have shown whole.
 */
export const ANSWER_TIMES = 40

export const DEFAULT_MAX_ANSWER_BYTES = ANSWER_TIMES * DEFAULT_SETTINGS.maxOutputChars

export class SvcConfig extends Context.Tag("svc-mcp/SvcConfig")<SvcConfig, SvcConfigShape>() {}

export const DEFAULT_TIMEOUT_MS = 30_000

const url = Setting.mapOrFail(optional("SVC_URL"), (value) => {
  if (Option.isNone(value)) {
    return Either.left(
      refuse(
        "SVC_URL",
        "is not set",
        (v) => `set it to the service's base URL, e.g. ${v("SVC_URL")}=https://svc.example.com`,
      ),
    )
  }
  const text = value.value.trim()
  let parsed: URL
  try {
    parsed = new URL(text)
  } catch {
    return Either.left(
      refuse(
        "SVC_URL",
        `is not a URL (${JSON.stringify(text)})`,
        "give the full base URL with its scheme, e.g. https://svc.example.com",
      ),
    )
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return Either.left(
      refuse("SVC_URL", `has the scheme ${JSON.stringify(parsed.protocol)}`, "use an http:// or https:// URL"),
    )
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return Either.left(
      refuse(
        "SVC_URL",
        "holds credentials",
        (v) =>
          `remove user:password@ from the URL and use ${v("SVC_API_KEY")}/${v("SVC_API_SECRET")} or ${v("SVC_INIT_ADMIN_USERNAME")}/${v("SVC_INIT_ADMIN_PASSWORD")}`,
      ),
    )
  }
  if (parsed.search !== "" || parsed.hash !== "") {
    return Either.left(
      refuse(
        "SVC_URL",
        "has a query or fragment",
        "give only the base URL, e.g. https://svc.example.com or https://example.com/svc",
      ),
    )
  }
  return Either.right(`${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`)
})

/** Whose service credentials the calls use: the server's own, or each HTTP request's caller's. */
export type CredentialsMode = "server" | "per-request"

/** SVC_MCP_CREDENTIALS: `server` (the default) or `per-request`. */
const pickCredentialsMode = pickOne<CredentialsMode>(
  "SVC_MCP_CREDENTIALS",
  ["server", "per-request"],
  "server",
  "use server (the server's own credentials, the default) or per-request (each HTTP request sends X-Svc-Api-Key and X-Svc-Api-Secret)",
)

export const loadCredentialsMode: Effect.Effect<CredentialsMode, ConfigError> = read(
  Setting.mapOrFail(optional("SVC_MCP_CREDENTIALS"), pickCredentialsMode),
)

/** Whether `name` is read from its file (`name`_FILE): the name a refusal gives the operator. */
const source = (name: string) =>
  Setting.map(optional(`${name}_FILE`), (file) => (Option.isSome(file) ? `${name}_FILE` : name))

const secrets = Setting.all({
  apiKey: secret("SVC_API_KEY"),
  apiSecret: secret("SVC_API_SECRET"),
  keyFrom: source("SVC_API_KEY"),
  secretFrom: source("SVC_API_SECRET"),
  username: secret("SVC_INIT_ADMIN_USERNAME"),
  password: secret("SVC_INIT_ADMIN_PASSWORD"),
})

const ownCredentials = ({
  apiKey,
  apiSecret,
  keyFrom,
  secretFrom,
  username,
  password,
}: Setting.Success<typeof secrets>): Either.Either<Credentials, EffectConfigError.ConfigError> => {
  if (Option.isSome(apiKey) || Option.isSome(apiSecret)) {
    if (Option.isNone(apiSecret)) {
      return Either.left(
        refuse("SVC_API_SECRET", (v) => `is not set but ${v("SVC_API_KEY")} is`, "set both, or neither"),
      )
    }
    if (Option.isNone(apiKey)) {
      return Either.left(
        refuse("SVC_API_KEY", (v) => `is not set but ${v("SVC_API_SECRET")} is`, "set both, or neither"),
      )
    }
    return Either.right({ _tag: "ApiKey", key: apiKey.value, secret: apiSecret.value, from: [keyFrom, secretFrom] })
  }
  if (Option.isSome(username) && Option.isSome(password)) {
    return Either.right({ _tag: "Login", username: Redacted.value(username.value), password: password.value })
  }
  if (Option.isSome(username)) {
    return Either.left(
      refuse(
        "SVC_INIT_ADMIN_PASSWORD",
        (v) => `is not set but ${v("SVC_INIT_ADMIN_USERNAME")} is`,
        (v) => `set the password too, or use ${v("SVC_API_KEY")} and ${v("SVC_API_SECRET")}`,
      ),
    )
  }
  if (Option.isSome(password)) {
    return Either.left(
      refuse(
        "SVC_INIT_ADMIN_USERNAME",
        (v) => `is not set but ${v("SVC_INIT_ADMIN_PASSWORD")} is`,
        (v) => `set the username too, or use ${v("SVC_API_KEY")} and ${v("SVC_API_SECRET")}`,
      ),
    )
  }
  return Either.left(
    refuse(
      "SVC_API_KEY",
      "is not set, and no login is configured",
      (v) =>
        `set ${v("SVC_API_KEY")} and ${v("SVC_API_SECRET")} (preferred), or ${v("SVC_INIT_ADMIN_USERNAME")} and ${v("SVC_INIT_ADMIN_PASSWORD")}`,
    ),
  )
}

/** The credentials as set; in per-request mode the server's own are optional (check and /readyz use them when given). */
const credentials = (mode: CredentialsMode): Setting.Setting<Credentials> =>
  Setting.mapOrFail(secrets, (own) =>
    mode === "per-request" && [own.apiKey, own.apiSecret, own.username, own.password].every(Option.isNone)
      ? Either.right<Credentials>({ _tag: "None" })
      : ownCredentials(own),
  )

/** SVC_MAX_ANSWER_BYTES, or ANSWER_TIMES SVC_MAX_OUTPUT_CHARS (the output budget, as the tools read it). */
const maxAnswerBytes: Setting.Setting<number> = Setting.zipWith(
  positive("SVC_MAX_OUTPUT_CHARS", DEFAULT_SETTINGS.maxOutputChars, "characters", 20_000),
  optionalWith("SVC_MAX_ANSWER_BYTES", (value) => {
    const text = value.trim()
    const n = Number(text)
    return /^\d+$/.test(text) && Number.isSafeInteger(n) && n >= 1024
      ? Either.right(n)
      : Either.left(
          refuse(
            "SVC_MAX_ANSWER_BYTES",
            `is not a whole number of bytes from 1024 (${JSON.stringify(text)})`,
            (v) =>
              `unset it for ${ANSWER_TIMES} times ${v("SVC_MAX_OUTPUT_CHARS")}, or give e.g. ${v("SVC_MAX_ANSWER_BYTES")}=20000000`,
          ),
        )
  }),
  (budget, set) => Option.getOrElse(set, () => ANSWER_TIMES * budget),
)

const svcConfig = (mode: CredentialsMode): Setting.Setting<SvcConfigShape> =>
  Setting.all({
    url,
    credentials: credentials(mode),
    timeoutMs: positive("SVC_TIMEOUT_MS", DEFAULT_TIMEOUT_MS, "milliseconds", 60_000),
    maxAnswerBytes,
  })

/** Reads and checks the configuration for credentials mode `mode`, read already by the caller. */
export const loadFor = (mode: CredentialsMode): Effect.Effect<SvcConfigShape, ConfigError> => read(svcConfig(mode))

/** Reads and checks the whole configuration from the current ConfigProvider, SVC_MCP_CREDENTIALS included. */
export const load: Effect.Effect<SvcConfigShape, ConfigError> = Effect.flatMap(loadCredentialsMode, loadFor)

export const layer: Layer.Layer<SvcConfig, ConfigError> = Layer.effect(SvcConfig, load)

/** The configuration for a credentials mode the caller has read (SVC_MCP_CREDENTIALS is read once). */
export const layerFor = (mode: CredentialsMode): Layer.Layer<SvcConfig, ConfigError> =>
  Layer.effect(SvcConfig, loadFor(mode))

/** For embedding: a configuration given as a value rather than read from the environment. */
export const layerValue = (config: SvcConfigShape): Layer.Layer<SvcConfig> => Layer.succeed(SvcConfig, config)
