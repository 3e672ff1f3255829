/**
 * The sandbox behaves like the service: state that later reads see, errors in
 * the service's shape, executions that complete, both auth methods.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { merge } from "../../../src/Sandbox/World/Store.js"
import { ADDED_IN_2_3_3 } from "../../../src/Service/Versions.js"
import { SvcClient } from "../../../src/SvcClient.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import { invoke } from "../../../src/Tools/Invoke.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"
import * as Spec from "../../support/Spec.js"
import { until } from "../../support/Wait.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read the service's JSON answers field by field
type Any = Record<string, any>

const call = (group: "read" | "write" | "execute", endpoint: string, params: object = {}) =>
  // biome-ignore lint/suspicious/noExplicitAny: errors are matched by their fields
  Effect.flatMap(SvcClient, (client) => client.call(group, endpoint, params)) as Effect.Effect<Any, any, SvcClient>

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Polls read/GetUpdate until the update is complete. */
const completed = (id: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const update = yield* call("read", "GetUpdate", { id })
      if (update.status === "Complete") return update
      yield* sleep(5)
    }
    throw new Error(`update ${id} did not complete`)
  })

describe("the sandbox", () => {
  it.scopedLive(`answers every endpoint the ${Spec.tools.length} tools reach: none is an unknown variant`, () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const unknown: Array<string> = []
      yield* Effect.gen(function* () {
        for (const tool of Definitions.all) {
          for (const selector of tool.selectors) {
            const endpoint = tool.endpoints[selector] as string
            const result = yield* Effect.either(call(tool.group, endpoint, {}))
            if (result._tag === "Left" && result.left.reason === "UnknownEndpoint") unknown.push(endpoint)
          }
        }
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      expect(unknown).toEqual([])
    }),
  )

  it("merges a partial config deeply, and keeps a key named __proto__ as a field", () => {
    const base = { a: { b: 1, c: 2 }, d: [1] }
    const patch = JSON.parse('{"a":{"c":3},"d":[2],"__proto__":{"x":1}}')
    const out = merge(base, patch)
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(JSON.stringify(out)).toBe('{"a":{"b":1,"c":3},"d":[2],"__proto__":{"x":1}}')
    expect(base).toEqual({ a: { b: 1, c: 2 }, d: [1] })
  })

  it.scopedLive("keeps a stack's state: create, get by name or id, update (merged), rename, copy, delete", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const created = yield* call("write", "CreateStack", {
          name: "shop",
          config: { server_id: "prod-01", file_paths: ["shop.yaml"] },
        })
        expect(created.name).toBe("shop")
        const id = created._id.$oid
        expect(id).toMatch(/^[0-9a-f]{24}$/)
        // The server named is stored by its id, as the service stores it.
        const server = yield* call("read", "GetServer", { server: "prod-01" })
        expect((yield* call("read", "GetStack", { stack: "shop" })).config).toMatchObject({
          server_id: server._id.$oid,
          file_paths: ["shop.yaml"],
        })
        expect((yield* call("read", "GetStack", { stack: id })).name).toBe("shop")

        const updated = yield* call("write", "UpdateStack", { id: "shop", config: { branch: "release" } })
        expect(updated.config).toMatchObject({ file_paths: ["shop.yaml"], branch: "release" })

        const renamed = yield* call("write", "RenameStack", { id, name: "store" })
        expect(renamed).toMatchObject({ operation: "RenameStack", status: "Complete", success: true })
        const names = (yield* call("read", "ListStacks", {})).map((s: Any) => s.name)
        expect(names).toContain("store")
        expect(names).not.toContain("shop")

        const copy = yield* call("write", "CopyStack", { name: "store-2", id: "store" })
        expect(copy.config.branch).toBe("release")
        expect(copy._id.$oid).not.toBe(id)

        const deleted = yield* call("write", "DeleteStack", { id: "store" })
        expect(deleted.name).toBe("store")
        const gone = yield* Effect.flip(call("read", "GetStack", { stack: "store" }))
        expect(gone).toMatchObject({
          _tag: "SvcServiceError",
          status: 500,
          error: "did not find any Stack matching store",
        })
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive(
    "keeps state for every resource type with a config: create, get, list, update, rename, copy, delete",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        // Two fields of each type's config: one given at creation, one by the update, merged.
        const fields: Record<string, [object, object]> = {
          stack: [{ branch: "a" }, { repo: "b" }],
          build: [{ branch: "a" }, { repo: "b" }],
          server: [{ address: "a" }, { region: "b" }],
          procedure: [{ schedule: "a" }, { schedule_timezone: "b" }],
          deployment: [{ network: "a" }, { command: "b" }],
          alerter: [{ enabled: true }, { alert_types: ["Test"] }],
          action: [{ file_contents: "a" }, { schedule: "b" }],
          repo: [{ branch: "a" }, { repo: "b" }],
          builder: [
            { type: "Url", params: { address: "a" } },
            { type: "Url", params: { passkey: "b" } },
          ],
          swarm: [{ send_unhealthy_alerts: true }, { links: ["b"] }],
          sync_resource: [{ branch: "a" }, { repo: "b" }],
        }
        yield* Effect.gen(function* () {
          // The types svc_copy takes; the others are the special types below. sync_resource has no rename.
          const kinds = Object.keys(Tables.copy)
          expect(kinds).toHaveLength(11)
          for (const kind of kinds) {
            const key = kind === "sync_resource" ? "sync" : kind
            const ep = (table: Record<string, string>) => table[kind] as string
            const [first, second] = fields[kind] as [object, object]
            yield* call("write", ep(Tables.create), { name: `${kind}-a`, config: first })
            yield* call("write", ep(Tables.update), { id: `${kind}-a`, config: second })
            const merged = kind === "builder" ? { params: { address: "a", passkey: "b" } } : { ...first, ...second }
            expect((yield* call("read", ep(Tables.get), { [key]: `${kind}-a` })).config, kind).toMatchObject(merged)
            const renamed = Object.hasOwn(Tables.rename, kind) ? `${kind}-b` : `${kind}-a`
            if (renamed !== `${kind}-a`) yield* call("write", ep(Tables.rename), { id: `${kind}-a`, name: renamed })
            yield* call("write", ep(Tables.copy), { name: `${kind}-c`, id: renamed })
            const names = (yield* call("read", ep(Tables.list), { limit: 0 })).map((r: Any) => r.name)
            expect(names, kind).toEqual(expect.arrayContaining([renamed, `${kind}-c`]))
            if (renamed !== `${kind}-a`) expect(names, kind).not.toContain(`${kind}-a`)
            yield* call("write", ep(Tables.delete_), { id: renamed })
            const gone = yield* Effect.flip(call("read", ep(Tables.get), { [key]: renamed }))
            expect(gone.error, kind).toMatch(/^did not find any \w+ matching /)
            expect((yield* call("read", ep(Tables.get), { [key]: `${kind}-c` })).config, kind).toMatchObject(merged)
          }
        }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      }),
  )

  it.scopedLive("the special types: tag colour, variable value, accounts, user groups", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        yield* call("write", "CreateTag", { name: "edge" })
        expect((yield* call("write", "UpdateTagColor", { tag: "edge", color: "LightBlue" })).color).toBe("LightBlue")
        expect((yield* call("read", "GetTag", { tag: "edge" })).color).toBe("LightBlue")

        yield* call("write", "CreateVariable", { name: "REGION", value: "eu" })
        yield* call("write", "UpdateVariableValue", { name: "REGION", value: "us" })
        expect((yield* call("read", "GetVariable", { name: "REGION" })).value).toBe("us")
        const secret = (yield* call("read", "ListVariables", {})).find((v: Any) => v.name === "DB_PASSWORD")
        expect(secret.is_secret).toBe(true)

        const account = yield* call("write", "CreateGitProviderAccount", {
          account: { domain: "gitlab.com", username: "ci" },
        })
        const accountId = account._id.$oid
        yield* call("write", "UpdateGitProviderAccount", { id: accountId, account: { https: false } })
        expect(yield* call("read", "GetGitProviderAccount", { id: accountId })).toMatchObject({
          domain: "gitlab.com",
          https: false,
        })

        yield* call("write", "CreateUserGroup", { name: "sre" })
        yield* call("write", "RenameUserGroup", { id: "sre", name: "site-reliability" })
        expect((yield* call("read", "GetUserGroup", { user_group: "site-reliability" })).name).toBe("site-reliability")
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive(
    "names are unique per type; a missing field or an unknown name is an error in the service's shape",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        yield* Effect.gen(function* () {
          const duplicate = yield* Effect.flip(call("write", "CreateServer", { name: "prod-01" }))
          expect(duplicate).toMatchObject({ _tag: "SvcServiceError", status: 500 })
          expect(duplicate.error).toMatch(/already exists/)
          const missing = yield* Effect.flip(call("read", "GetStackLog", { stack: "web" }))
          expect(missing).toMatchObject({ status: 500, error: "missing field `services`" })
          const unknown = yield* Effect.flip(call("execute", "DeployStack", { stack: "nope" }))
          expect(unknown.trace).toEqual(["failed to get Stack"])
        }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      }),
  )

  it.scopedLive(
    "an execution goes InProgress -> Complete; stopping a stack shows in list, summary and containers",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        yield* Effect.gen(function* () {
          const before = yield* call("read", "GetStacksSummary", {})
          expect(before).toMatchObject({ total: 3, running: 2, stopped: 1 })
          const update = yield* call("execute", "StopStack", { stack: "web" })
          expect(update).toMatchObject({
            operation: "StopStack",
            status: "InProgress",
            success: true,
            target: { type: "Stack" },
          })
          const done = yield* completed(update._id.$oid)
          expect(done.success).toBe(true)
          // docker compose's own words, on stderr where compose writes its progress, for each container.
          expect(done.logs).toEqual([
            expect.objectContaining({
              stage: "Compose Command",
              command: "docker compose -p web stop",
              stdout: "",
              stderr: [
                " Container web-web-1  Stopping",
                " Container web-worker-1  Stopping",
                " Container web-redis-1  Stopping",
                " Container web-web-1  Stopped",
                " Container web-worker-1  Stopped",
                " Container web-redis-1  Stopped",
              ].join("\n"),
              success: true,
            }),
          ])
          const web = (yield* call("read", "ListStacks", {})).find((s: Any) => s.name === "web")
          expect(web.info.state).toBe("stopped")
          expect(yield* call("read", "GetStacksSummary", {})).toMatchObject({ running: 1, stopped: 2 })
          const containers = yield* call("read", "ListContainers", { server: "prod-01" })
          expect(containers.filter((c: Any) => c.name.startsWith("web-")).map((c: Any) => c.state)).toEqual([
            "exited",
            "exited",
            "exited",
          ])
          const listed = yield* call("read", "ListUpdates", {})
          expect(listed.updates[0].id).toBe(update._id.$oid)
        }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      }),
  )

  it.scopedLive("a deploy writes log lines that logs and searches return; batches start one Update each", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const update = yield* call("execute", "DeployStack", { stack: "staging-web" })
        yield* completed(update._id.$oid)
        const log = yield* call("read", "GetStackLog", { stack: "staging-web", services: ["worker"], tail: 2 })
        expect(log.stdout.split("\n")).toEqual([
          "worker | listening on 0.0.0.0:8080",
          "worker | ready to accept connections",
        ])
        const found = yield* call("read", "SearchStackLog", {
          stack: "staging-web",
          services: [],
          terms: ["listening", "redis"],
          combinator: "And",
        })
        expect(found.stdout).toBe("redis | listening on 0.0.0.0:8080")
        const batch = yield* call("execute", "BatchDeployStack", { pattern: "*web" })
        expect(batch.map((b: Any) => b.status)).toEqual(["Ok", "Ok"])
        expect(batch.every((b: Any) => b.data.operation === "DeployStack")).toBe(true)
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive(
    "JWT login with a short expiry: the expired token is answered as the service does, and renewed once",
    () =>
      Effect.gen(function* () {
        // The token's expiry is on Date, which stands still here until the test moves it past the expiry.
        vi.useFakeTimers({ toFake: ["Date"] })
        yield* Effect.addFinalizer(() => Effect.sync(() => vi.useRealTimers()))
        const sandbox = yield* Sandboxes.scoped({ jwtTtlMs: 500 })
        yield* Effect.gen(function* () {
          yield* call("read", "ListServers", {})
          expect(sandbox.logins()).toBe(1)
          vi.setSystemTime(Date.now() + 550)
          const answers = yield* Effect.all(
            Array.from({ length: 10 }, () => call("read", "ListServers", {})),
            { concurrency: "unbounded" },
          )
          expect(answers).toHaveLength(10)
          expect(sandbox.logins()).toBe(2)
        }).pipe(Effect.provide(Layers.client(Sandboxes.loginConfig(sandbox))))

        const response = yield* Effect.promise(() =>
          fetch(`${sandbox.url}/read/ListServers`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: "not-a-token" },
            body: "{}",
          }),
        )
        expect(response.status).toBe(500)
        expect(yield* Effect.promise(() => response.json())).toMatchObject({ error: "Invalid user credentials" })
      }),
  )

  it.scopedLive("as a 2.3.2 service, lacks the seven 2.3.3 endpoints and says so as an unknown variant", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ version: "2.3.2" })
      yield* Effect.gen(function* () {
        for (const path of ADDED_IN_2_3_3) {
          const [group, endpoint] = path.split("/") as ["read", string]
          const error = yield* Effect.flip(call(group, endpoint, {}))
          expect(error).toMatchObject({ reason: "UnknownEndpoint" })
        }
        const missing = yield* Effect.flip(
          invoke(Definitions.svc_update, { resource_type: "user_group", params: { id: "operators" } }),
        )
        expect(missing.message).toMatch(
          /write\/UpdateUserGroup is not offered by this version of the service .*; the endpoint was added in service API 2\.3\.3$/,
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }).pipe(Effect.provide(Layers.params)),
  )

  it.scopedLive(
    "paginated lists stop at 50 items unless limit is given, limit 0 returns all; ListTags ignores limit",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        yield* Effect.gen(function* () {
          for (let i = 0; i < 60; i++) yield* call("write", "CreateStack", { name: `s-${i}` })
          expect(yield* call("read", "ListStacks", {})).toHaveLength(50)
          expect(yield* call("read", "ListStacks", { limit: 0 })).toHaveLength(63)
          expect(yield* call("read", "ListStacks", { limit: 50, page: 1 })).toHaveLength(13)
          for (let i = 0; i < 60; i++) yield* call("write", "CreateTag", { name: `t-${i}` })
          expect(yield* call("read", "ListTags", { limit: 10, page: 3 })).toHaveLength(63)
        }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      }),
  )

  it.scopedLive("an execution's effect lands only when it completes", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ timing: { completeMs: 100 } })
      yield* Effect.gen(function* () {
        const update = yield* call("execute", "StopDeployment", { deployment: "api" })
        const state = () => sandbox.world.store.find("deployment", "api").info.state
        expect(state()).toBe("running")
        yield* until(() => sandbox.world.update(update._id.$oid).status === "InProgress")
        expect(state()).toBe("running")
        yield* completed(update._id.$oid)
        expect(state()).toBe("exited")
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )
})

describe("the sandbox's updates, filtered as the service's database filters them", () => {
  it.scopedLive("ListUpdates' query: what runs now over the whole estate, by status, type or id", () =>
    Effect.gen(function* () {
      // Long enough that the deploys are running while the updates are listed.
      const sandbox = yield* Sandboxes.scoped({ timing: { completeMs: 60_000 } })
      yield* Effect.gen(function* () {
        // A rename's Update is complete at once.
        yield* call("write", "RenameServer", { id: "prod-02", name: "prod-2" })
        const stack = yield* call("execute", "DeployStack", { stack: "web" })
        const deployment = yield* call("execute", "RestartDeployment", { deployment: "api" })
        const running = (yield* call("read", "ListUpdates", { query: { status: "InProgress" } })).updates
        expect(running.map((u: Any) => u.id).sort()).toEqual([stack._id.$oid, deployment._id.$oid].sort())
        expect(running.map((u: Any) => u.operation).sort()).toEqual(["DeployStack", "RestartDeployment"])
        const all = (yield* call("read", "ListUpdates", {})).updates
        expect(all.length).toBeGreaterThan(running.length)
        const done = (yield* call("read", "ListUpdates", { query: { status: { $ne: "InProgress" } } })).updates
        expect(done.length).toBe(all.length - running.length)
        const stacks = (yield* call("read", "ListUpdates", { query: { status: "InProgress", "target.type": "Stack" } }))
          .updates
        expect(stacks.map((u: Any) => u.id)).toEqual([stack._id.$oid])
        const byId = (yield* call("read", "ListUpdates", { query: { _id: deployment._id.$oid } })).updates
        expect(byId.map((u: Any) => u.operation)).toEqual(["RestartDeployment"])
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )
})

describe("the sandbox's executions, as the service runs them", () => {
  it.scopedLive(
    "DeployStackIfChanged with no change, DeployStack with services, renames, ListUpdates' pages, GetCoreInfo",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const headers = { "x-api-key": sandbox.apiKey.key, "x-api-secret": sandbox.apiKey.secret }
        const call = (endpoint: string, params: object = {}) =>
          Effect.map(
            Effect.promise(() => Sandboxes.request(sandbox, endpoint, params, headers)),
            (r) => r.body as Any,
          )
        // web runs as last deployed: nothing to do, an Update that was never stored.
        const unchanged = yield* call("execute/DeployStackIfChanged", { stack: "web" })
        expect(unchanged).toMatchObject({ operation: "DeployStack", status: "Complete", success: true })
        expect(unchanged).not.toHaveProperty("_id")
        // staging-web is stopped: deploying it changes something.
        const deployed = yield* call("execute/DeployStackIfChanged", { stack: "staging-web" })
        expect(deployed).toMatchObject({ operation: "DeployStack", status: "InProgress", success: true })
        expect(deployed._id.$oid).toMatch(/^[0-9a-f]{24}$/)
        const some = yield* call("execute/DeployStack", { stack: "web", services: ["worker"] })
        expect(some.operation).toBe("DeployStackService")
        expect((yield* call("execute/DeployStack", { stack: "web", services: [] })).operation).toBe("DeployStack")

        const renamed = yield* call("write/RenameServer", { id: "prod-02", name: "prod-2" })
        expect(renamed).toMatchObject({ operation: "RenameServer", target: { type: "Server" }, status: "Complete" })
        expect(yield* call("write/RenameTag", { id: "staging", name: "stage" })).toMatchObject({ name: "stage" })
        expect(yield* call("write/RenameUserGroup", { id: "developers", name: "devs" })).toMatchObject({
          name: "devs",
        })

        for (let i = 0; i < 120; i++) yield* call("execute/PullStack", { stack: "web" })
        const first = yield* call("read/ListUpdates", {})
        expect(first.updates).toHaveLength(100)
        expect(first.next_page).toBe(1)
        const second = yield* call("read/ListUpdates", { page: 1 })
        expect(second.updates).toHaveLength(24)
        expect(second).not.toHaveProperty("next_page")

        expect((yield* call("read/GetCoreInfo")).default_pagination_limit).toBe(50)
        expect(yield* call("read/GetVersion")).toEqual({ version: "2.3.3" })
      }),
  )
})
