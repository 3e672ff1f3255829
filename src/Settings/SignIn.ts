/**
 * The settings of sign-in (OAuth 2.1 over HTTP): SVC_MCP_OAUTH_ISSUER turns it
 * on; SVC_MCP_PUBLIC_URL names the resource (`<public>/mcp`), which is the
 * default audience; SVC_MCP_OAUTH_SCOPE_PREFIX qualifies the scope names;
 * SVC_MCP_IDENTITIES maps identities to service credentials (read and checked
 * here, so that a bad file stops the start); SVC_MCP_OAUTH_PAGE_CLIENT_ID and its secret name the
 * client a secret's page signs its person in as (SignIn/PageSignIn.ts). Sign-in excludes the shared
 * SVC_MCP_TOKEN and SVC_MCP_CREDENTIALS=per-request: each would leave a person
 * unnamed, or a key in every client's configuration.
 */

import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Identities from "./Identities.js"
import { type ConfigError, commaList, optional, read, refuse, secret } from "./Read.js"
import * as Setting from "./Setting.js"

export interface SignInSettingsShape {
  /** Each issuer exactly as configured: a token's `iss` must equal one of them. */
  readonly issuers: ReadonlyArray<string>
  /** The server's public base URL, without a trailing slash. */
  readonly publicUrl: string
  /** The protected resource: `<publicUrl>/mcp`. */
  readonly resource: string
  /** What a token's `aud` must contain. */
  readonly audience: string
  /** Put before each scope name, e.g. `api://svc-mcp/`. */
  readonly scopePrefix: string
  /** SVC_MCP_IDENTITIES' path, if set (reread on SIGHUP). */
  readonly identitiesPath: Option.Option<string>
  /** The mapping as read at start. */
  readonly identities: Identities.Identities
  /**
   * The client a secret's page signs its person in as, at the issuer (authorization code with
   * PKCE); none: a signed-in caller's secret stays withheld. Its secret is none for a public client.
   */
  readonly pageClient: Option.Option<PageClient>
}

export interface PageClient {
  readonly id: string
  readonly secret: Option.Option<Redacted.Redacted<string>>
}

const httpUrl = (variable: string, text: string, example: string): Either.Either<URL, ReturnType<typeof refuse>> => {
  try {
    const url = new URL(text)
    if (url.protocol === "http:" || url.protocol === "https:") {
      if (url.search !== "" || url.hash !== "") {
        return Either.left(
          refuse(variable, `has a query or fragment (${JSON.stringify(text)})`, `give e.g. ${example}`),
        )
      }
      return Either.right(url)
    }
  } catch {}
  return Either.left(refuse(variable, `is not an http(s) URL (${JSON.stringify(text)})`, `give e.g. ${example}`))
}

const ISSUER_EXAMPLE = "https://login.example.com/realms/team"

type Refused = ReturnType<typeof refuse>

const variables = Setting.all({
  issuer: optional("SVC_MCP_OAUTH_ISSUER"),
  publicUrl: optional("SVC_MCP_PUBLIC_URL"),
  audience: optional("SVC_MCP_OAUTH_AUDIENCE"),
  prefix: optional("SVC_MCP_OAUTH_SCOPE_PREFIX"),
  identities: optional("SVC_MCP_IDENTITIES"),
  token: secret("SVC_MCP_TOKEN"),
  credentials: optional("SVC_MCP_CREDENTIALS"),
  pageClientId: optional("SVC_MCP_OAUTH_PAGE_CLIENT_ID"),
  pageClientSecret: secret("SVC_MCP_OAUTH_PAGE_CLIENT_SECRET"),
})
type Given = Setting.Success<typeof variables>

/** Sign-in off: none of its other variables may be set, or the operator meant it on. */
const off = (given: Given): Either.Either<Option.Option<SignInSettingsShape>, Refused> => {
  for (const [name, value] of [
    ["SVC_MCP_PUBLIC_URL", given.publicUrl],
    ["SVC_MCP_OAUTH_AUDIENCE", given.audience],
    ["SVC_MCP_OAUTH_SCOPE_PREFIX", given.prefix],
    ["SVC_MCP_IDENTITIES", given.identities],
    ["SVC_MCP_OAUTH_PAGE_CLIENT_ID", given.pageClientId],
    ["SVC_MCP_OAUTH_PAGE_CLIENT_SECRET", Option.map(given.pageClientSecret, () => "set")],
  ] as const) {
    if (Option.isSome(value)) {
      return Either.left(
        refuse(name, "is set, but SVC_MCP_OAUTH_ISSUER is not", "set SVC_MCP_OAUTH_ISSUER to turn sign-in on"),
      )
    }
  }
  return Either.right(Option.none())
}

/** What sign-in excludes: a shared token, or keys sent with each request; either would leave a person unnamed. */
const excluded = (given: Given): Either.Either<void, Refused> => {
  if (Option.isSome(given.token)) {
    return Either.left(
      refuse(
        "SVC_MCP_TOKEN",
        "is set, and so is SVC_MCP_OAUTH_ISSUER",
        "unset SVC_MCP_TOKEN: with sign-in each person brings their own token, and a shared one would name nobody",
      ),
    )
  }
  if (Option.exists(given.credentials, (mode) => mode.trim().toLowerCase() === "per-request")) {
    return Either.left(
      refuse(
        "SVC_MCP_CREDENTIALS",
        "is per-request, and SVC_MCP_OAUTH_ISSUER is set",
        "unset SVC_MCP_CREDENTIALS: with sign-in each identity's service key comes from SVC_MCP_IDENTITIES",
      ),
    )
  }
  return Either.void
}

/** SVC_MCP_OAUTH_ISSUER's comma-separated issuers, each an http(s) URL kept as written. */
const issuersOf = (text: string): Either.Either<ReadonlyArray<string>, Refused> => {
  const issuers: Array<string> = []
  for (const part of commaList(text)) {
    const url = httpUrl("SVC_MCP_OAUTH_ISSUER", part, ISSUER_EXAMPLE)
    if (Either.isLeft(url)) return Either.left(url.left)
    issuers.push(part)
  }
  if (issuers.length === 0) {
    return Either.left(refuse("SVC_MCP_OAUTH_ISSUER", "names no issuer", `give e.g. ${ISSUER_EXAMPLE}`))
  }
  return Either.right(issuers)
}

/** The public base URL, without a trailing slash; required with sign-in, as the resource is named from it. */
const publicUrlOf = (given: Option.Option<string>): Either.Either<string, Refused> => {
  if (Option.isNone(given)) {
    return Either.left(
      refuse(
        "SVC_MCP_PUBLIC_URL",
        "is not set, and SVC_MCP_OAUTH_ISSUER is",
        "give the URL clients reach this server at, e.g. https://svc-mcp.example.com (the resource is its /mcp)",
      ),
    )
  }
  return Either.map(httpUrl("SVC_MCP_PUBLIC_URL", given.value.trim(), "https://svc-mcp.example.com"), (url) =>
    url.href.replace(/\/+$/, ""),
  )
}

const prefixOf = (given: Option.Option<string>): Either.Either<string, Refused> => {
  const prefix = Option.getOrElse(given, () => "").trim()
  return /\s/.test(prefix)
    ? Either.left(
        refuse("SVC_MCP_OAUTH_SCOPE_PREFIX", "holds white space", "give a prefix without spaces, e.g. api://svc-mcp/"),
      )
    : Either.right(prefix)
}

/** The identities file read and checked, so that a bad one stops the start; unset, everyone acts as the server. */
const identitiesOf = (
  path: Option.Option<string>,
  services: ReadonlyArray<string>,
  issuers: ReadonlyArray<string>,
): Either.Either<Identities.Identities, Refused> => {
  if (Option.isNone(path)) {
    return Either.right(issuers.length > 1 ? { ...Identities.everyoneAsServer, issuers } : Identities.everyoneAsServer)
  }
  return Either.mapLeft(Identities.load(path.value, services, issuers), (fault) =>
    refuse(
      "SVC_MCP_IDENTITIES",
      `(${JSON.stringify(path.value)}) ${fault}`,
      "fix the file; docs/sign-in.md shows its form",
    ),
  )
}

/** The pages' client: its id, and its secret when it is a confidential one; a secret without an id is refused. */
const pageClientOf = (given: Given): Either.Either<Option.Option<PageClient>, Refused> => {
  const id = Option.filter(
    Option.map(given.pageClientId, (text) => text.trim()),
    (text) => text !== "",
  )
  if (Option.isNone(id)) {
    return Option.isSome(given.pageClientSecret)
      ? Either.left(
          refuse(
            "SVC_MCP_OAUTH_PAGE_CLIENT_SECRET",
            "is set, but SVC_MCP_OAUTH_PAGE_CLIENT_ID is not",
            "set SVC_MCP_OAUTH_PAGE_CLIENT_ID too",
          ),
        )
      : Either.right(Option.none())
  }
  return Either.right(Option.some({ id: id.value, secret: given.pageClientSecret }))
}

const on = (given: Given, issuer: string, services: ReadonlyArray<string>) =>
  Either.gen(function* () {
    yield* excluded(given)
    const issuers = yield* issuersOf(issuer)
    const base = yield* publicUrlOf(given.publicUrl)
    const resource = `${base}/mcp`
    const scopePrefix = yield* prefixOf(given.prefix)
    const identitiesPath = Option.map(given.identities, (text) => text.trim())
    const identities = yield* identitiesOf(identitiesPath, services, issuers)
    const pageClient = yield* pageClientOf(given)
    return Option.some<SignInSettingsShape>({
      issuers,
      publicUrl: base,
      resource,
      audience: Option.getOrElse(given.audience, () => resource).trim(),
      scopePrefix,
      identitiesPath,
      identities,
      pageClient,
    })
  })

const config = (services: ReadonlyArray<string>) =>
  Setting.mapOrFail(variables, (given) =>
    Option.isNone(given.issuer) ? off(given) : on(given, given.issuer.value, services),
  )

/** The sign-in settings, or None when SVC_MCP_OAUTH_ISSUER is unset. `services`: SVC_SERVICES' names, if any. */
export const load = (
  services: ReadonlyArray<string> = [],
): Effect.Effect<Option.Option<SignInSettingsShape>, ConfigError> => read(config(services))

/** Whether SVC_MCP_OAUTH_ISSUER is set: sign-in is on over HTTP (its other settings are read by `load`). */
export const enabled: Effect.Effect<boolean, ConfigError> = read(
  Setting.map(optional("SVC_MCP_OAUTH_ISSUER"), Option.isSome),
)

/** Whether some identity's entry asks for a minted key (its server's credentials must then be an admin's). */
export const mints = (settings: Option.Option<SignInSettingsShape>): boolean =>
  Option.exists(settings, (s) =>
    [...s.identities.entries.values()].some((e) => e._tag === "All" && e.credentials._tag === "Mint"),
  )
