/**
 * The fleet view as served, in both eras: a client that knows nothing of MCP
 * Apps gets the same tools and the same answers as from a server without the
 * view, and tools/list grows by the one link from svc_summary (at most 150
 * bytes); a client that reads resources gets the page, declared as the Apps
 * specification says.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Apps from "../../src/Mcp/Server/Apps.js"
import * as FleetView from "../../src/View/Fleet.js"
import * as Mcp from "../support/Mcp.js"
import * as Sandboxes from "../support/Sandbox.js"
import { ENTRY } from "../support/Spawn.js"

// The page the server reads is the built one (npm run build).
const PAGE = Path.resolve(Path.dirname(import.meta.dirname), "..", "dist/fleet-view.js")
beforeAll(() => {
  if (!Fs.existsSync(PAGE)) throw new Error(`${PAGE} is missing: run npm run build first`)
})

// Reads whose answers do not change between two calls (the sandbox's estate as seeded).
const READS = [
  { name: "svc_summary", arguments: { resource_type: "server", params: {} } },
  { name: "svc_summary", arguments: { resource_type: "stack", params: {} } },
  { name: "svc_list", arguments: { resource_type: "server", params: {} } },
  { name: "svc_list", arguments: { resource_type: "deployment", params: {}, fields: ["name", "info.state"] } },
  { name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } },
  { name: "svc_summary", arguments: { resource_type: "nothing", params: {} } },
] as const

for (const era of ["legacy", "modern"] as const) {
  describe(`the fleet view, ${era === "legacy" ? "2025-11-25" : "2026-07-28"}`, () => {
    it.scoped("a client without Apps gets the same tools and answers; tools/list grows by svc_summary's link", () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const config = Sandboxes.apiKeyConfig(sandbox)
        const plain = yield* Mcp.connectV2(config, {}, { era })
        const viewing = yield* Mcp.connectV2(config, {}, { era, view: true })
        const before = yield* Effect.promise(() => plain.client.listTools())
        const after = yield* Effect.promise(() => viewing.client.listTools())
        const link = { ui: { resourceUri: FleetView.URI }, "ui/resourceUri": FleetView.URI }
        expect(after.tools.map((t) => t.name)).toEqual(before.tools.map((t) => t.name))
        for (const [i, tool] of after.tools.entries()) {
          const { _meta, ...rest } = tool
          expect(rest).toEqual(before.tools[i])
          expect(_meta).toEqual(tool.name === "svc_summary" ? link : undefined)
        }
        const growth =
          Buffer.byteLength(JSON.stringify({ tools: after.tools })) -
          Buffer.byteLength(JSON.stringify({ tools: before.tools }))
        expect(growth).toBeGreaterThan(0)
        expect(growth).toBeLessThanOrEqual(150)
        expect(growth).toBe(90)
        for (const call of READS) {
          const one = yield* Effect.promise(() => plain.client.callTool(call))
          const other = yield* Effect.promise(() => viewing.client.callTool(call))
          expect(other).toEqual(one)
        }
        // The one other difference: the capability to list and read resources, which such a client ignores.
        expect(plain.client.getServerCapabilities()?.resources).toBeUndefined()
        expect(viewing.client.getServerCapabilities()).toEqual({
          ...plain.client.getServerCapabilities(),
          resources: {},
        })
      }),
    )

    it.scoped("resources/list and resources/read give the page, its MIME type and CSP; another URI is not found", () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), {}, { era, view: true })
        const { resources } = yield* Effect.promise(() => client.listResources())
        expect(resources).toEqual([
          expect.objectContaining({
            uri: "ui://svc-mcp/fleet",
            name: "fleet",
            mimeType: "text/html;profile=mcp-app",
            _meta: Apps.UI_META,
          }),
        ])
        const read = yield* Effect.promise(() => client.readResource({ uri: "ui://svc-mcp/fleet" }))
        const [content] = read.contents
        expect(content).toMatchObject({ uri: "ui://svc-mcp/fleet", mimeType: "text/html;profile=mcp-app" })
        expect(content?._meta).toEqual(Apps.UI_META)
        const html = content !== undefined && "text" in content ? content.text : ""
        expect(html).toMatch(/^<!doctype html>/)
        // Self-contained: no script, style or image from anywhere, the one service unnamed.
        expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i)
        expect(html).toContain('<script id="svc-services" type="application/json">[]</script>')
        const missing = yield* Effect.flip(Effect.tryPromise(() => client.readResource({ uri: "ui://svc-mcp/other" })))
        expect(String(missing.error)).toMatch(/Resource not found: ui:\/\/svc-mcp\/other/)
      }),
    )
  })
}

// A module hook that reports on stderr every module the process resolves.
const HOOKS =
  'export async function resolve(s, c, n) { const r = await n(s, c); console.error("RESOLVED " + r.url); return r }'
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`

/** The modules the built server resolved serving these requests over stdio, until the last one's answer. */
const resolvedServing = (requests: ReadonlyArray<{ method: string; params?: unknown }>): Promise<Array<string>> =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.spawn(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, ENTRY],
      {
        env: { PATH: process.env.PATH ?? "", SVC_URL: "http://127.0.0.1:9", SVC_API_KEY: "k", SVC_API_SECRET: "s" },
        stdio: ["pipe", "pipe", "pipe"],
      },
    )
    const last = requests.length + 1
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk) => {
      out += chunk
      if (out.includes(`"id":${last}`)) child.stdin.end()
    })
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("error", reject)
    child.on("close", () =>
      resolve(
        err
          .split("\n")
          .filter((line) => line.startsWith("RESOLVED "))
          .map((line) => line.slice("RESOLVED ".length)),
      ),
    )
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`)
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    })
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    for (const [i, request] of requests.entries()) send({ jsonrpc: "2.0", id: i + 2, ...request })
  })

describe("the fleet view's page", () => {
  it("is not loaded by a start that serves tools/list, and is by the first resources/read", async () => {
    const page = (url: string) => url.endsWith("/dist/fleet-view.js")
    const started = await resolvedServing([{ method: "tools/list" }])
    // The hook sees the program's modules: the report works.
    expect(started.some((url) => url.endsWith("/dist/svc-mcp/main.js"))).toBe(true)
    expect(started.filter(page)).toEqual([])
    const read = await resolvedServing([
      { method: "tools/list" },
      { method: "resources/read", params: { uri: "ui://svc-mcp/fleet" } },
    ])
    expect(read.filter(page)).toHaveLength(1)
  }, 30_000)
})
