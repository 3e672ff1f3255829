/**
 * A change the service answers with nothing says what now holds, read back once: a resource's
 * tags (by name) and description, the alert closed with its kind and target, a stack's commits.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Tool from "../../../src/Tools/Catalog/Tool.js"
import * as Reach from "../../../src/Tools/Policy/Reach.js"
import { NOT_READ_BACK } from "../../../src/Tools/Records/ReadBack.js"
import { READS_BESIDE, readsBeside } from "../../../src/Tools/Records/ReadsBeside.js"
import * as Definitions from "../../support/Definitions.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

const connect = (scenario?: "drift") =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped(scenario === undefined ? {} : { scenario })
    const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
    return (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }))
  })

/** The answer's lines: its first, and the JSON after it. */
const read = (result: unknown) => {
  const [line, json] = Mcp.text(result).split("\n")
  return { line, value: JSON.parse(json ?? "null") as Record<string, unknown> }
}

describe("a change answered with nothing says what now holds", () => {
  it.scopedLive("resource_meta: the tags by name and the description, as the service now holds them", () =>
    Effect.gen(function* () {
      const call = yield* connect()
      const result = yield* call("svc_update", {
        resource_type: "resource_meta",
        params: { target: { type: "Deployment", id: "docs" }, tags: ["canary", "production"], description: "the docs" },
      })
      expect(result.isError, Mcp.text(result)).toBeFalsy()
      const { line, value } = read(result)
      expect(line).toBe("[svc-mcp: the meta of the deployment docs now, read back]")
      expect(value).toEqual({ tags: ["canary", "production"], description: "the docs", template: false })
    }),
  )

  it.scopedLive("close_alert: the alert closed, its kind and its target by name", () =>
    Effect.gen(function* () {
      const call = yield* connect()
      const rows = Mcp.text(yield* call("svc_list", { resource_type: "alert" })).split("\n")[1] ?? "[]"
      const alert = (JSON.parse(rows) as Array<Array<unknown>>).find((row) => row[3] === "ServerMem")
      const id = alert?.[5] as string
      expect(id).toMatch(/^[0-9a-f]{24}$/)
      const { line, value } = read(yield* call("svc_execute", { operation: "close_alert", params: { id } }))
      expect(line).toBe(`[svc-mcp: the alert ${id} is closed, read back]`)
      expect(value).toEqual({
        alert: id,
        resolved: true,
        what: "ServerMem",
        target: "Server prod-02",
        level: "WARNING",
      })
    }),
  )

  it.scopedLive("refresh_stack_cache: the deployed and repository commits, and whether they differ", () =>
    Effect.gen(function* () {
      const call = yield* connect("drift")
      const { line, value } = read(
        yield* call("svc_execute", { operation: "refresh_stack_cache", params: { stack: "web" } }),
      )
      expect(line).toBe(
        "[svc-mcp: the cache of the stack web is refreshed; its commits now, read back: the deployed commit is not the repository's]",
      )
      expect(value).toEqual({ deployed_commit: "a1c4e09", repository_commit: "5d27b8f", differs: true })
      // fields: ["*"] is the service's own answer, and reads nothing back.
      const whole = yield* call("svc_execute", {
        operation: "refresh_stack_cache",
        params: { stack: "web" },
        fields: ["*"],
      })
      expect(Mcp.text(whole)).toBe("{}")
    }),
  )

  it.scopedLive("a permission on a resource: the level the user now holds on it, by name", () =>
    Effect.gen(function* () {
      const call = yield* connect()
      const { line, value } = read(
        yield* call("svc_update", {
          resource_type: "permission_on_target",
          params: {
            user_target: { type: "User", id: "bob" },
            resource_target: { type: "Deployment", id: "docs" },
            permission: "Execute",
          },
        }),
      )
      expect(line).toBe("[svc-mcp: the permission now, read back]")
      expect(value).toEqual({
        user_target: "User bob",
        resource_target: "Deployment docs",
        level: "Execute",
        specific: [],
      })
    }),
  )

  it.scopedLive("a permission on a type, base permissions, admin: what the user now holds", () =>
    Effect.gen(function* () {
      const call = yield* connect()
      const onType = read(
        yield* call("svc_update", {
          resource_type: "permission_on_resource_type",
          params: { user_target: { type: "UserGroup", id: "developers" }, resource_type: "Stack", permission: "Read" },
        }),
      )
      expect(onType.line).toBe(
        "[svc-mcp: the permission of UserGroup developers on every Stack is now Read, read back]",
      )
      expect(onType.value).toEqual({
        user_target: "UserGroup developers",
        resource_type: "Stack",
        level: "Read",
        specific: [],
      })
      const base = read(
        yield* call("svc_update", {
          resource_type: "user_base_permissions",
          params: { user_id: "bob", create_builds: true },
        }),
      )
      expect(base.line).toBe("[svc-mcp: the base permissions of the user bob now, read back]")
      expect(base.value).toEqual({ user: "bob", enabled: true, create_servers: false, create_builds: true })
    }),
  )

  it.scopedLive("refresh_stack_cache on a stack never deployed: unknown, never in sync", () =>
    Effect.gen(function* () {
      const call = yield* connect()
      const created = yield* call("svc_create", {
        resource_type: "stack",
        params: { name: "fresh", config: { server_id: "prod-01", repo: "acme/fresh", branch: "main" } },
      })
      expect(created.isError, Mcp.text(created)).toBeFalsy()
      const { line, value } = read(
        yield* call("svc_execute", { operation: "refresh_stack_cache", params: { stack: "fresh" } }),
      )
      expect(line).toBe(
        "[svc-mcp: the cache of the stack fresh is refreshed; its commits now, not all known, read back]",
      )
      expect(value.deployed_commit).toBe("never deployed")
      expect(value.differs).toBe("unknown")
    }),
  )
})

/** Whether a definition is the service's answer of nothing: NoData, by reference or itself; or no definition at all. */
const answersNothing = (name: string | null): boolean => {
  if (name === null) return true
  const definition = Definitions.document.definitions[name]
  if (definition === undefined) return true
  if (name === "NoData") return true
  const ref = definition.$ref
  return ref !== undefined && answersNothing(decodeURIComponent(ref.replace("#/definitions/", "")))
}

describe("every write with a tool that answers nothing is read back, or says why not", () => {
  const offered = new Set(Reach.all.flatMap((tool) => tool.selectors.map((selector) => Tool.pathOf(tool, selector))))
  const nothing = Object.entries(Definitions.document.endpoints)
    .filter(([endpoint, { response }]) => !endpoint.startsWith("read/") && answersNothing(response))
    .map(([endpoint]) => endpoint)

  it("finds the writes the service answers with nothing", () => {
    // The walk finds what the definitions say, not a list by hand: these are among them.
    expect(nothing).toEqual(
      expect.arrayContaining(["write/UpdatePermissionOnTarget", "write/CloseAlert", "write/UpdateUserGroup"]),
    )
  })

  it("each offered at either reach has a read-back or a reasoned exemption, and none both", () => {
    const bare = nothing.filter(
      (endpoint) =>
        offered.has(endpoint) && readsBeside(endpoint).readBack === undefined && NOT_READ_BACK[endpoint] === undefined,
    )
    expect(bare).toEqual([])
    for (const endpoint of Object.keys(NOT_READ_BACK)) {
      expect(readsBeside(endpoint).readBack, endpoint).toBeUndefined()
      expect(NOT_READ_BACK[endpoint]?.length, endpoint).toBeGreaterThan(20)
    }
    // Each read-back is of an endpoint that answers nothing and has a tool, and reads an endpoint of the definitions.
    const readBacks = Object.keys(READS_BESIDE).filter((endpoint) => readsBeside(endpoint).readBack !== undefined)
    for (const endpoint of readBacks) {
      expect(nothing, endpoint).toContain(endpoint)
      expect(offered.has(endpoint), endpoint).toBe(true)
    }
  })
})
