/**
 * The operator's commands tell the truth, on stderr, with their exit codes:
 * `audit verify --store` reads the store's password as the server does
 * (SVC_MCP_STORE_PASSWORD or its _FILE) and turns the store's NOAUTH or
 * WRONGPASS into what to do; `check` ends with its verdict after every step,
 * sign-in's included, with each failure's cause said once, and names the guard's
 * window of the transport the settings serve on.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Ports from "../support/Ports.js"
import * as Redis from "../support/Redis.js"
import * as Sandboxes from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"

const STATE_KEY = "replicas-share-this-state-key-of-40-bytes"
const PASSWORD = "the-store-password-4711"

describe("audit verify --store, against a store with a password", () => {
  it.scopedLive(
    "without the password: exit 2 and what to set; with SVC_MCP_STORE_PASSWORD_FILE: the chain holds; a wrong one: exit 2",
    () =>
      Effect.gen(function* () {
        const redis = yield* Redis.scoped(["--requirepass", PASSWORD])
        const sandbox = yield* Sandboxes.scoped()
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-verify-store-"))
        const passwordFile = Path.join(dir, "store.password")
        Fs.writeFileSync(passwordFile, `${PASSWORD}\n`)
        const log = Path.join(dir, "audit.log")
        const server = yield* Spawn.serveHttp({
          SVC_URL: sandbox.url,
          SVC_API_KEY: sandbox.apiKey.key,
          SVC_API_SECRET: sandbox.apiKey.secret,
          SVC_MCP_STORE: redis.url,
          SVC_MCP_STORE_PASSWORD_FILE: passwordFile,
          SVC_MCP_STATE_KEY: STATE_KEY,
          SVC_AUDIT_LOG: log,
        })
        expect(server.stderr()).toMatch(/the shared store at redis:\/\/127\.0\.0\.1:\d+ answers/)
        server.child.kill("SIGTERM")
        yield* Effect.promise(() => server.exited)
        // The clean stop's checkpoint is in the stream too.
        expect(Fs.readFileSync(log, "utf8")).not.toBe("")

        const verify = (env: Record<string, string>) => Spawn.run(env, ["audit", "verify", "--store", redis.url])
        const unasked = yield* verify({})
        expect(unasked).toMatchObject({ code: 2, stdout: "" })
        expect(unasked.stderr.trim().split("\n")).toHaveLength(1)
        expect(unasked.stderr).toContain("NOAUTH")
        expect(unasked.stderr).toContain("the store asks for a password")
        expect(unasked.stderr).toContain("SVC_MCP_STORE_PASSWORD or the file SVC_MCP_STORE_PASSWORD_FILE names")

        const read = yield* verify({ SVC_MCP_STORE_PASSWORD_FILE: passwordFile })
        expect(read).toMatchObject({ code: 0, stdout: "" })
        expect(read.stderr).toMatch(/\nthe chains hold\n$/)

        const given = yield* verify({ SVC_MCP_STORE_PASSWORD: PASSWORD })
        expect(given).toMatchObject({ code: 0, stdout: "" })

        const wrong = yield* verify({ SVC_MCP_STORE_PASSWORD: "not-the-password" })
        expect(wrong).toMatchObject({ code: 2, stdout: "" })
        expect(wrong.stderr).toContain("WRONGPASS")
        expect(wrong.stderr).toContain("the store refused the password")
        expect(wrong.stderr).not.toContain("not-the-password")
        for (const finished of [unasked, read, given, wrong]) expect(finished.stderr).not.toContain(PASSWORD)
      }),
    60_000,
  )
})

describe("check's verdict", () => {
  it.scopedLive(
    "an issuer that does not answer: its cause once, then the verdict last, exit 1; stdio: the guard's stdio window",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const env = { SVC_URL: sandbox.url, SVC_API_KEY: sandbox.apiKey.key, SVC_API_SECRET: sandbox.apiKey.secret }
        const port = yield* Ports.closedPort
        const issuer = `http://127.0.0.1:${port}/realms/team`
        const signIn = yield* Spawn.run(
          { ...env, SVC_MCP_OAUTH_ISSUER: issuer, SVC_MCP_PUBLIC_URL: "https://svc-mcp.example.test" },
          ["check"],
        )
        expect(signIn).toMatchObject({ code: 1, stdout: "" })
        const lines = signIn.stderr.trim().split("\n")
        expect(lines.at(-1)).toBe("Not ready: see the failed step above.")
        expect(signIn.stderr).not.toContain("All good.")
        expect(signIn.stderr).toContain(
          `[FAIL] issuer   no metadata for ${issuer}: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`,
        )
        expect(signIn.stderr.match(/ECONNREFUSED/g)).toHaveLength(1)
        // Sign-in serves over HTTP: the guard's line is of HTTP, each person's window.
        expect(signIn.stderr).toMatch(/\[ok {2}\] guard {4}over HTTP, .*the window is the signed-in person's/)

        // No port and no sign-in: a stdio set-up, whose window is the connection's; with every call
        // that loses data asked first, nothing to warn of.
        const stdio = yield* Spawn.run({ ...env, SVC_CONFIRM: "destructive" }, ["check"])
        expect(stdio).toMatchObject({ code: 0, stdout: "" })
        expect(stdio.stderr).toMatch(/\[ok {2}\] guard {4}over stdio, .*the window is the stdio connection's/)
        expect(stdio.stderr).not.toContain("[warn]")
        expect(stdio.stderr.trim().split("\n").at(-1)).toBe("All good.")
        // A port set without sign-in: HTTP, where clients behind one address share a window, as warned.
        const http = yield* Spawn.run({ ...env, SVC_MCP_HTTP_PORT: "8765" }, ["check"])
        expect(http.code).toBe(0)
        expect(http.stderr).toMatch(/\[warn\] guard {4}over HTTP, /)
        expect(http.stderr.trim().split("\n").at(-1)).toBe("All good.")
      }),
    60_000,
  )
})
