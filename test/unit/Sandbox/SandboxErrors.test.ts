/**
 * The sandbox refuses as the service refuses (service-notes.md): bad params with serde's
 * words, unknown fields ignored, the three credential failures, the rate limiter's 429,
 * and the read-only user's refusals.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sandboxes from "../../support/Sandbox.js"

const { request } = Sandboxes

const keyHeaders = (key: { key: string; secret: string }) => ({ "x-api-key": key.key, "x-api-secret": key.secret })

describe("the sandbox refuses as the service does", () => {
  it.scopedLive("bad params: a 500 with serde's words; unknown fields are ignored", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const call = (endpoint: string, params: unknown) =>
        Effect.promise(() => request(sandbox, endpoint, params, keyHeaders(sandbox.apiKey)))
      const cases: Array<[string, unknown, string | RegExp]> = [
        ["write/CreateStack", {}, "missing field `name`"],
        ["read/GetStackLog", { stack: "web" }, "missing field `services`"],
        ["read/GetStack", {}, "missing field `stack`"],
        ["write/UpdateStack", { id: "web" }, "missing field `config`"],
        ["read/GetStackLog", { stack: "web", services: "web" }, 'invalid type: string "web", expected a sequence'],
        ["read/ListStacks", { limit: "5" }, 'invalid type: string "5", expected u64'],
        ["read/ListStacks", { limit: -1 }, "invalid value: integer `-1`, expected u64"],
        ["read/ListStacks", { limit: 1.5 }, "invalid type: floating point `1.5`, expected u64"],
        ["write/CreateVariable", { name: "X", is_secret: "yes" }, 'invalid type: string "yes", expected a boolean'],
        ["write/CreateStack", { name: "x", config: [] }, "invalid type: sequence, expected struct _PartialStackConfig"],
        ["read/ListStacks", [], "invalid type: sequence, expected struct ListStacks"],
        // The five endpoints without a definition still read a struct.
        ["execute/RunServerCopy", null, "invalid type: null, expected struct RunServerCopy"],
        ["execute/RunServerMove", 3, "invalid type: integer `3`, expected struct RunServerMove"],
        [
          "write/UpdateTagColor",
          { tag: "production", color: "Purple2" },
          /^unknown variant `Purple2`, expected one of `LightSlate`, `Slate`, /,
        ],
        [
          "read/SearchStackLog",
          { stack: "web", services: [], terms: ["x"], combinator: "Xor" },
          "unknown variant `Xor`, expected `Or` or `And`",
        ],
        [
          "write/UpdateDeployment",
          { id: "api", config: { image: "redis:7" } },
          'invalid type: string "redis:7", expected adjacently tagged enum DeploymentImage',
        ],
      ]
      for (const [endpoint, params, error] of cases) {
        const { status, body } = yield* call(endpoint, params)
        expect(status, `${endpoint} ${JSON.stringify(params)}`).toBe(500)
        expect(body.error, `${endpoint} ${JSON.stringify(params)}`).toMatch(error)
        expect(body.trace).toEqual([])
      }

      // A field the service does not know has no effect, at the top and inside config.
      const got = yield* call("read/GetStack", { stack: "web", bogus: 1 })
      expect(got.status).toBe(200)
      const updated = yield* call("write/UpdateStack", { id: "web", config: { branch: "next", brnach: "typo" } })
      expect(updated.status).toBe(200)
      expect(updated.body.config.branch).toBe("next")
      expect(updated.body.config).not.toHaveProperty("brnach")

      // The lists that are not paginated ignore limit and page; ListTags takes a database filter.
      expect((yield* call("read/ListVariables", { limit: 1, page: 2 })).body).toHaveLength(3)
      expect((yield* call("read/ListTags", { limit: 1 })).body).toHaveLength(3)
      const filtered = (yield* call("read/ListTags", { query: { name: "production" } })).body
      expect(filtered.map((t: { name: string }) => t.name)).toEqual(["production"])
      const any = (yield* call("read/ListTags", { query: { name: { $in: ["staging", "monitoring"] } } })).body
      expect(any.map((t: { name: string }) => t.name)).toEqual(["staging", "monitoring"])
    }),
  )

  it.scopedLive("credentials: a wrong key 401 with attempts left, none 401, a key without secret 500", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const call = (headers: Record<string, string>) =>
        Effect.promise(() => request(sandbox, "read/ListStacks", {}, headers))

      expect(yield* call({})).toEqual({
        status: 401,
        body: { error: "Invalid client credentials", trace: [] },
      })
      expect(yield* call({ "x-api-key": sandbox.apiKey.key })).toEqual({
        status: 500,
        body: { error: "Request headers have X-API-KEY but missing X-API-SECRET", trace: [] },
      })
      const wrong = keyHeaders({ key: sandbox.apiKey.key, secret: "not-the-secret" })
      expect(yield* call(wrong)).toEqual({
        status: 401,
        body: { error: "Invalid user credentials | You have 4 attempts remaining", trace: [] },
      })
      expect((yield* call(keyHeaders({ key: "no-such-key", secret: "x" }))).body.error).toBe(
        "Invalid user credentials | You have 3 attempts remaining",
      )
      // A bad login counts against the same address.
      const login = yield* Effect.promise(() =>
        request(sandbox, "auth/login/LoginLocalUser", { username: "admin", password: "nope" }, {}),
      )
      expect(login).toEqual({
        status: 401,
        body: { error: "Invalid login credentials | You have 2 attempts remaining", trace: [] },
      })
      // An invalid token is a 500 and does not count.
      for (let i = 0; i < 3; i++) {
        expect(yield* call({ authorization: "not-a-token" })).toEqual({
          status: 500,
          body: { error: "Invalid user credentials", trace: ["failed to authenticate jwt"] },
        })
      }
      expect((yield* call(keyHeaders(sandbox.apiKey))).status).toBe(200)
    }),
  )

  it.scopedLive(
    "after 5 failed authentications within the window, every call from the address gets 429 until it passes",
    () =>
      Effect.gen(function* () {
        // The window is on Date, which stands still here until the test moves it past the window.
        vi.useFakeTimers({ toFake: ["Date"] })
        yield* Effect.addFinalizer(() => Effect.sync(() => vi.useRealTimers()))
        const sandbox = yield* Sandboxes.scoped({ rateLimitWindowMs: 1500 })
        const call = (headers: Record<string, string>) =>
          Effect.promise(() => request(sandbox, "read/ListStacks", {}, headers))
        const wrong = keyHeaders({ key: "wrong", secret: "wrong" })
        const remaining = []
        for (let i = 0; i < 5; i++) remaining.push((yield* call(wrong)).body.error)
        expect(remaining.at(-1)).toBe("Invalid user credentials | You have 0 attempts remaining")
        for (const headers of [keyHeaders(sandbox.apiKey), keyHeaders(sandbox.viewer.apiKey), {}]) {
          const locked = yield* call(headers)
          expect(locked.status).toBe(429)
          expect(locked.body.error).toMatch(/^Too many attempts \| Try again in 2s$/)
        }
        const login = yield* Effect.promise(() =>
          request(sandbox, "auth/login/LoginLocalUser", { username: "admin", password: sandbox.password }, {}),
        )
        expect(login.status).toBe(429)
        vi.setSystemTime(Date.now() + 1400)
        expect((yield* call(keyHeaders(sandbox.apiKey))).status).toBe(429)
        vi.setSystemTime(Date.now() + 200)
        expect((yield* call(keyHeaders(sandbox.apiKey))).status).toBe(200)
      }),
  )

  it.scopedLive(
    "the viewer reads with its own key or login, and is refused every change as the service refuses it",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const viewer = keyHeaders(sandbox.viewer.apiKey)
        const call = (endpoint: string, params: unknown, headers: Record<string, string> = viewer) =>
          Effect.promise(() => request(sandbox, endpoint, params, headers))

        expect((yield* call("read/ListStacks", {})).body).toHaveLength(3)
        expect((yield* call("read/GetStack", { stack: "web" })).status).toBe(200)
        const keys = (yield* call("read/ListApiKeys", {})).body
        expect(keys.map((k: { key: string }) => k.key)).toEqual(["viewer-key"])

        const refused = (endpoint: string, params: unknown, error: string) =>
          Effect.gen(function* () {
            expect(yield* call(endpoint, params), endpoint).toEqual({ status: 500, body: { error, trace: [] } })
          })
        yield* refused(
          "write/UpdateStack",
          { id: "web", config: { branch: "x" } },
          "User does not have required permissions on this Stack. Must have at least Write permissions",
        )
        yield* refused(
          "write/RenameDeployment",
          { id: "api", name: "x" },
          "User does not have required permissions on this Deployment. Must have at least Write permissions",
        )
        yield* refused(
          "execute/DeployStack",
          { stack: "web" },
          "User does not have required permissions on this Stack. Must have at least Execute permissions",
        )
        yield* refused("write/CreateStack", { name: "x" }, "This call is admin-only")
        yield* refused("write/CreateTag", { name: "x" }, "This call is admin-only")
        yield* refused("write/UpdateVariableValue", { name: "LOG_LEVEL", value: "debug" }, "This call is admin-only")
        yield* refused("execute/BackupCoreDatabase", {}, "This call is admin-only")
        // Not-found is checked before the permission, as the service does.
        expect((yield* call("write/DeleteStack", { id: "nope" })).body.error).toBe(
          "did not find any Stack matching nope",
        )
        // A batch runs only the matches the user may execute: for the viewer, none, and nothing is refused.
        const batch = yield* call("execute/BatchDeployStack", { pattern: "*web" })
        expect(batch).toEqual({ status: 200, body: [] })

        // Logged in as the viewer, the token is the viewer's.
        const login = yield* call("auth/login/LoginLocalUser", { username: "viewer", password: "viewer-password" }, {})
        const jwt = { authorization: login.body.data.jwt }
        expect((yield* call("read/ListStacks", {}, jwt)).status).toBe(200)
        expect((yield* call("write/DeleteTag", { id: "staging" }, jwt)).body.error).toBe("This call is admin-only")

        // Nothing changed, and the admin may do what the viewer may not.
        const admin = keyHeaders(sandbox.apiKey)
        expect((yield* call("read/GetStack", { stack: "web" }, admin)).body.config.branch).toBe("main")
        expect(sandbox.world.history.updates).toHaveLength(0)
        expect((yield* call("write/UpdateStack", { id: "web", config: { branch: "x" } }, admin)).status).toBe(200)
      }),
  )
})
