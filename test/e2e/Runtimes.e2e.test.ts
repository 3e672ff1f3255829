/**
 * The built server on each Node its users run (the newest 22.x, 24.x and 26.x, fetched
 * from the npm registry), over stdio and over Streamable HTTP, in both protocol eras
 * (2026-07-28 after `server/discover`, 2025-11-25 after `initialize`), against the
 * sandbox: a representative session each (list, read, execute and follow, an error).
 * Node 20, past its end of life, keeps a smoke test.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import { VERSION } from "../../src/Shared/Version.js"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"
import * as Clients from "../support/Clients.js"
import * as Mcp from "../support/Mcp.js"
import * as NodeRuntimes from "../support/NodeRuntimes.js"
import * as Spawn from "../support/Spawn.js"

type Era = Clients.Era
const ERAS: ReadonlyArray<Era> = ["modern", "legacy"]

/** The service's JSON in a result's text, after the fences' first line and the one-line summary a waited call leads with. */
const json = (result: unknown) => {
  const [first] = (result as { content: Array<{ text: string }> }).content
  const text = Mcp.unfenced(first?.text ?? "null")
  return JSON.parse(text.slice(text.search(/^[[{]/m)))
}

const NAME = "svc-mcp-runtime-test"

/** Over stdio, with what the server wrote on stderr so far. */
const overStdio = (era: Era, node: string) =>
  Spawn.v2({ name: NAME, era, args: ["--sandbox"], command: [node, Spawn.ENTRY] })

/** A stdio session, after which the server has warned of nothing (a newer Node deprecates what an older allowed). */
const stdioSession = (era: Era, node: string) =>
  Effect.gen(function* () {
    const { client, stderr } = yield* overStdio(era, node)
    yield* session(client, era)
    expect(stderr()).toMatch(/serving .* over stdio/)
    expect(stderr()).not.toMatch(/ExperimentalWarning|DeprecationWarning/)
  })

const overHttp = (era: Era, node: string) =>
  Effect.flatMap(Spawn.serveHttp({}, ["--sandbox"], { node }), ({ url }) =>
    Effect.map(Clients.overHttp(url, { name: NAME, era }), ({ client }) => client),
  )

/** The same short session on any connected client, after checking the era it landed on. */
const session = (client: Client, era: Era) =>
  Effect.gen(function* () {
    expect(client.getProtocolEra()).toBe(era)
    if (era === "modern") expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    else expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25")
    expect(client.getServerVersion()).toMatchObject({ name: "svc-mcp", version: VERSION })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }))
    const { tools } = yield* Effect.promise(() => client.listTools())
    expect(tools.map((tool) => tool.name)).toEqual(Definitions.all.map((tool) => tool.name))

    const stacks = yield* call("svc_list", { resource_type: "stack", fields: ["name"] })
    expect(stacks.isError).toBeFalsy()
    expect(json(stacks).map((stack: { name: string }) => stack.name)).toContain("web")

    const deployed = yield* call("svc_execute", { operation: "deploy_stack", params: { stack: "web" }, wait: true })
    expect(deployed.isError).toBeFalsy()
    expect(json(deployed)).toMatchObject({ target: "Stack web", status: "Complete", success: true })

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

  describe.each(ERAS)("the %s era", (era) => {
    it.scopedLive("serves over stdio", () => stdioSession(era, node))

    it.scopedLive("serves over Streamable HTTP", () =>
      Effect.flatMap(overHttp(era, node), (client) => session(client, era)),
    )
  })
})

describe(`on Node ${NodeRuntimes.NODE20_VERSION} (end of life: a smoke test)`, () => {
  const node = NodeRuntimes.node(NodeRuntimes.NODE20_VERSION)

  it.scopedLive("starts, and serves a session over stdio in both eras", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.runCommand(node, [Spawn.ENTRY, "--version"])
      expect([finished.code, finished.stderr.trim()]).toEqual([0, VERSION])
      for (const era of ERAS) yield* Effect.scoped(stdioSession(era, node))
    }),
  )
})
