/**
 * The shared store's settings (src/Store/): SVC_MCP_STORE, a redis:// or
 * rediss:// URL; its password, in SVC_MCP_STORE_PASSWORD or the file
 * SVC_MCP_STORE_PASSWORD_FILE names (or in the URL); the prefix of every key,
 * SVC_MCP_STORE_PREFIX; and SVC_MCP_STORE_CLUSTER=true when the URL names a
 * node of a Redis Cluster, whose other nodes are then found from it. Unset: no shared store, each process keeps its own.
 * A redis+sentinel:// URL names Redis Sentinels and the primary's name instead
 * (with SVC_MCP_STORE_SENTINEL_PASSWORD for the Sentinels' own password): the
 * primary is asked of them, and asked again when they fail it over.
 *
 * A store is shared by replicas, which must also share the key that seals
 * confirmation states (SVC_MCP_STATE_KEY): without it no replica could verify
 * another's question, and the refused keys' hashes would not match.
 */

import type * as EffectConfigError from "effect/ConfigError"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ConfigError, optional, optionalWith, pickOne, read, refuse, secret } from "./Read.js"
import * as Setting from "./Setting.js"
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
  /**
   * Reads answered from a copy the store keeps current (RESP3 client tracking),
   * SVC_MCP_STORE_CACHE=on, the default; off for a store that speaks neither.
   */
  readonly cache: boolean
  /** The key replicas share (SVC_MCP_STATE_KEY): it seals states and keys the hashes kept in the store. */
  readonly stateKey: Redacted.Redacted<Uint8Array>
  /** Present when the URL is redis+sentinel://: the primary is found through these Sentinels (`url` is then unused). */
  readonly sentinel?: SentinelSettings
}

interface SentinelNode {
  readonly host: string
  readonly port: number
}

/** Redis Sentinel: where the Sentinels are, and the name they monitor the primary under. */
export interface SentinelSettings {
  readonly nodes: ReadonlyArray<SentinelNode>
  /** The primary's name, as in the Sentinels' `sentinel monitor <name> ...`. */
  readonly name: string
  readonly database: Option.Option<number>
  /** The primary's (and its replicas') user and password, from the URL; SVC_MCP_STORE_PASSWORD wins over it. */
  readonly username: Option.Option<string>
  readonly password: Option.Option<Redacted.Redacted<string>>
  /** The Sentinels' own password (their `requirepass`), when they have one. */
  readonly sentinelPassword: Option.Option<Redacted.Redacted<string>>
}

const DEFAULT_SENTINEL_PORT = 26379

const URL_HINT =
  "give redis://[user:password@]host:port[/db], rediss://... for TLS, or redis+sentinel://host:26379[,host:26379...]/primary-name[/db] through Redis Sentinel, e.g. SVC_MCP_STORE=redis://redis:6379/0"

const SENTINEL_HINT =
  "give redis+sentinel://[user:password@]host[:port][,host[:port]...]/primary-name[/db] (port 26379 by default), e.g. SVC_MCP_STORE=redis+sentinel://sentinel-1:26379,sentinel-2:26379/mymaster"

/** The URL's shape, checked here so that a typo stops the server at start rather than at the first call. */
const parseUrl = (text: string): Either.Either<{ where: string; tls: boolean }, string> => {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return Either.left("is not a URL")
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    return Either.left(
      `has the scheme ${JSON.stringify(url.protocol.replace(/:$/, ""))}, not redis, rediss or redis+sentinel`,
    )
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

const SENTINEL_SCHEME = /^rediss?\+sentinel:\/\//i
const SENTINEL_HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/

/**
 * A redis+sentinel:// URL, the form other clients and tools take for Sentinel:
 * several `host[:port]` joined by commas (which a URL parser refuses), then the
 * primary's name and an optional database. No problem quotes any part of it: a
 * password with an unencoded / or @ would be split into the hosts or the name.
 */
const parseSentinelUrl = (
  text: string,
): Either.Either<{ where: string; sentinel: Omit<SentinelSettings, "sentinelPassword"> }, string> => {
  const trimmed = text.trim()
  if (/^rediss\+sentinel:/i.test(trimmed)) {
    return Either.left("asks for TLS through Sentinel (rediss+sentinel), which is not supported")
  }
  if (!SENTINEL_SCHEME.test(trimmed)) return Either.left("is not a redis+sentinel:// URL")
  const rest = trimmed.replace(/^rediss?\+sentinel:\/\//i, "")
  if (/[?#]/.test(rest)) return Either.left("has a query or fragment, which is not read")
  const slash = rest.indexOf("/")
  const authority = slash < 0 ? rest : rest.slice(0, slash)
  const path = slash < 0 ? [] : rest.slice(slash + 1).split("/")
  // The credentials end at the last @, as a password may hold one.
  const at = authority.lastIndexOf("@")
  const userinfo = at < 0 ? undefined : authority.slice(0, at)
  const hosts = at < 0 ? authority : authority.slice(at + 1)
  if (hosts === "") return Either.left("names no Sentinel")
  const nodes: Array<SentinelNode> = []
  const ordinal = (n: number) => `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`
  for (const [index, host] of hosts.split(",").entries()) {
    const match = SENTINEL_HOST.exec(host)
    if (match === null) return Either.left(`has a ${ordinal(index + 1)} Sentinel that is not host[:port]`)
    const port = match[2] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[2])
    if (!(port > 0 && port <= 65535)) {
      return Either.left(`has a ${ordinal(index + 1)} Sentinel whose port is not from 1 to 65535`)
    }
    nodes.push({ host: (match[1] as string).replace(/^\[(.*)\]$/, "$1"), port })
  }
  const [name = "", db, ...more] = path
  if (name === "")
    return Either.left("names no primary: put its name (as the Sentinels monitor it) after the Sentinels")
  if (!/^[\x21-\x7e]{1,128}$/.test(name) || /[@,]/.test(name)) {
    return Either.left("has a primary's name that is not 1 to 128 printable characters without @ or ,")
  }
  if (more.length > 0 || (db !== undefined && db !== "" && !/^\d{1,5}$/.test(db))) {
    return Either.left("has a path that is not /primary-name[/db], the database being a number")
  }
  let username: Option.Option<string> = Option.none()
  let password: Option.Option<Redacted.Redacted<string>> = Option.none()
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(":")
    try {
      const user = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon))
      const secret = colon < 0 ? "" : decodeURIComponent(userinfo.slice(colon + 1))
      username = user === "" ? Option.none() : Option.some(user)
      password = secret === "" ? Option.none() : Option.some(Redacted.make(secret))
    } catch {
      return Either.left("has credentials that are not percent-encoded correctly")
    }
  }
  const database = db === undefined || db === "" ? Option.none<number>() : Option.some(Number(db))
  const shown = nodes.map((node) => `${node.host.includes(":") ? `[${node.host}]` : node.host}:${node.port}`)
  return Either.right({
    where: `redis+sentinel://${shown.join(",")}/${name}${Option.match(database, { onNone: () => "", onSome: (n) => `/${n}` })}`,
    sentinel: { nodes, name, database, username, password },
  })
}

interface Given {
  readonly url: Redacted.Redacted<string>
  readonly where: string
  readonly tls: boolean
  readonly sentinel?: Omit<SentinelSettings, "sentinelPassword">
}

const url = Setting.mapOrFail(
  secret("SVC_MCP_STORE"),
  (given): Either.Either<Option.Option<Given>, EffectConfigError.ConfigError> => {
    if (Option.isNone(given)) return Either.right(Option.none())
    const text = Redacted.value(given.value)
    if (/^rediss?\+sentinel:/i.test(text.trim())) {
      return Either.match(parseSentinelUrl(text), {
        onLeft: (problem) => Either.left(refuse("SVC_MCP_STORE", problem, SENTINEL_HINT)),
        onRight: ({ where, sentinel }) =>
          Either.right(Option.some({ url: Redacted.make(text.trim()), where, tls: false, sentinel })),
      })
    }
    return Either.match(parseUrl(text), {
      // The URL may carry a password: the refusal never quotes it.
      onLeft: (problem) => Either.left(refuse("SVC_MCP_STORE", problem, URL_HINT)),
      onRight: (parsed) => Either.right(Option.some({ url: Redacted.make(text.trim()), ...parsed })),
    })
  },
)

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
).pipe(Setting.map(Option.getOrElse(() => DEFAULT_PREFIX)))

const cluster = Setting.mapOrFail(
  optional("SVC_MCP_STORE_CLUSTER"),
  pickOne(
    "SVC_MCP_STORE_CLUSTER",
    ["true", "false"] as const,
    "false",
    "give true when SVC_MCP_STORE names a node of a Redis Cluster, else false (the default)",
  ),
)

const cache = Setting.mapOrFail(
  optional("SVC_MCP_STORE_CACHE"),
  pickOne(
    "SVC_MCP_STORE_CACHE",
    ["on", "off"] as const,
    "on",
    "give on (the default) or off, for a store that does not take HELLO 3 and CLIENT TRACKING",
  ),
)

/** The store's settings, or None when SVC_MCP_STORE is unset. */
const config: Setting.Setting<Option.Option<StoreSettings>> = Setting.mapOrFail(
  Setting.all({
    url,
    password: secret("SVC_MCP_STORE_PASSWORD"),
    sentinelPassword: secret("SVC_MCP_STORE_SENTINEL_PASSWORD"),
    prefix,
    cluster,
    cache,
    team: Team.config,
  }),
  ({ url, password, sentinelPassword, prefix, cluster, cache, team }) => {
    // A setting that would be silently ignored is refused, as a malformed one is.
    if (Option.isSome(sentinelPassword) && Option.isNone(Option.flatMap(url, (u) => Option.fromNullable(u.sentinel)))) {
      return Either.left(
        refuse(
          "SVC_MCP_STORE_SENTINEL_PASSWORD",
          "is set, but SVC_MCP_STORE does not name Sentinels",
          "unset it, or give SVC_MCP_STORE=redis+sentinel://host:26379[,host:26379...]/primary-name",
        ),
      )
    }
    if (Option.isNone(url)) return Either.right(Option.none())
    const { sentinel, ...given } = url.value
    if (sentinel !== undefined && cluster === "true") {
      return Either.left(
        refuse(
          "SVC_MCP_STORE_CLUSTER",
          "is true, but SVC_MCP_STORE names Sentinels (redis+sentinel://), which serve a primary and its replicas, not a Cluster",
          "give a Cluster node's redis:// URL with SVC_MCP_STORE_CLUSTER=true, or unset SVC_MCP_STORE_CLUSTER for Sentinel",
        ),
      )
    }
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
      Option.some({
        ...given,
        password,
        prefix,
        cluster: cluster === "true",
        cache: cache === "on",
        stateKey: team.stateKey.value,
        ...(sentinel === undefined ? {} : { sentinel: { ...sentinel, sentinelPassword } }),
      }),
    )
  },
)

export const load: Effect.Effect<Option.Option<StoreSettings>, ConfigError> = read(config)

/**
 * The store's password alone (SVC_MCP_STORE_PASSWORD, or the file SVC_MCP_STORE_PASSWORD_FILE
 * names), for a command given the store's URL on its command line (`audit verify --store`).
 */
export const loadPassword: Effect.Effect<Option.Option<Redacted.Redacted<string>>, ConfigError> = read(
  secret("SVC_MCP_STORE_PASSWORD"),
)
