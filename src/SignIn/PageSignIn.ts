/**
 * A secret's page with sign-in: served on the HTTP server at `<public>/secrets/{id}`, it first
 * signs its person in, in their browser, at the issuer of the caller who asked (OpenID Connect's
 * authorization code with PKCE, as the client SVC_MCP_OAUTH_PAGE_CLIENT_ID; `state` and `nonce`
 * checked; the ID token verified with jose against the keys the issuer publishes), then opens
 * only for that identity, its issuer and subject (SecretPages.ts' `owner`). A client holding the
 * URL, which has no sign-in of the person's in a browser, is sent to sign in and sees nothing; so
 * is another person, once signed in. One-time and expiring as every page.
 *
 * What this process keeps, in memory alone and bounded: each sign-in under way by its `state`
 * (the PKCE verifier, the nonce, the page), used once, for SIGN_IN_MS, the browser that started
 * it holding a cookie named for it (so that a `state` carried to another browser signs no one
 * in); and each browser signed in for a page, by a random cookie scoped to that page's path,
 * for the page's lifetime. Only a page that is open and has an owner starts a sign-in: a flood of
 * made-up ids costs nothing. A secret's form (SignedInPages.ts) is signed in for the same way, by
 * its own path (`begin`, `visitor`).
 *
 * `jose` is loaded with the first sign-in's return, `node:crypto` with the first page opened.
 */
import type * as NodeHttp from "node:http"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Jose from "jose"
import { HEADERS, html, render } from "../Confirmation/SecretPageServer.js"
import { ID, type PageStore } from "../Confirmation/SecretPages.js"
import type { PageClient, SignInSettingsShape } from "../Settings/SignIn.js"
import * as ExpiringMap from "../Shared/ExpiringMap.js"
import { ALGORITHMS, SKEW_SECONDS } from "./Verifier.js"

/** Where the pages are, under the server's public URL; the issuer sends the browser back to CALLBACK. */
export const PREFIX = "/secrets/"
const CALLBACK = "/secrets/callback"

/** How long a sign-in may take, from the page's redirect to its return. */
const SIGN_IN_MS = 10 * 60_000

/** Sign-ins under way, and browsers signed in, held at once: past it the oldest is forgotten. */
const MOST = 1024

const FETCH_TIMEOUT_MS = 5_000

/** The cookie of a browser signed in for a page (its path is the page's), and the prefix of a sign-in's. */
const VISIT = "svc-mcp-page"
const STARTED = "svc-mcp-signin-"

export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string>>>
  readonly body: string
}

interface Flow {
  /** What it signs in for: a page's or a form's path, under the public URL's. */
  readonly path: string
  readonly issuer: string
  readonly verifier: string
  readonly nonce: string
}

interface Visit {
  readonly path: string
  readonly owner: string
}

/** What the issuer's OpenID Connect metadata names, and its keys. */
interface Provider {
  readonly authorize: string
  readonly token: string
  readonly keys: ReturnType<typeof Jose.createRemoteJWKSet>
}

export interface PageSignIn {
  /** The answer to a request under PREFIX: its method, its URL's path and query, its Cookie header. */
  readonly answer: (method: string, url: string, cookie: string | undefined) => Promise<Answer>
  /** Whom the browser of this Cookie header is signed in as for `path`; undefined when it is not. */
  readonly visitor: (path: string, cookie: string | undefined) => string | undefined
  /** A sign-in for `path`, which opens for `owner` alone, begun: the redirect to their issuer; none owning it, nothing. */
  readonly begin: (path: string, owner: string | undefined) => Promise<Answer>
}

const crypto = () => process.getBuiltinModule("node:crypto")
const random = () => crypto().randomBytes(16).toString("base64url")

export const nothing = (headers: Record<string, string | ReadonlyArray<string>> = {}): Answer => {
  const { status, body } = render({ _tag: "Nothing" })
  return { status, headers: { ...HEADERS, ...headers }, body }
}

const unavailable = (why: string): Answer => ({
  status: 503,
  headers: { ...HEADERS, "retry-after": "5" },
  body: html("Cannot sign in now", `<h1>Cannot sign in now</h1><p>${why}; reload this page in a moment.</p>`),
})

const cookiesOf = (header: string | undefined): ReadonlyMap<string, string> =>
  new Map(
    (header ?? "")
      .split(";")
      .map((part) => part.trim())
      .filter((part) => part.includes("="))
      .map((part) => [part.slice(0, part.indexOf("=")), part.slice(part.indexOf("=") + 1)] as const),
  )

const getJson = async (fetcher: typeof fetch, url: string, init: RequestInit = {}): Promise<unknown> => {
  const response = await fetcher(url, {
    ...init,
    headers: { accept: "application/json", ...init.headers },
    redirect: "error",
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  })
  if (!response.ok) throw new Error(`${new URL(url).origin} answered ${response.status}`)
  return response.json()
}

const str = (value: unknown, key: string): string | undefined => {
  const found = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
  return typeof found === "string" ? found : undefined
}

/** The issuer's endpoints from its OpenID Connect metadata, which must name this issuer. */
const discover = async (fetcher: typeof fetch, issuer: string): Promise<Provider> => {
  const metadata = await getJson(fetcher, `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`)
  const [authorize, token, jwks] = ["authorization_endpoint", "token_endpoint", "jwks_uri"].map((k) => str(metadata, k))
  if (str(metadata, "issuer") !== issuer || authorize === undefined || token === undefined || jwks === undefined) {
    throw new Error(`the metadata of ${issuer} does not name it, or names no authorization, token or key endpoint`)
  }
  const jose = await import("jose")
  const keys = jose.createRemoteJWKSet(new URL(jwks), {
    timeoutDuration: FETCH_TIMEOUT_MS,
    [jose.customFetch]: fetcher,
  })
  return { authorize, token, keys }
}

/** The code exchanged at the token endpoint, as the pages' client (its secret by HTTP Basic, RFC 6749 2.3.1). */
const exchange = async (
  fetcher: typeof fetch,
  provider: Provider,
  client: PageClient,
  form: Record<string, string>,
) => {
  const encoded = (text: string) => encodeURIComponent(text)
  const basic = Option.map(client.secret, (secret) =>
    Buffer.from(`${encoded(client.id)}:${encoded(Redacted.value(secret))}`).toString("base64"),
  )
  return getJson(fetcher, provider.token, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(Option.isSome(basic) ? { authorization: `Basic ${basic.value}` } : {}),
    },
    body: new URLSearchParams({ ...form, ...(Option.isNone(basic) ? { client_id: client.id } : {}) }),
  })
}

/** Whom the ID token names, as a page's owner, when it verifies: the issuer's, for this client, with this nonce. */
const ownerOf = async (provider: Provider, client: PageClient, flow: Flow, idToken: string, now: number) => {
  const jose = await import("jose")
  const { payload } = await jose.jwtVerify(idToken, provider.keys, {
    issuer: flow.issuer,
    audience: client.id,
    algorithms: ALGORITHMS,
    clockTolerance: SKEW_SECONDS,
    currentDate: new Date(now),
    requiredClaims: ["sub", "exp", "iat", "nonce"],
  })
  if (payload.nonce !== flow.nonce) throw new Error("the ID token's nonce is not this sign-in's")
  // An ID token for several audiences names the client it was issued to (OpenID Connect Core 3.1.3.7).
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== client.id) {
    throw new Error("the ID token was issued to another client")
  }
  return JSON.stringify([flow.issuer, payload.sub])
}

interface Held {
  readonly settings: SignInSettingsShape
  readonly client: PageClient
  readonly store: PageStore
  readonly now: () => number
  readonly fetcher: typeof fetch
  readonly flows: ExpiringMap.ExpiringMap<string, Flow>
  readonly visits: ExpiringMap.ExpiringMap<string, Visit>
  readonly provider: (issuer: string) => Promise<Provider>
}

/** A cookie of `path` under the public URL's own path (a proxy may serve the server under one). */
const cookie = (held: Held, name: string, value: string, path: string, maxAgeMs: number) =>
  `${name}=${value}; Path=${new URL(held.settings.publicUrl).pathname.replace(/\/+$/, "")}${path}; Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}; HttpOnly; SameSite=Lax${
    held.settings.publicUrl.startsWith("https:") ? "; Secure" : ""
  }`

/** A page opened: shown to the browser signed in as its owner; else, when it is open and owned, a sign-in begun. */
const page = async (held: Held, id: string, cookies: ReadonlyMap<string, string>): Promise<Answer> => {
  const now = held.now()
  const path = `${PREFIX}${id}`
  const token = cookies.get(VISIT)
  const visit = token === undefined ? undefined : held.visits.get(token, now)
  if (token !== undefined && visit?.path === path) {
    const opened = held.store.open(id, now, visit.owner)
    if (opened._tag !== "Pending") held.visits.delete(token)
    const { status, body } = render(opened)
    return { status, headers: HEADERS, body }
  }
  return begin(held, path, held.store.ownerOf(id, now))
}

/** A sign-in for `path` begun, at the issuer of `owner`: the redirect there; none owning it, nothing. */
const begin = async (held: Held, path: string, owner: string | undefined): Promise<Answer> => {
  const now = held.now()
  const issuer = owner === undefined ? undefined : (JSON.parse(owner) as ReadonlyArray<string>)[0]
  if (issuer === undefined) return nothing()
  let provider: Provider
  try {
    provider = await held.provider(issuer)
  } catch {
    return unavailable("The identity provider cannot be reached")
  }
  const state = random()
  const flow: Flow = { path, issuer, verifier: crypto().randomBytes(32).toString("base64url"), nonce: random() }
  held.flows.set(state, flow, now)
  const location = new URL(provider.authorize)
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: held.client.id,
    redirect_uri: `${held.settings.publicUrl}${CALLBACK}`,
    scope: "openid",
    state,
    nonce: flow.nonce,
    code_challenge: crypto().createHash("sha256").update(flow.verifier).digest("base64url"),
    code_challenge_method: "S256",
  })) {
    location.searchParams.set(key, value)
  }
  return {
    status: 302,
    headers: {
      ...HEADERS,
      location: location.href,
      "set-cookie": cookie(held, `${STARTED}${state}`, "1", CALLBACK, SIGN_IN_MS),
    },
    body: html("Sign in", "<h1>Sign in</h1><p>This page opens once you have signed in.</p>"),
  }
}

/** The issuer's return: the sign-in this browser began, taken once; its code exchanged, its ID token verified. */
const returned = async (held: Held, query: URLSearchParams, cookies: ReadonlyMap<string, string>): Promise<Answer> => {
  const state = query.get("state") ?? ""
  const flow = held.flows.get(state, held.now())
  held.flows.delete(state)
  const code = query.get("code")
  if (flow === undefined || cookies.get(`${STARTED}${state}`) !== "1" || code === null) return nothing()
  const cleared = cookie(held, `${STARTED}${state}`, "", CALLBACK, 0)
  let owner: string
  try {
    const provider = await held.provider(flow.issuer)
    const tokens = await exchange(held.fetcher, provider, held.client, {
      grant_type: "authorization_code",
      code,
      redirect_uri: `${held.settings.publicUrl}${CALLBACK}`,
      code_verifier: flow.verifier,
    })
    const idToken = str(tokens, "id_token")
    if (idToken === undefined) throw new Error("no ID token")
    owner = await ownerOf(provider, held.client, flow, idToken, held.now())
  } catch {
    return nothing({ "set-cookie": cleared })
  }
  const now = held.now()
  const token = random()
  held.visits.set(token, { path: flow.path, owner }, now)
  const path = flow.path
  return {
    status: 303,
    headers: {
      ...HEADERS,
      location: `${held.settings.publicUrl}${path}`,
      "set-cookie": [cleared, cookie(held, VISIT, token, path, held.store.lifetimeMs)],
    },
    body: html("Signed in", "<h1>Signed in</h1><p>On to the page.</p>"),
  }
}

/** The pages' sign-in over `store`, when sign-in names a client for it; none otherwise. */
export const make = (
  settings: SignInSettingsShape,
  store: PageStore,
  now: () => number = Date.now,
  fetcher: typeof fetch = globalThis.fetch,
): Option.Option<PageSignIn> =>
  Option.map(settings.pageClient, (client) => {
    const providers = new Map<string, Promise<Provider>>()
    const provider = (issuer: string) => {
      const found = providers.get(issuer) ?? discover(fetcher, issuer)
      providers.set(issuer, found)
      // Metadata that could not be read is read again on the next sign-in.
      found.catch(() => providers.delete(issuer))
      return found
    }
    const held: Held = {
      settings,
      client,
      store,
      now,
      fetcher,
      flows: ExpiringMap.make({ ttlMs: SIGN_IN_MS, most: MOST }),
      visits: ExpiringMap.make({ ttlMs: store.lifetimeMs, most: MOST }),
      provider,
    }
    return {
      answer: async (method, url, header) => {
        if (method !== "GET" && method !== "HEAD") return nothing({ allow: "GET, HEAD" })
        const parsed = new URL(url, "http://pages.invalid")
        const cookies = cookiesOf(header)
        if (parsed.pathname === CALLBACK) return returned(held, parsed.searchParams, cookies)
        const id = parsed.pathname.slice(PREFIX.length)
        return parsed.pathname.startsWith(PREFIX) && ID.test(id) ? page(held, id, cookies) : nothing()
      },
      visitor: (path, header) => {
        const token = cookiesOf(header).get(VISIT)
        const visit = token === undefined ? undefined : held.visits.get(token, held.now())
        return visit?.path === path ? visit.owner : undefined
      },
      begin: (path, owner) => begin(held, path, owner),
    }
  })

/** A request under PREFIX answered on the node server. */
export const serve = (pages: PageSignIn) => async (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => {
  const method = req.method ?? "GET"
  const { status, headers, body } = await pages.answer(method, req.url ?? "/", req.headers.cookie)
  res.writeHead(status, headers as NodeHttp.OutgoingHttpHeaders).end(method === "HEAD" ? undefined : body)
}
