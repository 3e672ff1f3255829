/**
 * The Claude Desktop bundle as its users get it: `scripts/bundle-mcpb.mjs` packs the
 * built server, `mcpb unpack` unpacks it, and the entry is started the way the
 * manifest says, with the settings form's values put in as Claude Desktop puts them
 * (`getMcpConfigForManifest` of @anthropic-ai/mcpb), then spoken to over stdio.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { getMcpConfigForManifest, type McpbManifestAny } from "@anthropic-ai/mcpb"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Variables from "../../src/Cli/Variables.js"
import { DEFAULT_SETTINGS, MODES } from "../../src/Settings/ToolSettings.js"
import { VERSION } from "../../src/Shared/Version.js"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"
import * as Sandbox from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")
const MCPB = Path.join(root, "node_modules/@anthropic-ai/mcpb/dist/cli/cli.js")
const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-bundle-"))
const bundle = Path.join(work, "svc-mcp.mcpb")
const unpacked = Path.join(work, "unpacked")

const run = (command: string, args: ReadonlyArray<string>) => {
  const result = ChildProcess.spawnSync(command, args, { cwd: root, encoding: "utf8", timeout: 120_000 })
  expect(result.status, `${command} ${args.join(" ")}: ${result.stdout}${result.stderr}`).toBe(0)
  return result
}

let manifest: McpbManifestAny
beforeAll(() => {
  run(process.execPath, ["scripts/bundle-mcpb.mjs", "--out", bundle])
  run(process.execPath, [MCPB, "unpack", bundle, unpacked])
  manifest = JSON.parse(Fs.readFileSync(Path.join(unpacked, "manifest.json"), "utf8"))
}, 180_000)
afterAll(() => Fs.rmSync(work, { recursive: true, force: true }))

/** The command, arguments and environment Claude Desktop starts the server with, for these settings. */
const configFor = (userConfig: Record<string, string>) =>
  getMcpConfigForManifest({ manifest, extensionPath: unpacked, systemDirs: {}, userConfig, pathSeparator: Path.sep })

interface Started {
  readonly command: string
  readonly args?: Array<string> | undefined
  readonly env?: Record<string, string> | undefined
}

/** The SDK v2 Client on the earlier revisions (after `initialize`), as a desktop host speaks, over stdio. */
const connect = (config: Started | undefined, extra: Array<string>) => {
  if (config === undefined) return Effect.die(new Error("no configuration to start"))
  return Effect.map(
    Spawn.v2({
      name: "claude-desktop-like",
      era: "legacy",
      env: config.env ?? {},
      args: extra,
      command: [config.command, ...(config.args ?? [])],
    }),
    ({ client }) => client,
  )
}

const names = (tools: ReadonlyArray<{ name: string }>) => tools.map((tool) => tool.name)

describe("the Claude Desktop bundle", () => {
  it("passes mcpb validate, and holds the built entry and the service's definitions", () => {
    run(process.execPath, [MCPB, "validate", Path.join(unpacked, "manifest.json")])
    expect(manifest.version).toBe(VERSION)
    expect(Fs.existsSync(Path.join(unpacked, manifest.server.entry_point))).toBe(true)
    expect(Fs.readFileSync(Path.join(unpacked, "spec/service-api.schema.json"), "utf8")).toBe(
      Fs.readFileSync(Path.join(root, "spec/service-api.schema.json"), "utf8"),
    )
    const all = Fs.readdirSync(unpacked, { recursive: true }) as Array<string>
    expect(all.filter((file) => file.endsWith(".d.ts"))).toEqual([])
    expect(names(manifest.tools ?? [])).toEqual(names(Definitions.all))
  })

  it("asks for the URL, the key and secret (sensitive) and the mode, mapped to the server's variables", () => {
    const form = manifest.user_config ?? {}
    expect(Object.keys(form)).toEqual(["service_url", "api_key", "api_secret", "mode"])
    expect(form.service_url).toMatchObject({ type: "string", required: true })
    expect(form.service_url?.sensitive).toBeUndefined()
    expect(form.api_key).toMatchObject({ type: "string", required: true, sensitive: true })
    expect(form.api_secret).toMatchObject({ type: "string", required: true, sensitive: true })
    expect(form.mode).toMatchObject({ type: "string", default: DEFAULT_SETTINGS.mode })
    for (const mode of MODES) expect(form.mode?.description).toContain(mode)
    /** How the manifest refers to a field of the form. */
    const field = (key: string) => `\${user_config.${key}}`
    expect(manifest.server.mcp_config.env).toEqual({
      SVC_URL: field("service_url"),
      SVC_API_KEY: field("api_key"),
      SVC_API_SECRET: field("api_secret"),
      SVC_MODE: field("mode"),
    })
    const listed = Variables.ALL.map((variable) => variable.name)
    for (const name of Object.keys(manifest.server.mcp_config.env ?? {})) expect(listed).toContain(name)
  })

  it.effect("is not started while a required setting is missing", () =>
    Effect.gen(function* () {
      expect(yield* Effect.promise(() => configFor({ service_url: "https://svc.example.com" }))).toBeUndefined()
    }),
  )

  it.scopedLive(
    "started as the manifest says, with --sandbox: lists the tools the chosen mode allows, and calls one",
    () =>
      Effect.gen(function* () {
        const config = yield* Effect.promise(() =>
          configFor({ service_url: "https://svc.example.com", api_key: "k", api_secret: "s", mode: "read-only" }),
        )
        expect(config?.args).toEqual([Path.join(unpacked, "dist/svc-mcp.js").split(Path.sep).join("/")])
        expect(config?.env).toMatchObject({ SVC_URL: "https://svc.example.com", SVC_MODE: "read-only" })
        const client = yield* connect(config, ["--sandbox"])
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(names(tools)).toEqual(names(Definitions.all.filter((tool) => tool.tier === "read")))
        const listed = yield* Effect.promise(() =>
          client.callTool({ name: "svc_list", arguments: { resource_type: "stack", fields: ["name"] } }),
        )
        expect(listed.isError).toBeFalsy()
        const [first] = listed.content as Array<{ text: string }>
        expect(JSON.parse(first?.text ?? "[]").map((stack: { name: string }) => stack.name)).toContain("web")
      }),
  )

  it.scopedLive("with the form's URL, key and secret, reaches the service; the mode left empty is full", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandbox.scoped()
      const config = yield* Effect.promise(() =>
        configFor({ service_url: sandbox.url, api_key: sandbox.apiKey.key, api_secret: sandbox.apiKey.secret }),
      )
      expect(config?.env?.SVC_MODE).toBe(DEFAULT_SETTINGS.mode)
      const client = yield* connect(config, [])
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(names(tools)).toEqual(names(Definitions.all))
      const summary = yield* Effect.promise(() =>
        client.callTool({ name: "svc_summary", arguments: { resource_type: "stack" } }),
      )
      expect(summary.isError).toBeFalsy()
    }),
  )
})
