/**
 * Users, keys, groups and permissions made through the sandbox's API are what
 * its permission rules then apply; a compose file written is what later reads
 * show and the next deploy runs; a check finds the newer image its registry
 * holds, and a deploy pulls it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

type Call = (endpoint: string, params?: unknown) => Effect.Effect<{ status: number; body: Any }>

const session = Effect.map(Sandboxes.scoped(), (sandbox) => {
  const as =
    (headers: Record<string, string>): Call =>
    (endpoint, params = {}) =>
      Effect.promise(() => Sandboxes.request(sandbox, endpoint, params, headers))
  const byKey = (key: string, secret: string) => as({ "x-api-key": key, "x-api-secret": secret })
  const admin = byKey(sandbox.apiKey.key, sandbox.apiKey.secret)
  const ok = (endpoint: string, params: unknown = {}) =>
    Effect.flatMap(admin(endpoint, params), ({ status, body }) =>
      status === 200 ? Effect.succeed(body) : Effect.die(new Error(`${endpoint}: ${status} ${JSON.stringify(body)}`)),
    )
  const login = (username: string, password: string) =>
    Effect.map(
      Effect.promise(() => Sandboxes.request(sandbox, "auth/login/LoginLocalUser", { username, password }, {})),
      ({ body }) => as({ authorization: body.data.jwt }),
    )
  return { sandbox, admin, ok, byKey, login }
})

const completed = (call: Call, id: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const { body } = yield* call("read/GetUpdate", { id })
      if (body.status === "Complete") return body
      yield* Effect.sleep("5 millis")
    }
    throw new Error(`update ${id} did not complete`)
  })

const lacks = (type: string, level: string) => ({
  status: 500,
  body: {
    error: `User does not have required permissions on this ${type}. Must have at least ${level} permissions`,
    trace: [],
  },
})

describe("the sandbox's users, keys and permissions", () => {
  it.scopedLive(
    "a service user's key, its secret answered once, may do what its permissions give, and nothing once deleted",
    () =>
      Effect.gen(function* () {
        const { ok, admin, byKey } = yield* session
        const bot = yield* ok("write/CreateServiceUser", { username: "ci-bot", description: "CI" })
        expect(bot.config).toEqual({ type: "Service", data: { description: "CI" } })
        const made = yield* ok("write/CreateApiKeyForServiceUser", { user_id: "ci-bot", name: "pipeline" })
        expect(made).toEqual({ key: expect.stringMatching(/^K-/), secret: expect.stringMatching(/^S-/) })
        const listed = yield* ok("read/ListApiKeysForServiceUser", { user: "ci-bot" })
        expect(listed).toEqual([expect.objectContaining({ key: made.key, secret: "", name: "pipeline" })])
        // A user that is not a service user gets no key this way.
        expect((yield* admin("write/CreateApiKeyForServiceUser", { user_id: "alice", name: "x" })).status).toBe(500)

        const ci = byKey(made.key, made.secret)
        // No permission yet: it lists nothing and may change nothing.
        expect((yield* ci("read/ListStacks")).body).toEqual([])
        expect(yield* ci("read/GetStack", { stack: "web" })).toEqual(lacks("Stack", "Read"))
        yield* ok("write/UpdatePermissionOnTarget", {
          user_target: { type: "User", id: "ci-bot" },
          resource_target: { type: "Stack", id: "web" },
          permission: "Execute",
        })
        expect((yield* ci("read/ListStacks")).body.map((s: Any) => s.name)).toEqual(["web"])
        expect((yield* ci("read/GetPermission", { target: { type: "Stack", id: "web" } })).body.level).toBe("Execute")
        const deploy = yield* ci("execute/DeployStack", { stack: "web" })
        expect(deploy.status).toBe(200)
        expect((yield* completed(ci, deploy.body._id.$oid)).success).toBe(true)
        expect(yield* ci("execute/DeployStack", { stack: "monitoring" })).toEqual(lacks("Stack", "Execute"))
        expect(yield* ci("write/UpdateStack", { id: "web", config: {} })).toEqual(lacks("Stack", "Write"))
        expect((yield* ci("execute/BatchDeployStack", { pattern: "*" })).body).toHaveLength(1)

        yield* ok("write/DeleteApiKeyForServiceUser", { key: made.key })
        expect((yield* ci("read/ListStacks")).status).toBe(401)
      }),
  )

  it.scopedLive(
    "a user group's level on a type reaches its members; only the super admin makes admins, and nobody deletes it",
    () =>
      Effect.gen(function* () {
        const { ok, admin, login } = yield* session
        yield* ok("write/CreateLocalUser", { username: "dave", password: "dave-password" })
        const dave = yield* login("dave", "dave-password")
        expect(yield* dave("execute/PruneImages", { server: "prod-01" })).toEqual(lacks("Server", "Execute"))
        // The operators may execute on every server.
        yield* ok("write/AddUserToUserGroup", { user_group: "operators", user: "dave" })
        expect((yield* dave("execute/PruneImages", { server: "prod-01" })).status).toBe(200)
        expect(yield* dave("write/UpdateServer", { id: "prod-01", config: {} })).toEqual(lacks("Server", "Write"))
        expect(yield* dave("write/CreateLocalUser", { username: "eve", password: "x" })).toEqual({
          status: 500,
          body: { error: "This call is admin-only", trace: [] },
        })
        yield* ok("write/RemoveUserFromUserGroup", { user_group: "operators", user: "dave" })
        expect(yield* dave("execute/PruneImages", { server: "prod-01" })).toEqual(lacks("Server", "Execute"))

        // An admin, not the super admin: it manages users, but not admins.
        yield* ok("write/UpdateUserAdmin", { user_id: "dave", admin: true })
        expect((yield* dave("write/UpdateServer", { id: "prod-01", config: {} })).status).toBe(200)
        const superOnly = yield* dave("write/UpdateUserAdmin", { user_id: "bob", admin: true })
        expect(superOnly.body.error).toBe("This call is super-admin-only")
        expect((yield* dave("write/DeleteUser", { user: "admin" })).status).toBe(500)
        expect((yield* dave("write/DeleteUser", { user: "bob" })).status).toBe(200)
        expect((yield* admin("write/DeleteUser", { user: "admin" })).body.error).toBe("User cannot delete themselves.")
        // Disabled, its token is refused.
        yield* ok("write/UpdateUserAdmin", { user_id: "dave", admin: false })
        yield* ok("write/UpdateUserBasePermissions", { user_id: "dave", enabled: false })
        expect((yield* dave("read/ListStacks")).status).toBe(401)
      }),
  )
})

describe("the sandbox's files and images", () => {
  it.scopedLive("a written compose file shows in the stack's reads, and the next deploy runs it", () =>
    Effect.gen(function* () {
      const { ok, admin } = yield* session
      const compose = "services:\n  web:\n    image: nginx:1.27\n  cache:\n    image: redis:7\n"
      const update = yield* ok("write/WriteStackFileContents", {
        stack: "web",
        file_path: "compose.yaml",
        contents: compose,
      })
      expect(update).toMatchObject({ operation: "WriteStackContents", status: "Complete", success: true })
      const web = yield* ok("read/GetStack", { stack: "web" })
      expect(web.info.remote_contents).toEqual([
        { path: "compose.yaml", contents: compose, services: ["web", "cache"] },
      ])
      expect(web.info.latest_message).toBe("admin: Write compose.yaml")
      expect((yield* ok("read/ListStackServices", { stack: "web" })).map((s: Any) => s.service)).toEqual([
        "web",
        "cache",
      ])
      // Changed: DeployStackIfChanged deploys it, and the deployed contents are the written ones (FileContents:
      // a path and contents, no services).
      const deploy = yield* ok("execute/DeployStackIfChanged", { stack: "web" })
      expect(deploy._id).toBeDefined()
      yield* completed(admin, deploy._id.$oid)
      const deployed = (yield* ok("read/GetStack", { stack: "web" })).info
      expect(deployed.deployed_contents).toEqual([{ path: "compose.yaml", contents: compose }])
      expect(deployed.deployed_hash).toBe(web.info.latest_hash)
      const again = yield* ok("execute/DeployStackIfChanged", { stack: "web" })
      expect(again._id).toBeUndefined()
      // A stack of neither a repository nor files on its host has no file to write.
      yield* ok("write/CreateStack", { name: "inline", config: { file_contents: compose } })
      const refused = yield* admin("write/WriteStackFileContents", { stack: "inline", file_path: "x", contents: "" })
      expect(refused.body.error).toBe(
        "Stack is not configured to use Files on Host or Git Repo, can't write file contents",
      )
    }),
  )

  it.scopedLive("a check finds the monitoring stack's newer grafana, raises its alert; a deploy pulls it", () =>
    Effect.gen(function* () {
      const { ok, admin } = yield* session
      const listed = () =>
        Effect.map(ok("read/ListStacks", { query: { names: ["monitoring"] } }), (list) =>
          list[0].info.services.map((s: Any) => [s.service, s.update_available]),
        )
      expect(yield* listed()).toEqual([
        ["prometheus", false],
        ["grafana", false],
      ])
      const check = yield* ok("write/CheckStackForUpdate", { stack: "monitoring" })
      expect(check.services).toEqual([
        { service: "prometheus", image: "library/prometheus:latest", update_available: false },
        {
          service: "grafana",
          image: "library/grafana:latest",
          update_available: true,
          latest_image: "library/grafana:latest",
        },
      ])
      expect(yield* listed()).toEqual([
        ["prometheus", false],
        ["grafana", true],
      ])
      const open = () =>
        Effect.map(
          ok("read/ListAlerts", { query: { resolved: false, "data.type": "StackImageUpdateAvailable" } }),
          (a) => a.alerts.map((x: Any) => x.data.data.service),
        )
      expect(yield* open()).toEqual(["grafana"])
      const deploy = yield* ok("execute/DeployStack", { stack: "monitoring" })
      const done = yield* completed(admin, deploy._id.$oid)
      // The pull fetches grafana's new layers and the up recreates its container; prometheus runs on.
      const pull = done.logs.find((l: Any) => l.stage === "Compose Pull")
      expect(pull.stderr).toMatch(/^ grafana Pulling\n [0-9a-f]{12} Pulling fs layer\n[\s\S]* grafana Pulled$/m)
      expect(pull.stderr).toMatch(/ prometheus Pulling\n prometheus Pulled/)
      const up = done.logs.find((l: Any) => l.stage === "Compose Up")
      expect(up.stderr).toContain(" Container monitoring-prometheus-1  Running")
      expect(up.stderr).toContain(" Container monitoring-grafana-1  Recreated")
      expect(up.stderr).toMatch(/ Container monitoring-grafana-1 {2}Started$/)
      expect(yield* open()).toEqual([])
      expect((yield* ok("write/CheckStackForUpdate", { stack: "monitoring" })).services[1].update_available).toBe(false)
      expect(yield* ok("write/CheckDeploymentForUpdate", { deployment: "api" })).toMatchObject({
        update_available: false,
      })
    }),
  )
})
