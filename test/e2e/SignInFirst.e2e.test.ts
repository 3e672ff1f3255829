/**
 * Sign-in checks the access token on the headers: a request whose token is missing or does not
 * verify (signature, issuer, audience, expiry) is answered 401 with the Bearer challenge before any
 * of its body is read, and its connection is closed; a good token's request waits for its body.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as AuthServer from "../support/AuthServer.js"
import * as Ports from "../support/Ports.js"
import * as RawSocket from "../support/RawSocket.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const SERVER_KEY = { key: "server-key-0001", secret: "server-secret-0001" }
const ALICE = { id: "alice", secret: "alice-client-secret-0123456789" }

/** What a raw socket receives for a POST's headers alone (the body is never sent), until closed or `ms` pass. */
const headersOnly = (resource: string, authorization: string | undefined, length: number, ms: number) =>
  RawSocket.exchange(
    resource,
    RawSocket.postHead(
      resource,
      {
        accept: "application/json, text/event-stream",
        ...(authorization === undefined ? {} : { authorization }),
      },
      length,
    ),
    ms,
  )

describe("sign-in: the access token is verified before the body is read", () => {
  it.scopedLive("a 3 MB POST with a missing or bad access token gets 401 and its challenge on its headers", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(Ports.freePort)
      const base = `http://127.0.0.1:${port}`
      const resource = `${base}/mcp`
      const as = yield* AuthServer.scoped({ resource, clients: [ALICE] })
      const double = yield* Double.scoped({ apiKeys: [SERVER_KEY] })
      yield* Spawn.serveHttp({
        SVC_URL: double.url,
        SVC_API_KEY: SERVER_KEY.key,
        SVC_API_SECRET: SERVER_KEY.secret,
        SVC_MCP_HTTP_PORT: String(port),
        SVC_MCP_OAUTH_ISSUER: as.issuer,
        SVC_MCP_PUBLIC_URL: base,
      })
      const now = Math.floor(Date.now() / 1000)
      const claims = { iss: as.issuer, aud: resource, sub: "alice", scope: "svc.read", iat: now, exp: now + 300 }
      const signed = (over: Record<string, unknown>) =>
        Effect.promise(() => AuthServer.sign(as.key(), { ...claims, ...over }))
      const stranger = yield* Effect.promise(() => AuthServer.makeKey("never-published"))
      const cases: ReadonlyArray<readonly [string, string | undefined, RegExp]> = [
        ["missing", undefined, /^www-authenticate: Bearer resource_metadata=/im],
        ["not a JWT", "Bearer not-a-token", /^www-authenticate: Bearer error="invalid_token"/im],
        ["wrong audience", `Bearer ${yield* signed({ aud: "http://127.0.0.1:1/mcp" })}`, /invalid_token/],
        ["wrong issuer", `Bearer ${yield* signed({ iss: "http://127.0.0.1:2" })}`, /invalid_token/],
        ["expired", `Bearer ${yield* signed({ exp: now - 600, iat: now - 900 })}`, /invalid_token/],
        ["unknown key", `Bearer ${yield* Effect.promise(() => AuthServer.sign(stranger, claims))}`, /invalid_token/],
      ]
      for (const [what, authorization, challenge] of cases) {
        const exchange = yield* headersOnly(resource, authorization, 3_300_000, 5_000)
        expect(exchange.text, what).toMatch(/^HTTP\/1\.1 401 /)
        expect(exchange.text, what).toMatch(challenge)
        expect(exchange.closed, what).toBe(true)
      }
      // The same headers with a good token: the server waits for the body, and answers nothing yet.
      const good = `Bearer ${yield* signed({})}`
      const waiting = yield* headersOnly(resource, good, 3_300_000, 1_500)
      expect(waiting).toEqual({ text: "", closed: false })
      expect(double.requests).toHaveLength(0)
    }),
  )
})
