/**
 * SVC_REACH: the default publishes the interface's 13 tools and 264 selectors as
 * they are; `all` reaches every endpoint of the service's client, each through
 * exactly one selector of the tool of its kind, checked against its definition.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import { SvcClient } from "../../../src/SvcClient.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { pathOf, type Tool } from "../../../src/Tools/Catalog/Tool.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"
import * as Spec from "../../support/Spec.js"

interface Document {
  readonly withoutTool: ReadonlyArray<string>
  readonly endpoints: Readonly<Record<string, { readonly request: string | null }>>
}

const ALL = JSON.parse(Fs.readFileSync(Path.join(Spec.root, "spec/service-api-all.schema.json"), "utf8")) as Document
const LOGIN = "auth/login/LoginLocalUser"

const settingsFrom = (env: Record<string, string>) =>
  Settings.loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const reached = (tools: ReadonlyArray<Tool>) =>
  tools.flatMap((tool) => tool.selectors.map((selector) => ({ tool, selector, endpoint: pathOf(tool, selector) })))

const policyOf = (reach: Settings.Reach, mode: Settings.Mode = "full") =>
  Effect.flatMap(Policy.toolsOf(reach), (tools) =>
    Policy.make({ mode, allow: Option.none(), deny: [], confirm: [] }, tools),
  )

describe("SVC_REACH", () => {
  it.effect("is interface unless set; all when set so; anything else is refused by name", () =>
    Effect.gen(function* () {
      expect((yield* settingsFrom({})).reach).toBe("interface")
      expect((yield* settingsFrom({ SVC_REACH: "all" })).reach).toBe("all")
      expect((yield* settingsFrom({ SVC_REACH: " ALL " })).reach).toBe("all")
      const refused = yield* Effect.flip(settingsFrom({ SVC_REACH: "everything" }))
      expect(refused.message).toMatch(/^SVC_REACH is "everything": use interface .* or all/)
    }),
  )

  it.effect("by default: the interface's 13 tools and 264 selectors, the tools of Definitions.ts themselves", () =>
    Effect.gen(function* () {
      const policy = yield* policyOf("interface")
      expect(policy.tools.map((t) => t.name)).toEqual(Spec.tools)
      expect(reached(policy.tools)).toHaveLength(Spec.rows.length)
      expect(Spec.rows).toHaveLength(264)
      expect(policy.tools).toEqual(Definitions.all)
    }),
  )

  it.effect("all: every endpoint of the service's client but the login, each by exactly one selector", () =>
    Effect.gen(function* () {
      const policy = yield* policyOf("all")
      expect(policy.tools.map((t) => t.name)).toEqual(Spec.tools)
      const rows = reached(policy.tools)
      const endpoints = Object.keys(ALL.endpoints).filter((endpoint) => endpoint !== LOGIN)
      expect(endpoints).toHaveLength(340)
      expect(rows.map((row) => row.endpoint).sort()).toEqual([...endpoints].sort())
      // The interface's selectors keep their endpoints; the new ones are the list withoutTool.
      const interfaceRows = new Set(Spec.rows.map((row) => `${row.tool}:${row.selector}`))
      const added = rows.filter((row) => !interfaceRows.has(`${row.tool.name}:${row.selector}`))
      expect(added.map((row) => row.endpoint).sort()).toEqual([...ALL.withoutTool].sort())
      for (const row of Spec.rows) {
        const tool = policy.tools.find((t) => t.name === row.tool) as Tool
        expect(pathOf(tool, row.selector)).toBe(`${row.group}/${row.endpoint}`)
      }
      expect(policy.summary).toBe("mode full: 13 tools, 340 selectors")
    }),
  )

  it.effect("all: each new endpoint is in the tool of its kind", () =>
    Effect.gen(function* () {
      const policy = yield* policyOf("all")
      const interfaceRows = new Set(Spec.rows.map((row) => `${row.tool}:${row.selector}`))
      const added = reached(policy.tools).filter((row) => !interfaceRows.has(`${row.tool.name}:${row.selector}`))
      for (const { tool, selector, endpoint } of added) {
        const name = endpoint.slice(endpoint.indexOf("/") + 1)
        const where = `${tool.name}:${selector} => ${endpoint}`
        if (endpoint.startsWith("read/")) {
          // Reads go to the reading tools, never to one that changes anything.
          expect(tool.tier, where).toBe("read")
        } else if (/^(Check|BatchCheck|Refresh|Commit|Rotate|Close)/.test(name)) {
          expect(tool.name, where).toBe("svc_execute")
        } else {
          expect(["svc_create", "svc_update", "svc_delete", "svc_rename"], where).toContain(tool.name)
        }
        if (/^Delete|^BatchDelete/.test(name)) expect(tool.name, where).toBe("svc_delete")
        if (/^Create/.test(name)) expect(tool.name, where).toBe("svc_create")
        if (/^Rename/.test(name)) expect(tool.name, where).toBe("svc_rename")
        // Selectors are spelled as the interface spells its own: lower snake case.
        expect(selector, where).toMatch(/^[a-z][a-z_]*[a-z]$/)
      }
    }),
  )

  it.effect("docs/tools.md lists every added selector with its endpoint, as the tables have them", () =>
    Effect.gen(function* () {
      const policy = yield* policyOf("all")
      const interfaceRows = new Set(Spec.rows.map((row) => `${row.tool}:${row.selector}`))
      const added = reached(policy.tools)
        .filter((row) => !interfaceRows.has(`${row.tool.name}:${row.selector}`))
        .map((row) => `${row.tool.name} ${row.selector} ${row.endpoint}`)
      const docs = Fs.readFileSync(Path.join(Spec.root, "docs/tools.md"), "utf8")
      const section = docs.slice(docs.indexOf("## Every endpoint (SVC_REACH=all)"))
      const listed = [...section.matchAll(/^\| `(svc_\w+)` \| `(\w+)` \| `(\w+\/\w+)` \|$/gm)].map(
        (m) => `${m[1]} ${m[2]} ${m[3]}`,
      )
      expect(listed.sort()).toEqual(added.sort())
    }),
  )

  it.effect("read-only offers none of the new changes; operate only svc_execute's", () =>
    Effect.gen(function* () {
      const readOnly = yield* policyOf("all", "read-only")
      expect(readOnly.tools.every((tool) => tool.tier === "read")).toBe(true)
      expect(reached(readOnly.tools).every((row) => row.endpoint.startsWith("read/"))).toBe(true)
      const refused = readOnly.authorize("svc_update", { resource_type: "resource_meta" })
      expect(refused._tag).toBe("Left")
      const operate = yield* policyOf("all", "operate")
      const changing = reached(operate.tools).filter((row) => !row.endpoint.startsWith("read/"))
      expect(new Set(changing.map((row) => row.tool.name))).toEqual(new Set(["svc_execute"]))
    }),
  )

  it.effect("SVC_ALLOW, SVC_DENY and SVC_CONFIRM patterns match the new selectors", () =>
    Effect.gen(function* () {
      const tools = yield* Policy.toolsOf("all")
      const env = {
        SVC_DENY: "svc_delete:user,svc_update:user_*",
        SVC_CONFIRM: "svc_update:resource_meta",
        SVC_ALLOW: "svc_get:*,svc_update:*,svc_delete:*",
      }
      const settings = yield* settingsFrom(env)
      const policy = yield* Policy.make(settings, tools)
      expect(policy.authorize("svc_delete", { resource_type: "user" })._tag).toBe("Left")
      expect(policy.authorize("svc_update", { resource_type: "user_admin" })._tag).toBe("Left")
      expect(policy.authorize("svc_update", { resource_type: "resource_meta" })._tag).toBe("Right")
      expect(policy.authorize("svc_get", { resource_type: "alert" })._tag).toBe("Right")
      const update = policy.tools.find((t) => t.name === "svc_update") as Tool
      expect(policy.confirmation(update, "resource_meta")?.text).toBe("svc_update:resource_meta")
      // A pattern naming only a new selector is no typo when the reach is all; with the default it is.
      const interfaceOnly = yield* Effect.flip(Policy.make(yield* settingsFrom({ SVC_DENY: "svc_get:alert" })))
      expect(interfaceOnly.message).toMatch(/matches no tool:selector/)
    }),
  )
})

describe("SVC_REACH=all, served", () => {
  it.scoped("tools/list stays under 16,200 bytes, and resource meta is told apart from a resource's config", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url), { reach: "all" })
      const listed = yield* Effect.promise(() => client.listTools())
      expect(JSON.stringify(listed).length).toBeLessThan(16_200)
      const total = listed.tools.reduce((n, tool) => {
        const properties = tool.inputSchema.properties as Record<string, { enum?: Array<string> }>
        const key = Object.keys(properties)[0] as string
        return n + (properties[key]?.enum ?? []).length
      }, 0)
      expect(total).toBe(340)
      const update = listed.tools.find((t) => t.name === "svc_update")
      expect(update?.description).toMatch(
        /resource_meta \{target: \{type, id\}, tags\?, description\?\}: a resource's tags/,
      )
      expect(update?.description).toMatch(/not its config/)
    }),
  )

  it.scoped(
    "schema: true names each new selector's endpoint and its params, from the definitions of every endpoint",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const { client } = yield* Mcp.connect(Layers.apiKey(double.url), { reach: "all" })
        const tools = yield* Policy.toolsOf("all")
        const added = new Set(ALL.withoutTool)
        for (const { tool, selector, endpoint } of reached(tools)) {
          if (!added.has(endpoint)) continue
          const result = yield* Effect.promise(() =>
            client.callTool({ name: tool.name, arguments: { [tool.selectorKey]: selector, schema: true } }),
          )
          const data = result.structuredContent as { endpoint: string; params: string } | undefined
          expect(result.isError, `${tool.name}:${selector}`).toBeFalsy()
          expect(data?.endpoint, `${tool.name}:${selector}`).toBe(endpoint)
          expect(data?.params, `${tool.name}:${selector}`).not.toMatch(/^unknown/)
        }
        // Nothing was sent.
        expect(double.requests).toHaveLength(0)
      }),
  )

  it.scoped("a new selector calls its endpoint, in its own group, with its params checked first", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url), { reach: "all" })
      const ok = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_execute",
          arguments: { operation: "check_stack_for_update", params: { stack: "web" } },
        }),
      )
      expect(ok.isError).toBeFalsy()
      expect(double.requests.map((r) => r.path)).toEqual(["/write/CheckStackForUpdate"])
      const misspelt = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_update",
          arguments: { resource_type: "resource_meta", params: { target: { type: "Stack", id: "web" }, tag: ["x"] } },
        }),
      )
      expect(misspelt.isError).toBe(true)
      expect((misspelt.structuredContent as { error: { kind: string } }).error.kind).toBe("invalid_params")
      expect(double.requests).toHaveLength(1)
    }),
  )

  it.scoped("the default reach refuses a new selector, naming the interface's and saying SVC_REACH=all offers it", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      const result = yield* call("svc_list", { resource_type: "alert" })
      expect(result.isError).toBe(true)
      expect(Mcp.text(result)).toMatch(/resource_type "alert" is not accepted by svc_list; accepted: stack, /)
      expect(Mcp.text(result)).toContain(
        'resource_type "alert" is offered only with SVC_REACH=all (every endpoint of the service), which this server was not started with',
      )
      const closing = yield* call("svc_execute", { operation: "close_alert", params: { id: "x" } })
      expect(Mcp.text(closing)).toContain('operation "close_alert" is offered only with SVC_REACH=all')
      // A selector no reach offers is refused as it was, with no word of SVC_REACH.
      const unknown = yield* call("svc_list", { resource_type: "alerts" })
      expect(unknown.isError).toBe(true)
      expect(Mcp.text(unknown)).toMatch(/resource_type "alerts" is not accepted by svc_list/)
      expect(Mcp.text(unknown)).not.toContain("SVC_REACH")
      expect(double.requests).toHaveLength(0)
    }),
  )
})

/** A service that makes API keys: its answer holds the secret, shown this once. */
const keyMaker = (sent: Array<string>) => {
  const answer = (endpoint: string) =>
    Effect.sync(() => {
      sent.push(endpoint)
      const value = { key: "K-NEW", secret: "S-SHOWN-ONCE" }
      return { value, text: JSON.stringify(value) }
    })
  return Layer.succeed(SvcClient, {
    call: (_group, endpoint) => Effect.map(answer(endpoint), (reply) => reply.value),
    answer: (_group, endpoint) => answer(endpoint),
  })
}

const makeKey = {
  name: "svc_create",
  arguments: { resource_type: "api_key_for_service_user", params: { user_id: "ci", name: "deploys" } },
}

describe("SVC_REACH=all: a secret the service shows once", () => {
  for (const era of ["legacy", "modern"] as const) {
    it.scoped(
      `${era}: the user is told before the key is made that its secret will not be shown, and how to see it`,
      () =>
        Effect.gen(function* () {
          const sent: Array<string> = []
          const { client, asked } = yield* Mcp.connectV2(
            Layers.apiKey("http://127.0.0.1:9"),
            { reach: "all" },
            {
              era,
              elicit: () => "accept",
              service: keyMaker(sent),
            },
          )
          const result = yield* Effect.promise(() => client.callTool(makeKey))
          expect(asked).toHaveLength(1)
          expect(asked[0]).toMatch(/will call write\/CreateApiKeyForServiceUser/)
          expect(asked[0]).toMatch(/the new key's secret once.*it will not be shown.*SVC_REVEAL_SECRETS=true/s)
          expect(asked[0]).toMatch(/asked because SVC_REVEAL_SECRETS is off/)
          // The question's plan reads whose key it is; then only the key is made.
          expect(asked[0]).toMatch(/This makes the API key "deploys" for the user "ci"\./)
          expect(sent).toEqual(["FindUser", "CreateApiKeyForServiceUser"])
          const text = JSON.stringify(result)
          expect(text).toContain("K-NEW")
          expect(text).not.toContain("S-SHOWN-ONCE")
        }),
    )
  }

  it.scoped("with SVC_REVEAL_SECRETS=true nothing is asked, and the secret is in the answer", () =>
    Effect.gen(function* () {
      const sent: Array<string> = []
      const { client, asked } = yield* Mcp.connectV2(
        Layers.apiKey("http://127.0.0.1:9"),
        { reach: "all", revealSecrets: true },
        { elicit: () => "accept", service: keyMaker(sent) },
      )
      const result = yield* Effect.promise(() => client.callTool(makeKey))
      expect(asked).toHaveLength(0)
      expect(JSON.stringify(result)).toContain("S-SHOWN-ONCE")
    }),
  )

  it.scoped("a client that cannot be asked is refused before the key is made, told why", () =>
    Effect.gen(function* () {
      const sent: Array<string> = []
      const { client } = yield* Mcp.connectV2(
        Layers.apiKey("http://127.0.0.1:9"),
        { reach: "all" },
        {
          service: keyMaker(sent),
        },
      )
      const result = yield* Effect.promise(() => client.callTool(makeKey))
      expect(result.isError).toBe(true)
      expect(Mcp.text(result)).toMatch(/SVC_REVEAL_SECRETS/)
      expect(sent).toEqual([])
    }),
  )
})
