/**
 * The built bundle on each Node its users run (the newest 22.x and 24.x, fetched from
 * the npm registry), over stdio and over Streamable HTTP, against the sandbox: start,
 * list, read, execute and follow, and an error, as on the machine's own Node.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"
import { VERSION } from "../src/Shared/Version.js"
import * as Definitions from "../src/Tools/Definitions.js"
import * as NodeRuntimes from "./support/NodeRuntimes.js"
import * as Spawn from "./support/Spawn.js"

interface Caller {
  readonly callTool: Client["callTool"]
  readonly listTools: Client["listTools"]
}

/** The service's JSON in a result's text, after the one-line summary a waited call leads with. */
const json = (result: unknown) => {
  const [first] = (result as { content: Array<{ text: string }> }).content
  const text = first?.text ?? "null"
  return JSON.parse(text.slice(text.search(/^[[{]/m)))
}

/** The same short session on any connected client. */
const session = (client: Caller) =>
  Effect.gen(function* () {
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }))
    const { tools } = yield* Effect.promise(() => client.listTools())
    expect(tools.map((tool) => tool.name)).toEqual(Definitions.all.map((tool) => tool.name))

    const stacks = yield* call("svc_list", { resource_type: "stack" })
    expect(stacks.isError).toBeFalsy()
    expect(json(stacks).map((stack: { name: string }) => stack.name)).toContain("web")

    const deployed = yield* call("svc_execute", { operation: "deploy_stack", params: { stack: "web" }, wait: true })
    expect(deployed.isError).toBeFalsy()
    expect(json(deployed)).toMatchObject({ status: "Complete", success: true })

    const missing = yield* call("svc_get", { resource_type: "stack", params: { stack: "no-such-stack" } })
    expect(missing.isError).toBe(true)
    expect(missing.structuredContent).toMatchObject({ error: { kind: "service_error", endpoint: "read/GetStack" } })
  })

describe.each(NodeRuntimes.TESTED)("on Node %s", (version) => {
  // Fetched once into the cache; the first run pays for the download.
  const node = NodeRuntimes.node(version)

  it.scopedLive("runs the executable: --version", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.runCommand(node, [Spawn.ENTRY, "--version"])
      expect(finished.code).toBe(0)
      expect(finished.stderr.trim()).toBe(VERSION)
      expect(finished.stdout).toBe("")
    }),
  )

  it.scopedLive("serves over stdio", () =>
    Effect.gen(function* () {
      const { client, protocolErrors, stderr } = yield* Spawn.connect({}, ["--sandbox"], [node, Spawn.ENTRY])
      yield* session(client)
      expect(protocolErrors).toEqual([])
      expect(stderr()).not.toMatch(/ExperimentalWarning|DeprecationWarning/)
    }),
  )

  it.scopedLive("serves over Streamable HTTP", () =>
    Effect.gen(function* () {
      const { url } = yield* Spawn.serveHttp({}, ["--sandbox"], { node })
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const connected = new Client({ name: "svc-mcp-runtime-test", version: "1.0.0" })
          await connected.connect(new StreamableHTTPClientTransport(new URL(url)))
          return connected
        }),
        (connected) => Effect.promise(() => connected.close()),
      )
      yield* session(client)
    }),
  )
})
