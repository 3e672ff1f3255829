/**
 * The sandbox's two users and how a request proves who it is: an API key pair,
 * or a token from the local login, with the service's refusals for each. Failed
 * guesses are counted against the client's address by the rate limiter.
 */
import { randomBytes } from "node:crypto"
import type * as Http from "node:http"
import type { ServiceSchema } from "../World/Schema.js"
import { type Caller, ServiceFailure } from "../World/Store.js"
import type { RateLimiter } from "./RateLimiter.js"

export interface Credentials {
  readonly apiKey: { readonly key: string; readonly secret: string }
  readonly username: string
  readonly password: string
}

export interface Account {
  readonly credentials: Credentials
  readonly caller: Caller
}

export const LOGIN = "auth/login/LoginLocalUser"

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

export interface Accounts {
  /** The login's answer, or its refusal. */
  readonly login: (address: string, body: unknown) => unknown
  /** The caller, or the service's refusal. */
  readonly authenticate: (req: Pick<Http.IncomingMessage, "headers">, address: string) => Caller | ServiceFailure
  readonly logins: () => number
  readonly expireTokens: () => void
}

/** The users made through the API: their keys and logins. */
export interface MoreUsers {
  readonly byKey: (key: string, secret: string) => Caller | undefined
  readonly byLogin: (username: string, password: string) => Caller | undefined
}

export const make = (
  accounts: ReadonlyArray<Account>,
  limiter: RateLimiter,
  ttlMs: number,
  definitions: ServiceSchema,
  more: MoreUsers,
): Accounts => {
  const tokens = new Map<string, { expires: number; caller: Caller }>()
  let logins = 0

  const login = (address: string, body: unknown): unknown => {
    logins++
    const locked = limiter.locked(address)
    if (locked !== undefined) throw locked
    const params = definitions.decodeRequest(LOGIN, body) as { username: string; password: string }
    const caller =
      accounts.find((a) => a.credentials.username === params.username && a.credentials.password === params.password)
        ?.caller ?? more.byLogin(params.username, params.password)
    if (caller === undefined) throw limiter.failed(address, 401, "Invalid login credentials")
    const iat = Date.now()
    const header = base64url({ alg: "HS256", typ: "JWT" })
    const claims = base64url({ id: caller.id, iat, exp: iat + ttlMs, jti: randomBytes(8).toString("hex") })
    const jwt = `${header}.${claims}.${randomBytes(32).toString("base64url")}`
    tokens.set(jwt, { expires: iat + ttlMs, caller })
    return { type: "Jwt", data: { jwt } }
  }

  // As the service: an `authorization` header is checked if present, even beside a key.
  const authenticate = (req: Pick<Http.IncomingMessage, "headers">, address: string): Caller | ServiceFailure => {
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
    return (
      account?.caller ??
      more.byKey(String(key), String(secret)) ??
      limiter.failed(address, 401, "Invalid user credentials")
    )
  }

  return {
    login,
    authenticate,
    logins: () => logins,
    expireTokens: () => {
      for (const token of tokens.values()) token.expires = 0
    },
  }
}
