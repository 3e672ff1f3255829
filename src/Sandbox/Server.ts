/**
 * The sandbox: an in-memory service on 127.0.0.1 with the real service's wire
 * behaviour: its paths and endpoint names, both auth methods for two users (an
 * admin and a read-only viewer), its refusals (401, the 429 of its limit on
 * failed authentications per client address, JWT expiry answered as 500),
 * params decoded as its deserializer decodes them,
 * answers completed to its definitions, unknown endpoints as unknown variants.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as PatternReader from "../Shared/PatternReader.js"
import * as Accounts from "./Access/Accounts.js"
import { RateLimiter, WINDOW_MS } from "./Access/RateLimiter.js"
import * as Users from "./Access/Users.js"
import { clientAddress } from "./ClientAddress.js"
import * as Docker from "./Docker/Docker.js"
import { type Estate, seedEstate } from "./Estates/Estate.js"
import * as Scenarios from "./Estates/Scenarios.js"
import * as Executions from "./Executions/Executions.js"
import * as Alerts from "./Monitoring/Alerts.js"
import * as Monitoring from "./Monitoring/Monitoring.js"
import * as Reads from "./Monitoring/Reads.js"
import * as Meta from "./Resources/Meta.js"
import * as Resources from "./Resources/Resources.js"
import * as Servers from "./Resources/Servers.js"
import * as Files from "./Sync/Files.js"
import { fail, type Handle, inProcess, listener, send, type WireAnswer, type WireRequest } from "./Wire.js"
import { Clock, START } from "./World/Clock.js"
import * as ComposeFile from "./World/ComposeFile.js"
import type { ServiceSchema } from "./World/Schema.js"
import { type Caller, type Params, ServiceFailure } from "./World/Store.js"
import { type SandboxUser, World } from "./World/World.js"

export type Credentials = Accounts.Credentials

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
  /** What it holds: the small estate (the default) or the large one (Estate.ts). */
  readonly estate?: Estate
  /** The day it is having: `calm` (the default) or a bad one (Scenarios.ts). */
  readonly scenario?: Scenarios.Scenario
  /**
   * What reads its batches' regexes: by default a reader of its own, ended as it closes; one given
   * is its host's, shared by the host's sandboxes, and left open.
   */
  readonly patterns?: PatternReader.Pool
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
  /**
   * A request answered from the same process, as one from loopback over the socket at `url` is:
   * for a test that needs the service but not the socket. `url` is its path, `/read/ListStacks`.
   */
  readonly handle: (request: Omit<WireRequest, "socket">, body: string) => Promise<WireAnswer>
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

const compare = (a: string, b: string) => {
  const pa = a.split(".").map(Number)
  const pb = b.split(".").map(Number)
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

/** The 2.3.3 endpoints a 2.3.2 service lacks: those its published definitions (2.3.2) give no answer for. */
const addedIn233 = (definitions: ServiceSchema) =>
  Object.entries(definitions.document().endpoints)
    .filter(([, d]) => d.response === null)
    .map(([endpoint]) => endpoint)

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

/** The two accounts, admin and viewer, as the seeded users name them. */
const accountsOf = (admin: Credentials, users: ReadonlyArray<SandboxUser>): Array<Accounts.Account> => {
  const callerOf = (username: "admin" | "viewer"): Caller => {
    const user = users.find((u) => u.username === username)
    return { id: user?._id.$oid ?? "", username, admin: user?.admin === true }
  }
  return [
    { credentials: admin, caller: callerOf("admin") },
    { credentials: VIEWER, caller: callerOf("viewer") },
  ]
}

/** Every endpoint the version serves, by path. */
const routesOf = (
  world: World,
  accounts: ReadonlyArray<Accounts.Account>,
  options: SandboxOptions,
  version: string,
  reader: PatternReader.Pool,
) => {
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
  const routes = new Map<string, Resources.Handler>([
    ...Resources.handlers(world),
    ...Executions.handlers(world, reader, options.timing),
    ...Reads.handlers(world),
    ...Docker.handlers(world),
    ...Users.handlers(world, apiKeys),
    ...Meta.handlers(world),
    ...Alerts.handlers(world),
    ...Monitoring.handlers(world),
    ...Files.handlers(world, (kind, params, caller) => Executions.selected(world, reader, kind, params, caller)),
    ...Servers.handlers(world),
    ["read/GetVersion", () => ({ version })],
    ["read/GetCoreInfo", coreInfo],
  ])
  if (compare(version, VERSION) < 0) for (const endpoint of addedIn233(world.schema)) routes.delete(endpoint)
  return routes
}

/** Keys made for service users, and local users made with a password. */
const moreUsers = (world: World): Accounts.MoreUsers => {
  const callerOf = (id: string): Caller | undefined => {
    const user = world.users.find((u) => u._id.$oid === id)
    return user === undefined ? undefined : { id, username: user.username, admin: user.admin }
  }
  return {
    byKey: (key, secret) => {
      const found = world.apiKeys.find((k) => k.key === key && k.secret === secret)
      const live = found !== undefined && (found.expires === 0 || found.expires > world.now())
      return live ? callerOf(found.user_id) : undefined
    },
    byLogin: (username, password) => {
      const user = world.users.find((u) => u.username === username)
      return user !== undefined && world.passwords.get(user._id.$oid) === password ? callerOf(user._id.$oid) : undefined
    },
  }
}

/** The caller as the user is now: deleted or disabled since, it is refused; made an admin, it is one. */
const current = (world: World, caller: Caller): Caller | undefined => {
  const user = world.users.find((u) => u._id.$oid === caller.id)
  if (user === undefined || !user.enabled) return undefined
  return { id: caller.id, username: user.username, admin: user.admin || user.super_admin === true }
}

/** A request answered as the service answers it: its version, its login, or a call of a route. */
const handlerOf =
  (
    world: World,
    routes: ReadonlyMap<string, Resources.Handler>,
    auth: ReturnType<typeof Accounts.make>,
    limiter: RateLimiter,
    version: string,
  ): Handle =>
  (req, text) => {
    const path = ((req.url ?? "/").split("?")[0] ?? "/").replace(/^\/+/, "")
    if (req.method === "GET" && path === "version") {
      return { status: 200, headers: { "content-type": "text/plain" }, body: version }
    }
    if (req.method !== "POST") return fail(new ServiceFailure(405, "Method Not Allowed"))
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return fail(new ServiceFailure(400, "Failed to parse the request body as JSON"))
    }
    const address = clientAddress(req)
    if (path === Accounts.LOGIN) return send(200, auth.login(address, body))
    const match = /^(read|write|execute)\/(\w+)$/.exec(path)
    if (match === null) return fail(new ServiceFailure(404, `no route for /${path}`))
    const locked = limiter.locked(address)
    if (locked !== undefined) return fail(locked)
    const authenticated = auth.authenticate(req, address)
    if (authenticated instanceof ServiceFailure) return fail(authenticated)
    const caller = current(world, authenticated)
    if (caller === undefined) return fail(new ServiceFailure(401, "Invalid user credentials"))
    const handler = routes.get(path)
    if (handler === undefined) {
      return fail(new ServiceFailure(500, `unknown variant \`${match[2]}\`, expected one of the ${match[1]} requests`))
    }
    const params = world.schema.decodeRequest(path, body) as Params
    const answered = (answer: unknown) => {
      const response = world.schema.endpointSchema(path, "response")
      return send(200, response === undefined ? answer : world.schema.complete(response.schema, answer ?? null))
    }
    const answer = handler(params, caller)
    // A batch waits for its pattern's engine, loaded by the first regex (Shared/NamePattern.ts).
    return answer instanceof Promise ? answer.then(answered) : answered(answer ?? null)
  }

export const start = async (options: SandboxOptions = {}): Promise<Sandbox> => {
  const admin: Credentials = {
    apiKey: options.apiKey ?? DEFAULTS.apiKey,
    username: options.username ?? DEFAULTS.username,
    password: options.password ?? DEFAULTS.password,
  }
  const version = options.version ?? VERSION
  const ttl = options.jwtTtlMs ?? 24 * 60 * 60 * 1000
  const limiter = new RateLimiter(options.rateLimitWindowMs ?? WINDOW_MS)
  const scenario = options.scenario ?? "calm"
  // A calm day starts now; another at its own moment, the same each run.
  const clock = new Clock(scenario === "calm" ? Date.now() : START)
  const world = new World(clock)
  await ComposeFile.load()
  const accounts = accountsOf(admin, seedEstate(world, options.estate))
  Scenarios.apply(world, scenario)
  Alerts.refresh(world)
  clock.run()
  // The sandbox's own pattern reader, its workers ended as it closes, unless its host gave one.
  const reader = options.patterns ?? PatternReader.makePool()
  const release = () => (options.patterns === undefined ? reader.close() : Promise.resolve())
  const routes = routesOf(world, accounts, options, version, reader)
  const auth = Accounts.make(accounts, limiter, ttl, world.schema, moreUsers(world))
  const handle = handlerOf(world, routes, auth, limiter, version)
  const server = Http.createServer(listener(handle))
  const local = inProcess(handle)
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
    logins: auth.logins,
    expireTokens: auth.expireTokens,
    handle: (request, body) => (server.listening ? local(request, body) : Promise.reject(refused(url))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => void release().then(resolve))
      }),
  }
}

/** A request to a sandbox closed, refused as its closed port refuses one. */
const refused = (url: string) => Object.assign(new Error(`connect ECONNREFUSED ${url}`), { code: "ECONNREFUSED" })

/** A sandbox for the length of a scope. */
export const make = (options?: SandboxOptions): Effect.Effect<Sandbox, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => start(options)),
    (sandbox) => Effect.promise(() => sandbox.close()),
  )
