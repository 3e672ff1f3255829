/**
 * The sandbox: an in-memory service on 127.0.0.1 with the real service's wire
 * behaviour (paths, both auth methods, JWT expiry answered as 500, error bodies,
 * unknown endpoints answered as unknown variants).
 */
import { randomBytes } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { INVALID_CREDENTIALS } from "../ServiceResponse.js"
import { ADDED_IN_2_3_3, compare, SPEC_VERSION } from "../ServiceVersion.js"
import * as Docker from "./Docker.js"
import * as Executions from "./Executions.js"
import * as Reads from "./Reads.js"
import * as Resources from "./Resources.js"
import { seed } from "./Seed.js"
import { type Params, ServiceFailure } from "./Store.js"
import { World } from "./World.js"

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  readonly apiKey?: { readonly key: string; readonly secret: string }
  readonly username?: string
  readonly password?: string
  /** The lifetime of a login's token; the service's default is a day. */
  readonly jwtTtlMs?: number
  /** Answer as a service of this version; below 2.3.3, seven endpoints are missing. */
  readonly version?: string
  readonly timing?: Executions.Timing
}

export interface Sandbox {
  readonly url: string
  readonly apiKey: { readonly key: string; readonly secret: string }
  readonly username: string
  readonly password: string
  readonly version: string
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

const LOGIN = "/auth/login/LoginLocalUser"
const MAX_BODY = 4 * 1024 * 1024

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const send = (res: Http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const fail = (res: Http.ServerResponse, failure: ServiceFailure) =>
  send(res, failure.status, { error: failure.error, trace: failure.trace })

const unknownVariant = (endpoint: string) =>
  new ServiceFailure(
    500,
    `Failed to deserialize the JSON body into the target type: unknown variant \`${endpoint}\`, expected one of the request types`,
  )

export const start = async (options: SandboxOptions = {}): Promise<Sandbox> => {
  const apiKey = options.apiKey ?? DEFAULTS.apiKey
  const username = options.username ?? DEFAULTS.username
  const password = options.password ?? DEFAULTS.password
  const version = options.version ?? SPEC_VERSION
  const ttl = options.jwtTtlMs ?? 24 * 60 * 60 * 1000
  const world = new World()
  const users = seed(world)
  const routes = new Map<string, Resources.Handler>([
    ...Resources.handlers(world.store, () => users),
    ...Executions.handlers(world, options.timing),
    ...Reads.handlers(world),
    ...Docker.handlers(world),
    ["read/GetVersion", () => ({ version })],
  ])
  if (compare(version, SPEC_VERSION) < 0) for (const endpoint of ADDED_IN_2_3_3) routes.delete(endpoint)

  const tokens = new Map<string, number>()
  let logins = 0

  const login = (res: Http.ServerResponse, params: Params) => {
    logins++
    if (params.username !== username || params.password !== password) {
      return send(res, 401, { error: "Invalid login credentials", trace: [] })
    }
    const iat = Date.now()
    const header = base64url({ alg: "HS256", typ: "JWT" })
    const claims = base64url({ id: users[0]?._id.$oid, iat, exp: iat + ttl, jti: randomBytes(8).toString("hex") })
    const jwt = `${header}.${claims}.${randomBytes(32).toString("base64url")}`
    tokens.set(jwt, iat + ttl)
    send(res, 200, { type: "Jwt", data: { jwt } })
  }

  /** As the service: an `authorization` header is checked if present, even beside a valid key. */
  const authorized = (req: Http.IncomingMessage): ServiceFailure | undefined => {
    const authorization = req.headers.authorization
    if (authorization !== undefined) {
      const expires = tokens.get(authorization.replace(/^Bearer /, ""))
      return expires !== undefined && expires > Date.now()
        ? undefined
        : new ServiceFailure(500, INVALID_CREDENTIALS, ["failed to authenticate jwt"])
    }
    const key = req.headers["x-api-key"]
    const secret = req.headers["x-api-secret"]
    if (key === undefined && secret === undefined) return new ServiceFailure(401, "no authorization provided")
    return key === apiKey.key && secret === apiKey.secret
      ? undefined
      : new ServiceFailure(500, INVALID_CREDENTIALS, ["failed to authenticate api key"])
  }

  const handle = (req: Http.IncomingMessage, res: Http.ServerResponse, text: string) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/"
    if (req.method === "GET" && path === "/version") {
      res.writeHead(200, { "content-type": "text/plain" })
      return res.end(version)
    }
    if (req.method !== "POST") return fail(res, new ServiceFailure(405, "Method Not Allowed"))
    let params: unknown
    try {
      params = JSON.parse(text === "" ? "null" : text)
    } catch {
      return fail(res, new ServiceFailure(400, "Failed to parse the request body as JSON"))
    }
    if (typeof params !== "object" || params === null || Array.isArray(params)) {
      return fail(
        res,
        new ServiceFailure(422, "Failed to deserialize the JSON body into the target type: expected a map"),
      )
    }
    if (path === LOGIN) return login(res, params as Params)
    const match = /^\/(read|write|execute)\/(\w+)$/.exec(path)
    if (match === null) return fail(res, new ServiceFailure(404, `no route for ${path}`))
    const refused = authorized(req)
    if (refused !== undefined) return fail(res, refused)
    const handler = routes.get(`${match[1]}/${match[2]}`)
    if (handler === undefined) return fail(res, unknownVariant(match[2] ?? ""))
    try {
      send(res, 200, handler(params as Params) ?? null)
    } catch (error) {
      fail(res, error instanceof ServiceFailure ? error : new ServiceFailure(500, String(error)))
    }
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
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    apiKey,
    username,
    password,
    version,
    world,
    logins: () => logins,
    expireTokens: () => {
      for (const token of tokens.keys()) tokens.set(token, 0)
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
