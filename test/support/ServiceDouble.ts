/**
 * A stand-in for the service on 127.0.0.1: checks credentials the way the
 * service does (and rate-limits failed ones as it does), issues and expires
 * JWTs, answers errors in the service's shapes, and can be told to misbehave
 * (hang, drop the connection, send garbage, redirect).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import { ADDED_IN_2_3_3, compare, SPEC_VERSION } from "../../src/Service/Versions.js"
import * as Servers from "./Servers.js"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: unknown
}

/** What to do with one request, instead of the normal answer. */
export type Behaviour =
  | {
      readonly status: number
      readonly body?: unknown
      readonly raw?: string
      readonly headers?: Record<string, string>
    }
  | { readonly hang: "before-headers" | "mid-body" }
  | { readonly destroy: "before-headers" | "mid-body" | "reset" }
  /** Waits, then behaves as `followedBy`, or answers normally. */
  | { readonly delayMs: number; readonly followedBy?: Behaviour }

export interface DoubleOptions {
  readonly apiKey?: { readonly key: string; readonly secret: string }
  /**
   * More API keys, each a user of its own: a `readOnly` one may read but is
   * refused on write/ and execute/ as the service refuses a permission (500).
   * With these, a successful answer also says whose key served it (`user`).
   */
  readonly apiKeys?: ReadonlyArray<{ readonly key: string; readonly secret: string; readonly readOnly?: boolean }>
  readonly users?: Readonly<Record<string, string>>
  /** 2.3.2 lacks seven endpoints that interface.md names. */
  readonly version?: string
}

/**
 * The service's rate limiter: this many failed authentications (wrong key,
 * wrong password) within the window, and every authenticated call gets 429
 * until the window has passed. Invalid JWTs do not count.
 */
export const RATE_LIMIT = { attempts: 5, windowMs: 15_000 }

const LOGIN_PATH = "/auth/login/LoginLocalUser"

export class ServiceDouble {
  readonly requests: Array<Recorded> = []
  logins = 0
  /** Hanging requests whose connection the client closed: aborted calls. */
  aborted = 0
  url = ""
  version: string
  /** Answers given before the normal handling, matched by path (or "*"), each used once unless `sticky`. */
  private readonly queue: Array<{ path: string; behaviour: Behaviour; sticky: boolean }> = []
  private readonly tokens = new Map<string, { expired: boolean }>()
  private readonly hanging = new Set<Http.ServerResponse>()
  /** When each failed authentication happened, for the rate limiter. */
  private readonly failures: Array<number> = []
  private readonly server: Http.Server
  private counter = 0

  constructor(readonly options: DoubleOptions = {}) {
    this.version = options.version ?? "2.3.3"
    this.server = Http.createServer((req, res) => this.receive(req, res))
    this.server.keepAliveTimeout = 1000
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async stop(): Promise<void> {
    const hanging = [...this.hanging]
    this.hanging.clear()
    for (const res of hanging) res.destroy()
    await Servers.close(this.server)
  }

  /** The next request to `path` (or any, with "*") gets `behaviour`. */
  next(path: string, behaviour: Behaviour, options: { sticky?: boolean } = {}): this {
    this.queue.push({ path, behaviour, sticky: options.sticky ?? false })
    return this
  }

  /** Every read of a stack's logs answers `stdout`, as the service does: untrusted text that opens the guard's window. */
  hostileLogs(stdout: string): this {
    return this.next(
      "/read/GetStackLog",
      {
        status: 200,
        body: { stage: "logs", command: "docker logs", stdout, stderr: "", success: true, start_ts: 1, end_ts: 2 },
      },
      { sticky: true },
    )
  }

  /** Every token issued so far is now expired, as after its lifetime or a restart of the service. */
  expireTokens(): void {
    for (const state of this.tokens.values()) state.expired = true
  }

  /** Requests to the API, without logins. */
  calls(): ReadonlyArray<Recorded> {
    return this.requests.filter((r) => r.path !== LOGIN_PATH)
  }

  private receive(req: Http.IncomingMessage, res: Http.ServerResponse): void {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      let body: unknown = text
      try {
        body = text === "" ? undefined : JSON.parse(text)
      } catch {
        // kept as text: the double also records malformed bodies
      }
      const path = req.url ?? "/"
      this.requests.push({ method: req.method ?? "", path, headers: req.headers, body })
      const queued = this.queue.findIndex((q) => q.path === path || q.path === "*")
      if (queued >= 0) {
        const entry = this.queue[queued]!
        if (!entry.sticky) this.queue.splice(queued, 1)
        if (path === LOGIN_PATH) this.logins++
        return this.behave(res, entry.behaviour, () => this.answer(req, res, path, body, false))
      }
      this.answer(req, res, path, body, true)
    })
  }

  /** `normal` gives the usual answer, for a delay followed by no other behaviour. */
  private behave(res: Http.ServerResponse, behaviour: Behaviour, normal: () => void): void {
    if ("delayMs" in behaviour) {
      const { followedBy } = behaviour
      setTimeout(() => (followedBy === undefined ? normal() : this.behave(res, followedBy, normal)), behaviour.delayMs)
      return
    }
    if ("hang" in behaviour) {
      this.hanging.add(res)
      res.on("close", () => {
        if (this.hanging.delete(res)) this.aborted++
      })
      if (behaviour.hang === "mid-body") {
        res.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
        res.write('{"partial":')
      }
      return
    }
    if ("destroy" in behaviour) {
      if (behaviour.destroy === "reset") {
        res.socket?.resetAndDestroy()
      } else if (behaviour.destroy === "mid-body") {
        res.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
        res.write('{"partial":', () => res.destroy())
      } else {
        res.destroy()
      }
      return
    }
    const text = behaviour.raw ?? (behaviour.body === undefined ? "" : JSON.stringify(behaviour.body))
    res.writeHead(behaviour.status, { "content-type": "application/json", ...behaviour.headers })
    res.end(text)
  }

  /** Seconds until the limiter lets this address in again, or undefined when it does now. */
  private lockedFor(): number | undefined {
    const now = Date.now()
    while (this.failures.length > 0 && this.failures[0]! <= now - RATE_LIMIT.windowMs) this.failures.shift()
    if (this.failures.length < RATE_LIMIT.attempts) return undefined
    return Math.max(1, Math.ceil((this.failures[0]! + RATE_LIMIT.windowMs - now) / 1000))
  }

  /** The service's words for a failed authentication, counting it. */
  private refuse(res: Http.ServerResponse, error: string): void {
    this.failures.push(Date.now())
    const left = Math.max(0, RATE_LIMIT.attempts - this.failures.length)
    this.fail(res, 401, `${error} | You have ${left} attempts remaining`)
  }

  private send(res: Http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
  }

  private fail(res: Http.ServerResponse, status: number, error: string): void {
    this.send(res, status, { error, trace: [`double: ${error}`] })
  }

  private answer(
    req: Http.IncomingMessage,
    res: Http.ServerResponse,
    path: string,
    body: unknown,
    countLogin: boolean,
  ): void {
    if (req.method === "GET" && path === "/version") {
      res.writeHead(200, { "content-type": "text/plain" })
      return void res.end(this.version)
    }
    if (req.method !== "POST") return this.fail(res, 405, "method not allowed")
    if (req.headers["content-type"] !== "application/json" || typeof body !== "object" || body === null) {
      return this.fail(res, 415, "the body must be a JSON object")
    }
    if (path === LOGIN_PATH) return this.login(res, body as Record<string, unknown>, countLogin)
    const match = /^\/(read|write|execute)\/([A-Za-z]+)$/.exec(path)
    if (match === null) return this.fail(res, 404, `no route ${path}`)
    const locked = this.lockedFor()
    if (locked !== undefined) return this.fail(res, 429, `Too many attempts | Try again in ${locked}s`)
    let servedBy: string | undefined
    const authorization = req.headers.authorization
    if (authorization !== undefined) {
      const token = authorization.replace(/^Bearer /, "")
      const state = this.tokens.get(token)
      if (state === undefined || state.expired) return this.fail(res, 500, "Invalid user credentials")
    } else if (req.headers["x-api-key"] !== undefined || req.headers["x-api-secret"] !== undefined) {
      const { apiKey, apiKeys = [] } = this.options
      const keys = apiKey === undefined ? apiKeys : [apiKey, ...apiKeys]
      const user = keys.find((k) => req.headers["x-api-key"] === k.key && req.headers["x-api-secret"] === k.secret)
      if (user === undefined) return this.refuse(res, "Invalid user credentials")
      if ("readOnly" in user && user.readOnly === true && match[1] !== "read") {
        return this.fail(res, 500, `User does not have permission to call ${match[1]}/${match[2]}`)
      }
      if (this.options.apiKeys !== undefined) servedBy = user.key
    } else {
      return this.fail(res, 401, "Invalid client credentials")
    }
    const endpoint = `${match[1]}/${match[2]}`
    if (compare(this.version, SPEC_VERSION) < 0 && ADDED_IN_2_3_3.has(endpoint)) {
      return this.fail(res, 500, `Failed to parse request body: unknown variant \`${match[2]}\`, expected one of ...`)
    }
    this.send(
      res,
      200,
      servedBy === undefined ? { endpoint, params: body } : { endpoint, params: body, user: servedBy },
    )
  }

  private login(res: Http.ServerResponse, body: Record<string, unknown>, count: boolean): void {
    if (count) this.logins++
    const locked = this.lockedFor()
    if (locked !== undefined) return this.fail(res, 429, `Too many attempts | Try again in ${locked}s`)
    const users = this.options.users ?? {}
    const { username, password } = body
    if (typeof username !== "string" || users[username] === undefined || users[username] !== password) {
      return this.refuse(res, "Invalid login credentials")
    }
    const jwt = `eyJ.double-token-${++this.counter}-${Math.random().toString(36).slice(2)}`
    this.tokens.set(jwt, { expired: false })
    this.send(res, 200, { type: "Jwt", data: { jwt } })
  }
}

/** A started double for the length of a scope. */
export const scoped = (options?: DoubleOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => new ServiceDouble(options).start()),
    (double) => Effect.promise(() => double.stop()),
  )
