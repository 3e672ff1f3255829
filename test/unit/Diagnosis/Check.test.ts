import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Config from "../../../src/Config.js"
import * as Check from "../../../src/Diagnosis/Check.js"
import * as Store from "../../../src/Store/Store.js"
import * as Layers from "../../support/Layers.js"
import * as Ports from "../../support/Ports.js"
import * as Sandboxes from "../../support/Sandbox.js"
import * as Double from "../../support/ServiceDouble.js"

const check = (config: Config.SvcConfigShape) =>
  Check.run.pipe(Effect.provide(Layers.client(config)), Effect.provide(Store.layerOff))

const statuses = (report: Check.Report) => Object.fromEntries(report.steps.map((s) => [s.name, s.status]))

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
      const port = yield* Ports.closedPort
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
})

describe("svc-mcp check and the service's rules", () => {
  const stepOf = (report: Check.Report, name: string) => report.steps.find((s) => s.name === name)

  it.scopedLive("a redirect of GET /version fails the first step, saying what to set SVC_URL to", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: Layers.SECRET } })
      double.next("/version", { status: 301, headers: { location: "https://svc.example.com/api/version" } })
      const report = yield* check(Layers.apiKey(double.url))
      expect(report.ok).toBe(false)
      expect(report.steps).toHaveLength(1)
      expect(report.steps[0]).toMatchObject({ name: "reach", status: "fail" })
      expect(report.steps[0]?.detail).toBe(
        "GET /version: the service redirected to https://svc.example.com/api/version; set SVC_URL to https://svc.example.com/api (redirects are not followed, so that credentials go only to SVC_URL) (it answered 301)",
      )
      expect(report.steps[0]?.hint).toMatch(/redirects are not followed/)
      expect(double.requests).toHaveLength(1)
    }),
  )

  it.scopedLive("a redirect of the authenticated read says what to set SVC_URL to", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: Layers.SECRET } })
      double.next("/read/GetVersion", { status: 307, headers: { location: "https://svc.example.com/read/GetVersion" } })
      const report = yield* check(Layers.apiKey(double.url))
      expect(statuses(report)).toEqual({ reach: "ok", version: "ok", auth: "fail", params: "ok" })
      expect(stepOf(report, "auth")?.detail).toMatch(/set SVC_URL to https:\/\/svc\.example\.com \(/)
      expect(stepOf(report, "auth")?.hint).toMatch(/set SVC_URL as the detail says/)
    }),
  )

  it.scopedLive(
    "a wrong key (401) says how many attempts the service still allows, after one authenticated request",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: "another-secret" } })
        const report = yield* check(Layers.apiKey(double.url))
        expect(statuses(report)).toEqual({ reach: "ok", version: "ok", auth: "fail", params: "ok" })
        const auth = stepOf(report, "auth")
        expect(auth?.detail).toMatch(/Invalid user credentials \| You have 4 attempts remaining/)
        expect(auth?.hint).toBe(
          "check SVC_API_KEY and SVC_API_SECRET; the key may have expired or been deleted. The service allows 4 more failed attempts from this address, then refuses every call from it for a while: fix the credentials before trying again",
        )
        expect(double.calls().filter((r) => r.method === "POST")).toHaveLength(1)
        expect(Check.format(report)).not.toContain(Layers.SECRET)
      }),
  )

  it.scopedLive("a wrong key read from files names the files' variables, SVC_API_SECRET_FILE among them", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: "another-secret" } })
      const config = Layers.apiKey(double.url)
      const fromFiles = {
        ...config,
        credentials: { ...config.credentials, from: ["SVC_API_KEY_FILE", "SVC_API_SECRET_FILE"] as const },
      }
      const auth = stepOf(yield* check(fromFiles), "auth")
      expect(auth?.detail).toMatch(/check SVC_API_KEY_FILE and SVC_API_SECRET_FILE, and whether the key has expired/)
      expect(auth?.hint).toMatch(/^check SVC_API_KEY_FILE and SVC_API_SECRET_FILE; the key may have expired/)
    }),
  )

  it.scopedLive("once the service rate-limits this address (429), the hint says how long to wait", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: Layers.SECRET } })
      double.next("/read/GetVersion", {
        status: 429,
        body: { error: "Too many attempts | Try again in 12s", trace: [] },
      })
      const report = yield* check(Layers.apiKey(double.url))
      const auth = stepOf(report, "auth")
      expect(auth?.status).toBe("fail")
      expect(auth?.detail).toMatch(/retry after 12 s$/)
      expect(auth?.hint).toBe(
        "the service refuses every call from this address for now, after too many failed authentications (from this server or another client here): wait 12 s, then check the credentials before trying again",
      )
    }),
  )

  it.scopedLive("a login refused (401) or rate-limited (429) gets its own hint", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ users: { [Layers.USER]: Layers.PASSWORD } })
      const refused = yield* check(Layers.login(double.url, "not-the-password"))
      expect(stepOf(refused, "auth")?.hint).toMatch(
        /^check SVC_INIT_ADMIN_USERNAME and SVC_INIT_ADMIN_PASSWORD\. The service allows 4 more failed attempts/,
      )
      double.next("/auth/login/LoginLocalUser", {
        status: 429,
        body: { error: "Too many attempts | Try again in 9s", trace: [] },
      })
      const limited = yield* check(Layers.login(double.url))
      expect(stepOf(limited, "auth")?.detail).toMatch(/retry after 9 s$/)
      expect(stepOf(limited, "auth")?.hint).toMatch(/too many failed logins: wait as it says/)
      expect(Check.format(refused)).not.toContain("not-the-password")
    }),
  )
})
