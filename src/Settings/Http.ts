/**
 * The settings of serving MCP over Streamable HTTP: the port, the host, the
 * Bearer token, and the rule that off loopback a token is required.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ConfigError, optional, optionalWith, parsePort, read, refuse, secret } from "./Read.js"

export interface HttpSettingsShape {
  readonly port: number
  readonly host: string
  /** When set, every /mcp request must carry `Authorization: Bearer <token>`. */
  readonly token: Option.Option<Redacted.Redacted<string>>
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

const endpoint = Config.mapOrFail(
  Config.all({
    host: Config.map(optional("SVC_MCP_HTTP_HOST"), (host) => Option.getOrElse(host, () => DEFAULT_HOST).trim()),
    token: secret("SVC_MCP_TOKEN"),
    // Sign-in (Settings/SignIn.ts) guards a server off loopback as the token does.
    signIn: Config.map(optional("SVC_MCP_OAUTH_ISSUER"), Option.isSome),
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
      onSome: (port) => Effect.map(read(endpoint), (rest) => Option.some({ port, ...rest })),
    }),
  )

export const layer = (portOverride: Option.Option<number>): Layer.Layer<HttpSettings, ConfigError> =>
  Layer.effect(HttpSettings, load(portOverride))
