/**
 * A person signed in to svc-mcp's own pages (a secret's page, a secret's form) at a test issuer
 * (oidc-provider, AuthServer.ts), as the secret-page tests of every lane set one up: the pages'
 * client the issuer knows, its return at `<base>/secrets/callback`; the pages on a node server of
 * the test's own (unit, integration) or the built server's settings (e2e); the person's access
 * token for the MCP client; a visit in a browser of their own (Browser.ts, its cookies its own);
 * (Browser.csrfOf reads a form's CSRF token).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Identities from "../../src/Settings/Identities.js"
import type { SignInSettingsShape } from "../../src/Settings/SignIn.js"
import * as AuthServer from "./AuthServer.js"
import * as Browser from "./Browser.js"
import * as Ports from "./Ports.js"
import * as Servers from "./Servers.js"

/** The pages' own client at the issuer (SVC_MCP_OAUTH_PAGE_CLIENT_ID and its secret). */
export const CLIENT = { id: "svc-mcp-pages", secret: "pages-secret-0001" } as const

/** An issuer that knows the pages' client, its return at `base`; `forms`, its login and consent filled in by a browser. */
export const issuer = (base: string, options: { readonly forms?: boolean } = {}) =>
  AuthServer.scoped({
    resource: `${base}/mcp`,
    clients: [],
    webClients: [{ ...CLIENT, redirectUri: `${base}/secrets/callback` }],
    ...(options.forms === true ? { forms: true } : {}),
  })

/** A node server of the test's own on 127.0.0.1 for the length of the scope, its connections ended with it. */
export const loopback = Effect.gen(function* () {
  const server = Http.createServer()
  yield* Effect.acquireRelease(
    Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
    () => Effect.promise(() => Servers.close(server)),
  )
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
})

/** The sign-in settings of pages at `base`, signing everyone in at `issuer` with the pages' client. */
export const settings = (base: string, issuer: string): SignInSettingsShape => ({
  issuers: [issuer],
  publicUrl: base,
  resource: `${base}/mcp`,
  audience: `${base}/mcp`,
  scopePrefix: "",
  identitiesPath: Option.none(),
  identities: Identities.everyoneAsServer,
  pageClient: Option.some({ id: CLIENT.id, secret: Option.some(Redacted.make(CLIENT.secret)) }),
})

/** Who owns a page of `login`'s, signed in at `issuer`, as the pages name them. */
export const ownerOf = (issuer: string, login: string) => JSON.stringify([issuer, login])

/**
 * The built server's address on a free port, and an issuer for its pages: the settings that sign
 * people in there, with the pages' client unless `pageClient` is false.
 */
export const served = (pageClient = true) =>
  Effect.gen(function* () {
    const port = yield* Effect.promise(Ports.freePort)
    const base = `http://127.0.0.1:${port}`
    const as = yield* issuer(base)
    const env: Record<string, string> = {
      SVC_MCP_HTTP_PORT: String(port),
      SVC_MCP_OAUTH_ISSUER: as.issuer,
      SVC_MCP_PUBLIC_URL: base,
      ...(pageClient
        ? { SVC_MCP_OAUTH_PAGE_CLIENT_ID: CLIENT.id, SVC_MCP_OAUTH_PAGE_CLIENT_SECRET: CLIENT.secret }
        : {}),
    }
    return { as, base, resource: `${base}/mcp`, env }
  })

/** `login`'s access token for `resource`, from `as`, for ten minutes: the `authorization` header their MCP client sends. */
export const authorization = (as: AuthServer.AuthServer, resource: string, login = "alice") =>
  Effect.promise(() => {
    const now = Math.floor(Date.now() / 1000)
    return AuthServer.sign(as.key(), {
      iss: as.issuer,
      aud: resource,
      sub: login,
      email: AuthServer.emailOf(login),
      scope: "svc.read svc.operate svc.write",
      iat: now,
      exp: now + 600,
    })
  }).pipe(Effect.map((token) => `Bearer ${token}`))

/** `login` at `as`, in `browser` (one of their own unless given), opening `url`. */
export const visitor =
  (as: AuthServer.AuthServer) =>
  (login: string, url: string, browser: Browser.Browser = Browser.make()): Effect.Effect<Browser.Visited> =>
    Effect.promise(() => {
      as.login = login
      return browser.open(url)
    })
