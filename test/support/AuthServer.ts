/**
 * A real authorization server for the sign-in tests: oidc-provider on
 * 127.0.0.1, issuing JWT access tokens for a resource (resource indicators),
 * with client credentials for non-interactive tokens, dynamic registration and
 * the authorization code flow with PKCE, whose login and consent are answered
 * here without a browser (`/interaction/<uid>` signs in as the `login` given), or
 * by a real one at oidc-provider's own forms (`forms`).
 *
 * Its signing keys are the test's own (`keys`), so that a test can also sign
 * tokens with them that the server would not issue (wrong audience, expired),
 * and `rotate` replaces the provider with one that signs with a new key.
 *
 * For a server in a container, `issuerHost` names the issuer by a host the
 * containers reach the host at (host.containers.internal): it then listens on
 * every address, and the test itself still reaches it on 127.0.0.1 (`local`).
 */
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Jose from "jose"
import Provider, { type Configuration } from "oidc-provider"
import * as Servers from "./Servers.js"

const SCOPES = "svc.read svc.operate svc.write"

interface Client {
  readonly id: string
  readonly secret: string
}

export interface SigningKey {
  readonly kid: string
  readonly privateJwk: Jose.JWK
  readonly publicJwk: Jose.JWK
  readonly privateKey: Jose.CryptoKey
}

const generate = async (kid: string, alg: "RS256" | "ES256"): Promise<SigningKey> => {
  const pair = await Jose.generateKeyPair(alg, { extractable: true })
  const privateJwk = { ...(await Jose.exportJWK(pair.privateKey)), kid, alg, use: "sig" }
  const publicJwk = { ...(await Jose.exportJWK(pair.publicKey)), kid, alg, use: "sig" }
  return { kid, privateJwk, publicJwk, privateKey: pair.privateKey as Jose.CryptoKey }
}

/**
 * One key per kid and algorithm in a process, made on first use: an RSA key takes a fifth of a
 * second to make, and each server of a test file would otherwise make its "key-1" again. A key
 * of another kid is another key.
 */
const made = new Map<string, Promise<SigningKey>>()

/** Rotations so far in this process: each names a kid no server of it had, whatever `Date` says. */
let rotations = 1

export const makeKey = (kid: string, alg: "RS256" | "ES256" = "RS256"): Promise<SigningKey> => {
  const key = `${alg} ${kid}`
  const found = made.get(key) ?? generate(kid, alg)
  made.set(key, found)
  // A key that could not be made is made again when next asked for.
  found.catch(() => made.delete(key))
  return found
}

export interface AuthServer {
  readonly issuer: string
  /** Where the test reaches it: the issuer's URL, or 127.0.0.1's where `issuerHost` names another host. */
  readonly local: string
  /** The key tokens are signed with now (the first of the published ones). */
  readonly key: () => SigningKey
  /** Requests to the JWKS so far. */
  readonly jwksFetches: () => number
  /** A token by client credentials for `resource` with these scopes. */
  readonly clientToken: (client: Client, scope: string, resource?: string) => Promise<string>
  /**
   * A person signs in as `login` through a public client, as at a browser: the authorization code
   * with PKCE, login and consent answered here. The access token for `resource` with `scope`.
   */
  readonly signIn: (client: PublicClient, login: string, scope: string, resource?: string) => Promise<string>
  /** Publishes a new key first (the old one too, or alone), and signs with it from now on. */
  readonly rotate: (options?: { readonly keepOld?: boolean }) => Promise<SigningKey>
  /** Makes the JWKS answer 500 (true) or normally (false). */
  readonly failJwks: (fail: boolean) => void
  /** The account the next interactive login signs in as. */
  login: string
}

interface PublicClient {
  readonly id: string
  readonly redirectUri: string
}

export interface AuthServerOptions {
  readonly resource: string
  readonly clients: ReadonlyArray<Client>
  /** Public clients (PKCE) with their redirect URIs. */
  readonly publicClients?: ReadonlyArray<PublicClient>
  /** The host the issuer's URL names, reached from elsewhere: it then listens on every address. */
  readonly issuerHost?: string
  /** Confidential clients of the authorization code (PKCE too), as a web server is, e.g. the secret pages'. */
  readonly webClients?: ReadonlyArray<Client & { readonly redirectUri: string }>
  /** oidc-provider's own login and consent forms, for a real browser to fill in, instead of answering them here. */
  readonly forms?: boolean
}

/** An `email` claim for each token: the account's, or the client's for client credentials. */
export const emailOf = (name: string) => `${name}@example.com`

const settingsOf = (options: AuthServerOptions, keys: ReadonlyArray<SigningKey>) => ({
  clients: [
    ...options.clients.map((client) => ({
      client_id: client.id,
      client_secret: client.secret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      scope: SCOPES,
    })),
    ...(options.publicClients ?? []).map((client) => ({
      client_id: client.id,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      redirect_uris: [client.redirectUri],
      response_types: ["code" as const],
      scope: `openid ${SCOPES}`,
    })),
    ...(options.webClients ?? []).map((client) => ({
      client_id: client.id,
      client_secret: client.secret,
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code"],
      redirect_uris: [client.redirectUri],
      response_types: ["code" as const],
      scope: "openid",
    })),
  ],
  jwks: { keys: keys.map((key) => key.privateJwk) },
  scopes: ["openid", ...SCOPES.split(" ")],
  claims: { openid: ["sub"], email: ["email"] },
  features: {
    devInteractions: { enabled: options.forms === true },
    clientCredentials: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: unknown) => oneOf ?? options.resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx: unknown, resource: string) =>
        resource === "urn:opaque"
          ? { scope: SCOPES, accessTokenFormat: "opaque" }
          : { scope: SCOPES, audience: resource, accessTokenTTL: 600, accessTokenFormat: "jwt" },
    },
  },
  // biome-ignore lint/suspicious/noExplicitAny: oidc-provider's token model
  extraTokenClaims: async (_ctx: unknown, token: any) => ({
    email: emailOf(token.accountId ?? token.clientId),
  }),
  findAccount: async (_ctx: unknown, id: string) => ({
    accountId: id,
    claims: async () => ({ sub: id, email: emailOf(id) }),
  }),
  pkce: { required: () => true },
  // Tokens without a refresh: a test asks again when it needs another.
  issueRefreshToken: async () => false,
})

// The settings are written as oidc-provider's documentation gives them; its types are stricter than its runtime.
const configuration = (options: AuthServerOptions, keys: ReadonlyArray<SigningKey>) =>
  settingsOf(options, keys) as unknown as Configuration

/** Signs in as `server.login` and consents to everything asked: the user at the browser. */
const interact = async (
  provider: Provider,
  server: AuthServer,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
) => {
  const details = await provider.interactionDetails(req, res)
  if (details.prompt.name === "login") {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: server.login } },
      { mergeWithLastSubmission: false },
    )
    return
  }
  const accountId = details.session?.accountId as string
  const clientId = details.params.client_id as string
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId })
  if (grant === undefined) throw new Error("no grant")
  const missing = details.prompt.details as {
    missingOIDCScope?: ReadonlyArray<string>
    missingResourceScopes?: Record<string, ReadonlyArray<string>>
  }
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "))
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(" "))
  }
  const grantId = await grant.save()
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
}

/** The authorization server on 127.0.0.1, for the length of a scope. */
export const scoped = (options: AuthServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => start(options)),
    ({ close }) => Effect.promise(close),
  ).pipe(Effect.map(({ server }) => server))

/** The browser: follows the authorization server's redirects, cookies kept, to the redirect URI; its query. */
const browse = async (start: URL, redirectUri: string): Promise<URLSearchParams> => {
  const cookies = new Map<string, string>()
  let next = start.href
  for (let hop = 0; hop < 12; hop++) {
    const response = await fetch(next, {
      redirect: "manual",
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
    })
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";")
      const at = pair.indexOf("=")
      cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
    const location = response.headers.get("location")
    if (location === null) throw new Error(`no redirect from ${next}: ${response.status} ${await response.text()}`)
    const target = new URL(location, next)
    if (target.href.startsWith(redirectUri)) return target.searchParams
    next = target.href
  }
  throw new Error("too many redirects")
}

/** A token from the token endpoint at `local`, or the error it answered. */
const tokenFrom = async (local: string, body: URLSearchParams, headers: Record<string, string> = {}) => {
  const response = await fetch(`${local}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  })
  const answer = (await response.json()) as { access_token?: string; error?: string; error_description?: string }
  if (answer.access_token === undefined) throw new Error(`no token: ${answer.error}: ${answer.error_description}`)
  return answer.access_token
}

/** The authorization code with PKCE, as a public client and the person at its browser get it. */
const codeFlow = async (local: string, client: PublicClient, scope: string, resource: string) => {
  const verifier = Crypto.randomBytes(32).toString("base64url")
  const authorize = new URL(`${local}/auth`)
  for (const [name, value] of Object.entries({
    client_id: client.id,
    response_type: "code",
    redirect_uri: client.redirectUri,
    scope,
    resource,
    code_challenge: Crypto.createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  }))
    authorize.searchParams.set(name, value)
  const callback = await browse(authorize, client.redirectUri)
  const code = callback.get("code")
  if (code === null) throw new Error(`no code: ${callback}`)
  return tokenFrom(
    local,
    new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
      client_id: client.id,
      resource,
    }),
  )
}

export const start = async (options: AuthServerOptions) => {
  const http = Http.createServer()
  const everywhere = options.issuerHost !== undefined
  await new Promise<void>((resolve) => http.listen(0, everywhere ? "0.0.0.0" : "127.0.0.1", resolve))
  const port = (http.address() as AddressInfo).port
  const local = `http://127.0.0.1:${port}`
  const issuer = everywhere ? `http://${options.issuerHost}:${port}` : local
  let keys = [await makeKey("key-1")]
  let provider = new Provider(issuer, configuration(options, keys))
  let fetches = 0
  let failing = false
  const server: AuthServer = {
    issuer,
    local,
    key: () => keys[0] as SigningKey,
    jwksFetches: () => fetches,
    clientToken: (client, scope, resource = options.resource) =>
      tokenFrom(local, new URLSearchParams({ grant_type: "client_credentials", scope, resource }), {
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`,
      }),
    signIn: (client, login, scope, resource = options.resource) => {
      server.login = login
      return codeFlow(local, client, scope, resource)
    },
    rotate: async ({ keepOld = true } = {}) => {
      const next = await makeKey(`key-${++rotations}`)
      keys = keepOld ? [next, ...keys] : [next]
      provider = new Provider(issuer, configuration(options, keys))
      return next
    },
    failJwks: (fail) => {
      failing = fail
    },
    login: "alice",
  }
  http.on("request", (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/"
    if (path === "/jwks") {
      fetches++
      if (failing) {
        res.writeHead(500).end()
        return
      }
    }
    if (path.startsWith("/interaction/") && options.forms !== true) {
      interact(provider, server, req, res).catch((error: unknown) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(error))
      })
      return
    }
    provider.callback()(req, res)
  })
  const close = () => Servers.close(http)
  return { server, close }
}

/** Signs `claims` with `key` as the authorization server would, or as it never would. */
export const sign = (
  key: Pick<SigningKey, "kid" | "privateKey">,
  claims: Jose.JWTPayload,
  options: { readonly alg?: string; readonly typ?: string } = {},
) =>
  new Jose.SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? "RS256", kid: key.kid, typ: options.typ ?? "at+jwt" })
    .sign(key.privateKey)
