/**
 * Where users meet sign-in on the command line: `svc-mcp setup <client> --http
 * URL` asks the server whether it signs in and then prints its URL alone (no
 * secret, no header), and `svc-mcp check` fetches the identity provider's
 * metadata and keys and says what it found.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as AuthServer from "../support/AuthServer.js"
import * as Ports from "../support/Ports.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const SERVER_KEY = { key: "server-key-0001", secret: "server-secret-0001" }

/** The resource's URL must be known before the server starts. */
const freePort = () => Effect.promise(Ports.freePort)

describe("sign-in on the command line", () => {
  it.scopedLive(
    "setup --http prints the URL alone for a server with sign-in, and the token header for one without",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort()
        const base = `http://127.0.0.1:${port}`
        const as = yield* AuthServer.scoped({ resource: `${base}/mcp`, clients: [] })
        const double = yield* Double.scoped({ apiKeys: [SERVER_KEY] })
        const env = { SVC_URL: double.url, SVC_API_KEY: SERVER_KEY.key, SVC_API_SECRET: SERVER_KEY.secret }
        const signedIn = yield* Spawn.serveHttp({
          ...env,
          SVC_MCP_HTTP_PORT: String(port),
          SVC_MCP_OAUTH_ISSUER: as.issuer,
          SVC_MCP_PUBLIC_URL: base,
        })
        const plain = yield* Spawn.serveHttp(env)
        const claude = yield* Spawn.run({}, ["setup", "claude-code", "--http", signedIn.url])
        expect(claude.code).toBe(0)
        expect(claude.stdout).toBe(`claude mcp add --transport http --scope user svc ${signedIn.url}\n`)
        expect(claude.stderr).toContain("The server uses sign-in")
        const vscode = yield* Spawn.run({}, ["setup", "vscode", "--http", signedIn.url])
        expect(JSON.parse(vscode.stdout)).toEqual({ servers: { svc: { type: "http", url: signedIn.url } } })
        const codex = yield* Spawn.run({}, ["setup", "codex", "--http", signedIn.url])
        expect(codex.stdout).toBe(`codex mcp add svc --url ${signedIn.url}\n`)
        // Without sign-in the token's header is still what the client needs.
        const withToken = yield* Spawn.run({}, ["setup", "claude-code", "--http", plain.url])
        expect(withToken.stdout).toContain("--header 'Authorization: Bearer <token>'")
        expect(withToken.stderr).not.toContain("The server uses sign-in")
      }),
  )

  it.scopedLive("check fetches the issuer's metadata and keys and says what it found", () =>
    Effect.gen(function* () {
      const as = yield* AuthServer.scoped({ resource: "http://127.0.0.1:1/mcp", clients: [] })
      const double = yield* Double.scoped({ apiKeys: [SERVER_KEY] })
      const env = {
        SVC_URL: double.url,
        SVC_API_KEY: SERVER_KEY.key,
        SVC_API_SECRET: SERVER_KEY.secret,
        SVC_MCP_PUBLIC_URL: "https://svc-mcp.example.test",
      }
      const good = yield* Spawn.run({ ...env, SVC_MCP_OAUTH_ISSUER: as.issuer }, ["check"])
      expect(good.code).toBe(0)
      expect(good.stderr).toContain(`[ok  ] issuer   ${as.issuer}: 1 signing key(s) (RS256) at ${as.issuer}/jwks`)
      expect(good.stderr).toContain(
        "resource https://svc-mcp.example.test/mcp (audience https://svc-mcp.example.test/mcp",
      )
      // An issuer that does not name itself so in its metadata is not the one tokens will name.
      const wrong = yield* Spawn.run({ ...env, SVC_MCP_OAUTH_ISSUER: `${as.issuer}/` }, ["check"])
      expect(wrong.code).toBe(1)
      expect(wrong.stderr).toContain("[FAIL] issuer")
      expect(wrong.stderr).toContain(`names the issuer "${as.issuer}"`)
    }),
  )
})
