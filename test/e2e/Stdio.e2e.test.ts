/**
 * The built server over stdio, driven as an assistant drives it.
 * `npm test` builds before it runs these.
 */
import * as Fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { VERSION } from "../../src/Shared/Version.js"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import * as Spec from "../support/Spec.js"
import { until } from "../support/Wait.js"

const USERS = { users: { [Layers.USER]: Layers.PASSWORD } }

const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })
const loginEnv = (url: string) => ({
  SVC_URL: url,
  SVC_INIT_ADMIN_USERNAME: Layers.USER,
  SVC_INIT_ADMIN_PASSWORD: Layers.PASSWORD,
})

const text = (result: unknown) => {
  const [first] = (result as { content: Array<{ type: string; text: string }> }).content
  expect(first?.type).toBe("text")
  return first?.text ?? ""
}

const line = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`
const INITIALIZE = line({
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
})

describe("the stdio server", () => {
  it("is built (npm test builds it first)", () => {
    expect(Fs.existsSync(Spawn.ENTRY)).toBe(true)
  })

  it.scopedLive(`lists the ${Spec.tools.length} tools with the schemas the arguments are decoded with`, () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client, protocolErrors } = yield* Spawn.connect(keyEnv(double.url))
      expect(client.getServerVersion()).toEqual({ name: "svc-mcp", version: VERSION })
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual(Definitions.all.map((tool) => tool.name))
      for (const tool of tools) {
        const definition = Definitions.byName.get(tool.name)
        expect(tool.inputSchema).toEqual(definition?.inputSchema)
        expect(tool.description?.length).toBeGreaterThan(40)
      }
      expect(double.requests).toHaveLength(0)
      expect(protocolErrors).toEqual([])
    }),
  )

  it.scopedLive("calls the endpoints and returns the service's JSON, with the API key", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client, protocolErrors, stderr } = yield* Spawn.connect(keyEnv(double.url))
      const listed = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "stack", params: { limit: 0 } } }),
      )
      expect(listed.isError).toBeFalsy()
      expect(JSON.parse(text(listed))).toEqual({ endpoint: "read/ListStacks", params: { limit: 0 } })
      const searched = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_search_logs",
          arguments: { resource_type: "stack", query: "panic", params: { stack: "web", services: [] } },
        }),
      )
      expect(JSON.parse(text(searched))).toEqual({
        endpoint: "read/SearchStackLog",
        params: { stack: "web", services: [], terms: ["panic"] },
      })
      const executed = yield* Effect.promise(() =>
        client.callTool({ name: "svc_execute", arguments: { operation: "deploy_stack", params: { stack: "web" } } }),
      )
      expect(JSON.parse(text(executed)).endpoint).toBe("execute/DeployStack")
      expect(double.requests.map((r) => r.path)).toEqual([
        "/read/ListStacks",
        "/read/SearchStackLog",
        "/execute/DeployStack",
      ])
      expect(double.requests.every((r) => r.headers.authorization === undefined)).toBe(true)
      expect(protocolErrors).toEqual([])
      expect(stderr()).toContain(
        `api-key auth over stdio; mode full: ${Spec.tools.length} tools, ${Spec.rows.length} selectors`,
      )
      expect(stderr()).not.toContain(Layers.SECRET)
    }),
  )

  it.scopedLive("logs in once with a username and password, and renews an expired token once", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      const { client, stderr } = yield* Spawn.connect(loginEnv(double.url))
      const call = () => client.callTool({ name: "svc_summary", arguments: { resource_type: "server" } })
      const first = yield* Effect.promise(() => Promise.all(Array.from({ length: 10 }, call)))
      expect(first.every((result) => !result.isError)).toBe(true)
      expect(double.logins).toBe(1)
      double.expireTokens()
      const second = yield* Effect.promise(() => Promise.all(Array.from({ length: 10 }, call)))
      expect(second.every((result) => !result.isError)).toBe(true)
      expect(double.logins).toBe(2)
      const token = double.calls().at(-1)?.headers.authorization as string
      expect(stderr()).not.toContain(Layers.PASSWORD)
      expect(stderr()).not.toContain(token)
    }),
  )

  it.scopedLive("answers failures as isError results with structured content, and keeps serving", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ ...Layers.API_KEY, version: "2.3.2" })
      const { client, protocolErrors } = yield* Spawn.connect(keyEnv(double.url))

      const refused = yield* Effect.promise(() =>
        client.callTool({ name: "svc_get", arguments: { resource_type: "user", params: "web" } }),
      )
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toMatchObject({ error: { kind: "invalid_arguments", tool: "svc_get" } })
      expect(text(refused)).toMatch(/resource_type "user" is not accepted by svc_get/)
      expect(double.requests).toHaveLength(0)

      double.next("/read/GetStack", { status: 500, body: { error: "no stack named web", trace: ["at db"] } })
      const failed = yield* Effect.promise(() =>
        client.callTool({ name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } }),
      )
      expect(failed.isError).toBe(true)
      expect(text(failed)).toMatch(/svc_get resource_type "stack": read\/GetStack failed: the service answered 500/)
      expect(failed.structuredContent).toEqual({
        error: {
          kind: "service_error",
          tool: "svc_get",
          selector: "stack",
          endpoint: "read/GetStack",
          status: 500,
          error: "no stack named web",
          trace: ["at db"],
          message: expect.any(String),
        },
      })

      const missing = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_inspect",
          arguments: { inspect_type: "stack_swarm_info", params: { stack: "web" } },
        }),
      )
      expect(missing.structuredContent).toMatchObject({
        error: { kind: "unknown_endpoint", endpoint: "read/InspectStackSwarmInfo" },
      })
      expect(text(missing)).toMatch(/not offered by this version of the service/)

      const unknown = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "svc_nope", arguments: {} })))
      expect(String(unknown.cause)).toBe(
        `McpError: MCP error -32602: Unknown tool "svc_nope"; the tools are: ${Definitions.all.map((t) => t.name).join(", ")}`,
      )

      const after = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "tag" } }),
      )
      expect(after.isError).toBeFalsy()
      expect(protocolErrors).toEqual([])
    }),
  )

  it.scopedLive("a cancelled call aborts its request to the service", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/read/ListServers", { hang: "before-headers" })
      const { client } = yield* Spawn.connect(keyEnv(double.url))
      const controller = new AbortController()
      const pending = client
        .callTool({ name: "svc_list", arguments: { resource_type: "server" } }, undefined, {
          signal: controller.signal,
        })
        .catch((error: unknown) => error)
      yield* until(() => double.requests.length === 1)
      controller.abort()
      yield* Effect.promise(() => pending)
      yield* until(() => double.aborted === 1)
      const after = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "tag" } }),
      )
      expect(after.isError).toBeFalsy()
    }),
  )

  it.scopedLive(
    "writes only JSON-RPC on stdout, answers a line that is not JSON with a parse error and goes on, answers calls read before stdin ends (the last without its newline), then exits 0",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        double.next("/read/GetBuild", { delayMs: 200 })
        const input =
          INITIALIZE +
          "this is not json\n" +
          line({ method: "notifications/initialized" }) +
          '{"jsonrpc":"2.0","id":' +
          "\n" +
          line({ id: 1, method: "tools/list" }) +
          line({ id: 2, method: "tools/call", params: { name: "svc_get", arguments: { resource_type: "build" } } }) +
          line({ id: 3, method: "no/such/method" }) +
          line({ id: 4, method: "ping" }).trimEnd()
        const finished = yield* Spawn.run(keyEnv(double.url), [], input)
        expect(finished.code).toBe(0)
        const lines = finished.stdout.trimEnd().split("\n")
        const messages = lines.map(
          (l) => JSON.parse(l) as { jsonrpc: string; id: number | null; error?: { code: number } },
        )
        expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true)
        expect(messages.flatMap((m) => (m.id === null ? [] : [m.id])).sort()).toEqual([0, 1, 2, 3, 4])
        // The two lines that are not JSON (the second cut short), each answered as JSON-RPC has it.
        expect(messages.filter((m) => m.id === null).map((m) => m.error?.code)).toEqual([-32700, -32700])
        expect(messages.find((m) => m.id === 3)?.error?.code).toBe(-32601)
        expect(finished.stderr).not.toContain(Layers.SECRET)
      }),
  )

  it.live("refuses to start without a usable configuration: one line on stderr, exit 2", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[Record<string, string>, RegExp]> = [
        [{}, /^svc-mcp: SVC_URL is not set/],
        [{ SVC_URL: "https://svc.example.com" }, /^svc-mcp: SVC_API_KEY is not set, and no login/],
        [{ SVC_URL: "https://svc.example.com", SVC_API_KEY: "k" }, /^svc-mcp: SVC_API_SECRET is not set/],
        [{ ...keyEnv("https://svc.example.com"), SVC_TIMEOUT_MS: "soon" }, /^svc-mcp: SVC_TIMEOUT_MS is not/],
        [{ ...keyEnv("https://svc.example.com"), SVC_MODE: "admin" }, /^svc-mcp: SVC_MODE is "admin"/],
        [
          { ...keyEnv("https://svc.example.com"), SVC_DENY: "svc_exec:*" },
          /^svc-mcp: SVC_DENY has the pattern "svc_exec:\*"/,
        ],
      ]
      for (const [env, message] of cases) {
        const finished = yield* Spawn.run(env, [], INITIALIZE)
        expect(finished.code).toBe(2)
        expect(finished.stdout).toBe("")
        expect(finished.stderr.trimEnd().split("\n")).toHaveLength(1)
        expect(finished.stderr).toMatch(message)
      }
    }),
  )

  it.live("answers --version and --help, and refuses unknown arguments", () =>
    Effect.gen(function* () {
      const version = yield* Spawn.run({}, ["--version"])
      expect(version).toMatchObject({ code: 0, stdout: "" })
      expect(version.stderr.trim()).toBe(VERSION)
      const help = yield* Spawn.run({}, ["--help"])
      expect(help.code).toBe(0)
      expect(help.stderr).toMatch(/SVC_URL/)
      expect(help.stderr).toMatch(/SVC_TIMEOUT_MS/)
      const wrong = yield* Spawn.run({}, ["--port"])
      expect(wrong.code).toBe(2)
      expect(wrong.stderr).toMatch(/unknown argument "--port"/)
    }),
  )
})
