/**
 * The SDK v2 client's own OAuth flow against the built server and a real
 * authorization server (oidc-provider), from a bare 401: the resource's
 * metadata, the authorization server's, dynamic client registration, the
 * authorization code with PKCE (the login and consent answered by the test's
 * authorization server, the browser's redirects followed here with fetch),
 * then a tool call; in both protocol eras.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Jose from "jose"
import * as AuthServer from "../support/AuthServer.js"
import * as Ports from "../support/Ports.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const SERVER_KEY = { key: "server-key-0001", secret: "server-secret-0001" }
const REDIRECT = "http://127.0.0.1:1/callback"

/** The resource's URL must be known before the server starts. */
const freePort = () => Effect.promise(Ports.freePort)

type Stored = Parameters<OAuthClientProvider["saveTokens"]>[0]
type Registered = Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>[0]

/** A client that keeps what the flow gives it in memory, and records where it was sent to sign in. */
class MemoryProvider implements OAuthClientProvider {
  registered: Registered | undefined
  stored: Stored | undefined
  verifier = ""
  authorizationUrl: URL | undefined
  get redirectUrl() {
    return REDIRECT
  }
  get clientMetadata() {
    return {
      client_name: "svc-mcp sign-in test",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }
  }
  clientInformation() {
    return this.registered
  }
  saveClientInformation(information: Registered) {
    this.registered = information
  }
  tokens() {
    return this.stored
  }
  saveTokens(tokens: Stored) {
    this.stored = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

/** The user at the browser: follows the authorization server's redirects, cookies kept, to the redirect URI. */
const browse = async (start: URL): Promise<URLSearchParams> => {
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
    if (target.href.startsWith(REDIRECT)) return target.searchParams
    next = target.href
  }
  throw new Error("too many redirects")
}

describe("the SDK v2 client signs in by itself, from a bare 401", () => {
  for (const era of ["legacy", "modern"] as const) {
    it.scopedLive(
      `${era === "modern" ? "2026-07-28" : "2025-11-25"}: discovery, registration, code with PKCE, then a call`,
      () =>
        Effect.gen(function* () {
          const port = yield* freePort()
          const base = `http://127.0.0.1:${port}`
          const resource = `${base}/mcp`
          const as = yield* AuthServer.scoped({ resource, clients: [] })
          as.login = "dana"
          const double = yield* Double.scoped({ apiKeys: [SERVER_KEY] })
          yield* Spawn.serveHttp({
            SVC_URL: double.url,
            SVC_API_KEY: SERVER_KEY.key,
            SVC_API_SECRET: SERVER_KEY.secret,
            SVC_MCP_HTTP_PORT: String(port),
            SVC_MCP_OAUTH_ISSUER: as.issuer,
            SVC_MCP_PUBLIC_URL: base,
          })
          const provider = new MemoryProvider()
          const newClient = () =>
            new Client(
              { name: "signin-flow", version: "1.0.0" },
              era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
            )
          const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider })
          const refused = yield* Effect.promise(() =>
            newClient()
              .connect(first)
              .then(
                () => undefined,
                (error: unknown) => error,
              ),
          )
          expect(refused).toBeInstanceOf(UnauthorizedError)
          // It found the authorization server through the resource metadata and registered itself there.
          expect(provider.registered?.client_id).toEqual(expect.any(String))
          const url = provider.authorizationUrl as URL
          expect(url.origin).toBe(as.issuer)
          expect(url.searchParams.get("resource")).toBe(resource)
          expect(url.searchParams.get("code_challenge_method")).toBe("S256")
          expect(url.searchParams.get("scope")).toBe("svc.read")
          expect(double.requests).toHaveLength(0)

          const callback = yield* Effect.promise(() => browse(url))
          expect(callback.get("code")).toEqual(expect.any(String))
          yield* Effect.promise(() => first.finishAuth(callback))
          const token = provider.stored?.access_token as string
          const claims = Jose.decodeJwt(token)
          expect(claims.aud).toBe(resource)
          expect(claims.sub).toBe("dana")

          const client = newClient()
          yield* Effect.acquireRelease(
            Effect.promise(() =>
              client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider })),
            ),
            () => Effect.promise(() => client.close()),
          )
          const listed = yield* Effect.promise(() =>
            client.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }),
          )
          expect(listed.isError).toBeFalsy()
          expect(double.calls()).toHaveLength(1)
          expect(double.calls()[0]?.headers.authorization).toBeUndefined()
        }),
    )
  }
})
