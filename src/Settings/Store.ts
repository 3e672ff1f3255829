/**
 * The shared store's settings (src/Store/): SVC_MCP_STORE, a redis:// or
 * rediss:// URL; its password, in SVC_MCP_STORE_PASSWORD or the file
 * SVC_MCP_STORE_PASSWORD_FILE names (or in the URL); the prefix of every key,
 * SVC_MCP_STORE_PREFIX; and SVC_MCP_STORE_CLUSTER=true when the URL names a
 * node of a Redis Cluster, whose other nodes are then found from it. Unset: no shared store, each process keeps its own.
 *
 * A store is shared by replicas, which must also share the key that seals
 * confirmation states (SVC_MCP_STATE_KEY): without it no replica could verify
 * another's question, and the refused keys' hashes would not match.
 */
import * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ConfigError, optional, optionalWith, pickOne, read, refuse, secret } from "./Read.js"
import * as Team from "./Team.js"

export const DEFAULT_PREFIX = "svc-mcp:"

export interface StoreSettings {
  /** The URL as given: it may hold a password, so it is never shown whole. */
  readonly url: Redacted.Redacted<string>
  /** Where it is, for logs and reports: scheme, host and port, never a credential. */
  readonly where: string
  readonly tls: boolean
  readonly password: Option.Option<Redacted.Redacted<string>>
  readonly prefix: string
  /** The URL names one node of a Redis Cluster: the client finds the others and routes each key to its slot. */
  readonly cluster: boolean
  /** The key replicas share (SVC_MCP_STATE_KEY): it seals states and keys the hashes kept in the store. */
  readonly stateKey: Redacted.Redacted<Uint8Array>
}

const URL_HINT =
  "give redis://[user:password@]host:port[/db] or rediss://... for TLS, e.g. SVC_MCP_STORE=redis://redis:6379/0"

/** The URL's shape, checked here so that a typo stops the server at start rather than at the first call. */
export const parseUrl = (text: string): Either.Either<{ where: string; tls: boolean }, string> => {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return Either.left("is not a URL")
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    return Either.left(`has the scheme ${JSON.stringify(url.protocol.replace(/:$/, ""))}, not redis or rediss`)
  }
  if (url.hostname === "") return Either.left("names no host")
  if (url.port !== "" && !(Number(url.port) > 0)) return Either.left("has port 0")
  const db = url.pathname.replace(/^\//, "")
  if (db !== "" && !/^\d{1,5}$/.test(db)) return Either.left("has a path that is not a database number")
  if (url.search !== "" || url.hash !== "") return Either.left("has a query or fragment, which is not read")
  return Either.right({
    where: `${url.protocol}//${url.hostname}:${url.port === "" ? "6379" : url.port}${db === "" ? "" : `/${db}`}`,
    tls: url.protocol === "rediss:",
  })
}

const url = Config.mapOrFail(secret("SVC_MCP_STORE"), (given) => {
  if (Option.isNone(given)) return Either.right(Option.none())
  const text = Redacted.value(given.value)
  return Either.match(parseUrl(text), {
    // The URL may carry a password: the refusal never quotes it.
    onLeft: (problem) => Either.left(refuse("SVC_MCP_STORE", problem, URL_HINT)),
    onRight: (parsed) => Either.right(Option.some({ url: Redacted.make(text.trim()), ...parsed })),
  })
})

const prefix = optionalWith("SVC_MCP_STORE_PREFIX", (text) =>
  /^[\x21-\x7e]{1,64}$/.test(text)
    ? Either.right(text)
    : Either.left(
        refuse(
          "SVC_MCP_STORE_PREFIX",
          `is ${JSON.stringify(text)}`,
          `give 1 to 64 printable characters without spaces, e.g. SVC_MCP_STORE_PREFIX=team-a: (default ${DEFAULT_PREFIX})`,
        ),
      ),
).pipe(Config.map(Option.getOrElse(() => DEFAULT_PREFIX)))

const cluster = Config.mapOrFail(
  optional("SVC_MCP_STORE_CLUSTER"),
  pickOne(
    "SVC_MCP_STORE_CLUSTER",
    ["true", "false"] as const,
    "false",
    "give true when SVC_MCP_STORE names a node of a Redis Cluster, else false (the default)",
  ),
)

/** The store's settings, or None when SVC_MCP_STORE is unset. */
export const config: Config.Config<Option.Option<StoreSettings>> = Config.mapOrFail(
  Config.all({
    url,
    password: secret("SVC_MCP_STORE_PASSWORD"),
    prefix,
    cluster,
    team: Team.config,
  }),
  ({ url, password, prefix, cluster, team }) => {
    if (Option.isNone(url)) return Either.right(Option.none())
    if (Option.isNone(team.stateKey)) {
      return Either.left(
        refuse(
          "SVC_MCP_STORE",
          "is set without SVC_MCP_STATE_KEY",
          "replicas sharing a store must share the key that seals confirmations: give every replica the same SVC_MCP_STATE_KEY (e.g. the output of `openssl rand -base64 48`)",
        ),
      )
    }
    return Either.right(
      Option.some({ ...url.value, password, prefix, cluster: cluster === "true", stateKey: team.stateKey.value }),
    )
  },
)

export const load: Effect.Effect<Option.Option<StoreSettings>, ConfigError> = read(config)
