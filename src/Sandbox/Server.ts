/**
 * The sandbox: an in-memory service on 127.0.0.1 with the real service's wire
 * behaviour: its paths and endpoint names, both auth methods for two users (an
 * admin and a read-only viewer), its refusals (401, the rate limiter's 429, JWT
 * expiry answered as 500), params decoded as its deserializer decodes them,
 * answers completed to its definitions, unknown endpoints as unknown variants.
 */
import { randomBytes } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Docker from "./Docker.js"
import * as Executions from "./Executions.js"
import * as Reads from "./Reads.js"
import * as Resources from "./Resources.js"
import * as Schema from "./Schema.js"
import { seed } from "./Seed.js"
import { type Caller, type Params, ServiceFailure } from "./Store.js"
import { World } from "./World.js"

export interface Credentials {
  readonly apiKey: { readonly key: string; readonly secret: string }
  readonly username: string
  readonly password: string
}

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  /** The admin's API key and login. */
  readonly apiKey?: { readonly key: string; readonly secret: string }
  readonly username?: string
  readonly password?: string
  /** The lifetime of a login's token; the service's default is a day. */
  readonly jwtTtlMs?: number
  /** Answer as a service of this version; below 2.3.3, seven endpoints are missing. */
  readonly version?: string
  readonly timing?: Executions.Timing
  /** The rate limiter's window; the service's is 15 s. */
  readonly rateLimitWindowMs?: number
}

export interface Sandbox extends Credentials {
  readonly url: string
  readonly version: string
  /** The second user: not an admin, may read everything and change nothing. */
  readonly viewer: Credentials
  readonly world: World
  /** Logins answered so far. */
  readonly logins: () => number
  /** Ends every token issued so far, as the service does when it restarts with a new secret. */
  readonly expireTokens: () => void
  readonly close: () => Promise<void>
}

export const DEFAULTS = {
  apiKey: { key: "sandbox-key", secret: "sandbox-secret" },
  username: "admin",
  password: "sandbox-password",
} as const

export const VIEWER: Credentials = {
  apiKey: { key: "viewer-key", secret: "viewer-secret" },
  username: "viewer",
  password: "viewer-password",
}

/** The API version the sandbox answers as by default: the one interface.md is written for. */
export const VERSION = "2.3.3"

/** Failed authentications from one address that lock it out, within the window. */
const ATTEMPTS = 5

const LOGIN = "auth/login/LoginLocalUser"
const MAX_BODY = 4 * 1024 * 1024

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const send = (res: Http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const fail = (res: Http.ServerResponse, failure: ServiceFailure) =>
  send(res, failure.status, { error: failure.error, trace: failure.trace })

const compare = (a: string, b: string) => {
  const pa = a.split(".").map(Number)
  const pb = b.split(".").map(Number)
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

/** Failed authentications per address, and the 429 the service answers once they are too many. */
class RateLimiter {
  private readonly failures = new Map<string, Array<number>>()

  constructor(private readonly windowMs: number) {}

  private recent(address: string, now: number): Array<number> {
    const kept = (this.failures.get(address) ?? []).filter((t) => t > now - this.windowMs)
    if (kept.length === 0) this.failures.delete(address)
    else this.failures.set(address, kept)
    return kept
  }

  /** The 429 for a locked-out address, else undefined. */
  locked(address: string): ServiceFailure | undefined {
    const now = Date.now()
    const recent = this.recent(address, now)
    if (recent.length < ATTEMPTS) return undefined
    const seconds = Math.max(1, Math.ceil(((recent[0] ?? now) + this.windowMs - now) / 1000))
    return new ServiceFailure(429, `Too many attempts | Try again in ${seconds}s`)
  }

  /** Counts one failure; `error` gets the attempts left, as the service's message does. */
  failed(address: string, status: number, error: string): ServiceFailure {
    const now = Date.now()
    const recent = [...this.recent(address, now), now]
    this.failures.set(address, recent)
    return new ServiceFailure(status, `${error} | You have ${Math.max(0, ATTEMPTS - recent.length)} attempts remaining`)
  }
}

/** The 2.3.3 endpoints a 2.3.2 service lacks: those its published definitions (2.3.2) give no answer for. */
const addedIn233 = () =>
  Object.entries(Schema.document().endpoints)
    .filter(([, d]) => d.response === null)
    .map(([endpoint]) => endpoint)

export const start = async (options: SandboxOptions = {}): Promise<Sandbox> => {
  const admin: Credentials = {
    apiKey: options.apiKey ?? DEFAULTS.apiKey,
    username: options.username ?? DEFAULTS.username,
    password: options.password ?? DEFAULTS.password,
  }
  const version = options.version ?? VERSION
  const ttl = options.jwtTtlMs ?? 24 * 60 * 60 * 1000
  const limiter = new RateLimiter(options.rateLimitWindowMs ?? 15_000)
  const world = new World()
  const users = seed(world)
  const callerOf = (username: "admin" | "viewer"): Caller => {
    const user = users.find((u) => u.username === username)
    return { id: user?._id.$oid ?? "", username, admin: user?.admin === true }
  }
  const accounts = [
    { credentials: admin, caller: callerOf("admin") },
    { credentials: VIEWER, caller: callerOf("viewer") },
  ]
  const created = world.now()
  const apiKeys = (caller: Caller) =>
    accounts
      .filter((a) => a.caller.id === caller.id)
      .map((a) => ({
        name: `${a.caller.username}-key`,
        key: a.credentials.apiKey.key,
        secret: "",
        user_id: a.caller.id,
        created_at: created,
        expires: 0,
      }))
  const coreInfo = () => ({
    title: "Sandbox",
    monitoring_interval: "15-sec",
    webhook_base_url: "",
    transparent_mode: false,
    ui_write_disabled: false,
    disable_non_admin_create: false,
    disable_confirm_dialog: false,
    disable_websocket_reconnect: false,
    enable_fancy_toml: false,
    timezone: "UTC",
    public_key: "",
    default_pagination_limit: Resources.DEFAULT_PAGE,
  })
  const routes = new Map<string, Resources.Handler>([
    ...Resources.handlers(world),
    ...Executions.handlers(world, options.timing),
    ...Reads.handlers(world),
    ...Docker.handlers(world, apiKeys),
    ["read/GetVersion", () => ({ version })],
    ["read/GetCoreInfo", coreInfo],
  ])
  if (compare(version, VERSION) < 0) for (const endpoint of addedIn233()) routes.delete(endpoint)

  const tokens = new Map<string, { expires: number; caller: Caller }>()
  let logins = 0

  const login = (res: Http.ServerResponse, address: string, body: unknown) => {
    logins++
    const locked = limiter.locked(address)
    if (locked !== undefined) return fail(res, locked)
    const params = Schema.decodeRequest(LOGIN, body) as { username: string; password: string }
    const account = accounts.find(
      (a) => a.credentials.username === params.username && a.credentials.password === params.password,
    )
    if (account === undefined) return fail(res, limiter.failed(address, 401, "Invalid login credentials"))
    const iat = Date.now()
    const header = base64url({ alg: "HS256", typ: "JWT" })
    const claims = base64url({ id: account.caller.id, iat, exp: iat + ttl, jti: randomBytes(8).toString("hex") })
    const jwt = `${header}.${claims}.${randomBytes(32).toString("base64url")}`
    tokens.set(jwt, { expires: iat + ttl, caller: account.caller })
    send(res, 200, { type: "Jwt", data: { jwt } })
  }

  /** The caller, or the service's refusal. As the service: an `authorization` header is checked if present, even beside a key. */
  const authenticate = (req: Http.IncomingMessage, address: string): Caller | ServiceFailure => {
    const authorization = req.headers.authorization
    if (authorization !== undefined) {
      // An invalid token is a 500, and does not count against the address.
      const token = tokens.get(authorization.replace(/^Bearer /, ""))
      return token !== undefined && token.expires > Date.now()
        ? token.caller
        : new ServiceFailure(500, "Invalid user credentials", ["failed to authenticate jwt"])
    }
    const key = req.headers["x-api-key"]
    const secret = req.headers["x-api-secret"]
    if (key === undefined && secret === undefined) return new ServiceFailure(401, "Invalid client credentials")
    if (secret === undefined) return new ServiceFailure(500, "Request headers have X-API-KEY but missing X-API-SECRET")
    if (key === undefined) return new ServiceFailure(500, "Request headers have X-API-SECRET but missing X-API-KEY")
    const account = accounts.find((a) => a.credentials.apiKey.key === key && a.credentials.apiKey.secret === secret)
    return account?.caller ?? limiter.failed(address, 401, "Invalid user credentials")
  }

  const handle = (req: Http.IncomingMessage, res: Http.ServerResponse, text: string) => {
    const path = ((req.url ?? "/").split("?")[0] ?? "/").replace(/^\/+/, "")
    if (req.method === "GET" && path === "version") {
      res.writeHead(200, { "content-type": "text/plain" })
      return res.end(version)
    }
    if (req.method !== "POST") return fail(res, new ServiceFailure(405, "Method Not Allowed"))
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return fail(res, new ServiceFailure(400, "Failed to parse the request body as JSON"))
    }
    const address = req.socket.remoteAddress ?? ""
    if (path === LOGIN) return login(res, address, body)
    const match = /^(read|write|execute)\/(\w+)$/.exec(path)
    if (match === null) return fail(res, new ServiceFailure(404, `no route for /${path}`))
    const locked = limiter.locked(address)
    if (locked !== undefined) return fail(res, locked)
    const caller = authenticate(req, address)
    if (caller instanceof ServiceFailure) return fail(res, caller)
    const handler = routes.get(path)
    if (handler === undefined) {
      return fail(
        res,
        new ServiceFailure(500, `unknown variant \`${match[2]}\`, expected one of the ${match[1]} requests`),
      )
    }
    const params = Schema.decodeRequest(path, body) as Params
    const answer = handler(params, caller) ?? null
    const response = Schema.endpointSchema(path, "response")
    send(res, 200, response === undefined ? answer : Schema.complete(response.schema, answer))
  }

  const server = Http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        fail(res, new ServiceFailure(413, "the request body is too large"))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString("utf8"))
      } catch (error) {
        fail(res, error instanceof ServiceFailure ? error : new ServiceFailure(500, String(error)))
      }
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    ...admin,
    viewer: VIEWER,
    version,
    world,
    logins: () => logins,
    expireTokens: () => {
      for (const token of tokens.values()) token.expires = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A sandbox for the length of a scope. */
export const make = (options?: SandboxOptions): Effect.Effect<Sandbox, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => start(options)),
    (sandbox) => Effect.promise(() => sandbox.close()),
  )
