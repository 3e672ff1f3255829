/**
 * The settings of serving MCP over Streamable HTTP: the port, the host, the
 * Bearer token, the rule that off loopback a token is required, and the
 * bounds on what a caller can open (connections, questions, sessions).
 */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  type ConfigError,
  duration,
  optional,
  optionalWith,
  parsePort,
  positive,
  read,
  refuse,
  secret,
} from "./Read.js"
import * as Setting from "./Setting.js"

/** What a caller can open over HTTP, and for how long: each a setting, with these defaults. */
export interface HttpLimits {
  /** Questions a 2025-era session can have open at once (SVC_MCP_QUESTIONS_PER_SESSION). */
  readonly questionsPerSession: number
  /** Questions a principal (a key, an identity, or the server's own credentials) can have open (SVC_MCP_QUESTIONS_PER_PRINCIPAL). */
  readonly questionsPerPrincipal: number
  /** Questions open on this replica in all (SVC_MCP_QUESTIONS_MAX). */
  readonly questions: number
  /** How long a question waits for its answer (SVC_MCP_QUESTION_TIMEOUT), below the SDK's 600 s. */
  readonly questionMs: number
  /** How long a session token is honoured after its initialize (SVC_MCP_SESSION_LIFETIME). */
  readonly sessionMs: number
  /** Connections open at once; more are closed as they come (SVC_MCP_MAX_CONNECTIONS). */
  readonly maxConnections: number
  /** How long a request may take to arrive, headers and body (SVC_MCP_REQUEST_TIMEOUT); its headers, at most 10 s of it. */
  readonly requestMs: number
}

export const DEFAULT_LIMITS: HttpLimits = {
  questionsPerSession: 4,
  questionsPerPrincipal: 32,
  questions: 256,
  questionMs: 300_000,
  sessionMs: 86_400_000,
  maxConnections: 1024,
  requestMs: 30_000,
}

const limits: Setting.Setting<HttpLimits> = Setting.all({
  questionsPerSession: positive(
    "SVC_MCP_QUESTIONS_PER_SESSION",
    DEFAULT_LIMITS.questionsPerSession,
    "questions",
    DEFAULT_LIMITS.questionsPerSession,
  ),
  questionsPerPrincipal: positive(
    "SVC_MCP_QUESTIONS_PER_PRINCIPAL",
    DEFAULT_LIMITS.questionsPerPrincipal,
    "questions",
    DEFAULT_LIMITS.questionsPerPrincipal,
  ),
  questions: positive("SVC_MCP_QUESTIONS_MAX", DEFAULT_LIMITS.questions, "questions", DEFAULT_LIMITS.questions),
  // Below the SDK's own 600 s, which would otherwise end the question first, in words of its own.
  questionMs: duration("SVC_MCP_QUESTION_TIMEOUT", DEFAULT_LIMITS.questionMs, 1_000, 540_000),
  sessionMs: duration("SVC_MCP_SESSION_LIFETIME", DEFAULT_LIMITS.sessionMs, 60_000, 30 * 86_400_000),
  maxConnections: positive(
    "SVC_MCP_MAX_CONNECTIONS",
    DEFAULT_LIMITS.maxConnections,
    "connections",
    DEFAULT_LIMITS.maxConnections,
  ),
  requestMs: duration("SVC_MCP_REQUEST_TIMEOUT", DEFAULT_LIMITS.requestMs, 1_000, 3_600_000),
})

export interface HttpSettingsShape {
  readonly port: number
  readonly host: string
  /** When set, every /mcp request must carry `Authorization: Bearer <token>`. */
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** The bounds; each one not given is its default (`DEFAULT_LIMITS`). */
  readonly limits?: Partial<HttpLimits>
}

/** The HTTP settings, or None to serve on stdio. */
export class HttpSettings extends Context.Tag("svc-mcp/HttpSettings")<
  HttpSettings,
  Option.Option<HttpSettingsShape>
>() {}

export const DEFAULT_HOST = "127.0.0.1"

const LOOPBACK = new Set([DEFAULT_HOST, "localhost", "::1", "[::1]"])

export const isLoopback = (host: string): boolean => LOOPBACK.has(host.toLowerCase()) || host.startsWith("127.")

const port = optionalWith("SVC_MCP_HTTP_PORT", (value) => {
  const text = value.trim()
  return Option.match(parsePort(text), {
    onNone: () =>
      Either.left(
        refuse(
          "SVC_MCP_HTTP_PORT",
          `is not a port number (${JSON.stringify(text)})`,
          "give a port from 0 to 65535, e.g. 8765",
        ),
      ),
    onSome: Either.right,
  })
})

const endpoint = Setting.mapOrFail(
  Setting.all({
    host: Setting.map(optional("SVC_MCP_HTTP_HOST"), (host) => Option.getOrElse(host, () => DEFAULT_HOST).trim()),
    token: secret("SVC_MCP_TOKEN"),
    // Sign-in (Settings/SignIn.ts) guards a server off loopback as the token does.
    signIn: Setting.map(optional("SVC_MCP_OAUTH_ISSUER"), Option.isSome),
  }),
  ({ host, token, signIn }) => {
    if (Option.isSome(token) && Redacted.value(token.value).length < 16) {
      return Either.left(
        refuse(
          "SVC_MCP_TOKEN",
          "is shorter than 16 characters",
          "use a long random value, e.g. from `openssl rand -hex 32`",
        ),
      )
    }
    if (!isLoopback(host) && Option.isNone(token) && !signIn) {
      return Either.left(
        refuse(
          "SVC_MCP_TOKEN",
          `is not set, and SVC_MCP_HTTP_HOST=${host} is not a loopback address`,
          "set SVC_MCP_TOKEN to a long random value (clients send it as a Bearer token), or SVC_MCP_OAUTH_ISSUER for sign-in, or bind to 127.0.0.1",
        ),
      )
    }
    return Either.right({ host, token })
  },
)

/** Whether SVC_MCP_HTTP_PORT is set: a server of these settings serves over HTTP, else over stdio. */
export const portSet: Effect.Effect<boolean, ConfigError> = Effect.map(read(port), Option.isSome)

/**
 * The HTTP settings, or None to serve on stdio. `portOverride` is `--http-port`,
 * which wins over SVC_MCP_HTTP_PORT.
 */
export const load = (
  portOverride: Option.Option<number>,
): Effect.Effect<Option.Option<HttpSettingsShape>, ConfigError> =>
  Effect.flatMap(
    Option.isSome(portOverride) ? Effect.succeed(portOverride) : read(port),
    Option.match({
      onNone: () => Effect.succeedNone,
      onSome: (port) =>
        Effect.map(read(Setting.all({ endpoint, limits })), ({ endpoint, limits }) =>
          Option.some({ port, ...endpoint, limits }),
        ),
    }),
  )

export const layer = (portOverride: Option.Option<number>): Layer.Layer<HttpSettings, ConfigError> =>
  Layer.effect(HttpSettings, load(portOverride))
