import * as Http from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Auth from "../src/Auth.js"
import * as Check from "../src/Check.js"
import * as Config from "../src/Config.js"
import * as SvcHttp from "../src/Http.js"
import * as SvcClient from "../src/SvcClient.js"
import * as Sandboxes from "./support/Sandbox.js"
import * as Spawn from "./support/Spawn.js"

const layer = (config: Config.SvcConfigShape) =>
  SvcClient.layer.pipe(
    Layer.provideMerge(Auth.layer),
    Layer.provideMerge(Config.layerValue(config)),
    Layer.provideMerge(SvcHttp.layer),
  )

const check = (config: Config.SvcConfigShape) => Check.run.pipe(Effect.provide(layer(config)))

const statuses = (report: Check.Report) => Object.fromEntries(report.steps.map((s) => [s.name, s.status]))

const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = Http.createServer()
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    }),
)

describe("svc-mcp check", () => {
  it.scopedLive("passes against the sandbox with an API key, and with a login", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const withKey = yield* check(Sandboxes.apiKeyConfig(sandbox))
      expect(withKey.ok).toBe(true)
      expect(statuses(withKey)).toEqual({ reach: "ok", version: "ok", auth: "ok", params: "ok" })
      const withLogin = yield* check(Sandboxes.loginConfig(sandbox))
      expect(withLogin).toMatchObject({ ok: true, method: "jwt" })
      expect(sandbox.logins()).toBe(1)
      const text = Check.format(withLogin)
      expect(text).toMatch(/All good\./)
      expect(text).not.toContain(sandbox.password)
    }),
  )

  it.scopedLive("warns, without failing, when the service is older than 2.3.3", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ version: "2.3.2" })
      const report = yield* check(Sandboxes.apiKeyConfig(sandbox))
      expect(report.ok).toBe(true)
      const version = report.steps.find((s) => s.name === "version")
      expect(version).toMatchObject({ status: "warn" })
      expect(version?.detail).toMatch(/2\.3\.2, older than 2\.3\.3: 7 endpoints/)
    }),
  )

  it.scopedLive("fails with a hint for a wrong key, and never prints the secret", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const config = {
        ...Sandboxes.apiKeyConfig(sandbox),
        credentials: {
          _tag: "ApiKey" as const,
          key: Redacted.make("sandbox-key"),
          secret: Redacted.make("wrong-secret-value"),
        },
      }
      const report = yield* check(config)
      expect(report.ok).toBe(false)
      const auth = report.steps.find((s) => s.name === "auth")
      expect(auth?.hint).toMatch(/SVC_API_KEY and SVC_API_SECRET/)
      expect(Check.format(report)).not.toContain("wrong-secret-value")
    }),
  )

  it.scopedLive("fails with a hint for a wrong password", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const report = yield* check(Sandboxes.loginConfig(sandbox, "not-the-password"))
      expect(statuses(report)).toEqual({ reach: "ok", version: "ok", auth: "fail", params: "ok" })
      expect(report.steps.find((s) => s.name === "auth")?.hint).toMatch(
        /SVC_INIT_ADMIN_USERNAME and SVC_INIT_ADMIN_PASSWORD/,
      )
      expect(Check.format(report)).not.toContain("not-the-password")
    }),
  )

  it.scopedLive("fails at the first step for a dead port, saying nothing listens there", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const report = yield* check({
        url: `http://127.0.0.1:${port}`,
        timeoutMs: 30_000,
        credentials: { _tag: "ApiKey", key: Redacted.make("k"), secret: Redacted.make("s") },
      })
      expect(report.ok).toBe(false)
      expect(report.steps).toHaveLength(1)
      expect(report.steps[0]).toMatchObject({ name: "reach", status: "fail" })
      expect(report.steps[0]?.hint).toMatch(/nothing listens there/)
    }),
  )

  it.scopedLive("as a command: exit 0 when all is well, 1 otherwise, with the report on stderr", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const env = { SVC_URL: sandbox.url, SVC_API_KEY: sandbox.apiKey.key, SVC_API_SECRET: sandbox.apiKey.secret }
      const good = yield* Spawn.run(env, ["check"])
      expect(good).toMatchObject({ code: 0, stdout: "" })
      expect(good.stderr).toMatch(/All good\./)
      const bad = yield* Spawn.run({ ...env, SVC_API_SECRET: "nope-nope" }, ["check"])
      expect(bad.code).toBe(1)
      expect(bad.stderr).toMatch(/\[FAIL\] auth/)
      const unset = yield* Spawn.run({}, ["check"])
      expect(unset.code).toBe(2)
      expect(unset.stderr).toMatch(/SVC_URL is not set/)
    }),
  )
})
