/**
 * Params checked against the service's published definitions before anything
 * is sent; nulls as absent; `schema: true`; the examples in the descriptions.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { invoke } from "../../../src/Tools/Invoke.js"
import * as ParamsCheck from "../../../src/Tools/Params/ParamsCheck.js"
import { RequestDefinitions } from "../../../src/Tools/Params/ParamsValidation.js"
import * as Examples from "../../support/Examples.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import { property } from "../../support/Property.js"
import * as Double from "../../support/ServiceDouble.js"
import * as Spec from "../../support/Spec.js"

const definitions = RequestDefinitions.read(ParamsCheck.locate() as string)

const loadWith = (env: Record<string, string>) =>
  ParamsCheck.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const allEndpoints = Definitions.all.flatMap((tool) =>
  tool.selectors.map((selector) => ({ tool, selector, endpoint: `${tool.group}/${tool.endpoints[selector]}` })),
)

interface ErrorResult {
  isError?: boolean
  structuredContent?: {
    error: {
      kind: string
      tool: string
      selector: string
      endpoint: string
      problems: Array<{ path: string; message: string }>
      accepted: string
    }
  }
}

describe("the check, against the definitions", () => {
  // Held to the shared copies a clone has beside it (read-only in CI); a clone without them skips, saying so.
  it.skipIf(Spec.sharedAbsent)(
    `the in-repo copies of the definitions and the wire notes are the shared ones ${Spec.SKIPPED_WITHOUT_SHARED}`,
    () => {
      for (const file of [
        "service-api.schema.json",
        "service-notes.md",
        "service-api-all.schema.json",
        "service-notes-all.md",
      ]) {
        const shared = Path.join(Spec.sharedDir, file)
        const copy = Fs.readFileSync(
          Path.resolve(Path.dirname(Path.dirname(import.meta.dirname)), "../spec", file),
          "utf8",
        )
        expect(copy, file).toBe(Fs.readFileSync(shared, "utf8"))
      }
    },
  )

  it("every endpoint a selector reaches is in the definitions: checked, or listed as not in them", () => {
    for (const { endpoint } of allEndpoints) {
      expect(Object.hasOwn(Examples.DOCUMENT.endpoints, endpoint), endpoint).toBe(true)
      expect(
        Examples.requestOf(endpoint) !== undefined || Examples.DOCUMENT.notInDefinitions.includes(endpoint),
        endpoint,
      ).toBe(true)
    }
  })

  it("finds the definitions beside the module, and says which are in force", () =>
    Effect.gen(function* () {
      expect(ParamsCheck.locate()).toMatch(/spec\/service-api\.schema\.json$/)
      const on = yield* loadWith({})
      expect(on.inForce).toBe(
        `params checked against definitions ${Examples.DOCUMENT.serviceVersion}, the newest the service publishes (the tools speak API 2.3.3)`,
      )
      const off = yield* loadWith({ SVC_CHECK_PARAMS: "off" })
      expect(off.inForce).toMatch(/unchecked \(SVC_CHECK_PARAMS=off\)/)
      expect(Effect.runSync(off.check("read/GetStack", { nonsense: 1 }))).toEqual({
        _tag: "Unchecked",
        body: { nonsense: 1 },
      })
      const bad = yield* Effect.flip(loadWith({ SVC_CHECK_PARAMS: "maybe" }))
      expect(bad.message).toMatch(/^SVC_CHECK_PARAMS is "maybe": use on .* or off/)
      const offStep = yield* ParamsCheck.step("2.9.0").pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_CHECK_PARAMS", "off"]]))),
      )
      expect(offStep).toEqual({ name: "params", status: "ok", detail: "sent unchecked (SVC_CHECK_PARAMS=off)" })
      const provider = Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
      const samePatch = yield* ParamsCheck.step("2.3.3").pipe(provider)
      expect(samePatch).toEqual({
        name: "params",
        status: "ok",
        detail: "checked against definitions 2.3.2, the newest the service publishes (the tools speak API 2.3.3)",
      })
      const newer = yield* ParamsCheck.step("v2.4.0").pipe(provider)
      expect(newer.hint).toMatch(
        /^the service \(v2\.4\.0\) is newer than these definitions: .* set SVC_CHECK_PARAMS=off$/,
      )
    }).pipe(Effect.runSync))

  it("the least body of every endpoint a selector reaches passes; those without a definition pass unchecked", () => {
    let checked = 0
    for (const { endpoint } of allEndpoints) {
      const result = definitions.check(
        endpoint,
        Examples.least(Examples.requestOf(endpoint)) as Record<string, unknown>,
      )
      if (Examples.DOCUMENT.notInDefinitions.includes(endpoint)) {
        expect(result._tag, endpoint).toBe("Unchecked")
      } else {
        expect(result, endpoint).toMatchObject({ _tag: "Valid" })
        checked++
      }
    }
    expect(checked).toBe(Spec.rows.length - Examples.DOCUMENT.notInDefinitions.length)
  })

  it("compiles each endpoint's check once, on its first use", () => {
    const fresh = RequestDefinitions.read(ParamsCheck.locate() as string)
    expect(fresh.compilations).toBe(0)
    fresh.check("read/GetStack", { stack: "web" })
    fresh.check("read/GetStack", { id: "web" })
    fresh.check("read/GetStack", { nope: 1 })
    expect(fresh.compilations).toBe(1)
    fresh.check("write/UpdateStack", { id: "web", config: {} })
    expect(fresh.compilations).toBe(2)
  })

  it("aliases: one of stack, id, name is required, and any one of them is enough", () => {
    expect(definitions.check("read/GetStack", {})).toMatchObject({
      _tag: "Invalid",
      problems: [{ path: "params", message: "one of stack, id, name is required" }],
      accepted: "{stack|id|name: string}",
    })
    for (const key of ["stack", "id", "name"]) {
      expect(definitions.check("read/GetStack", { [key]: "web" })._tag).toBe("Valid")
    }
  })

  it("names an unknown field and where it is, inside config too, with the likely intended one", () => {
    const result = definitions.check("write/UpdateStack", { id: "web", config: { brnach: "main", links: [1] } })
    expect(result).toMatchObject({
      _tag: "Invalid",
      problems: [
        {
          path: "params.config.brnach",
          message: expect.stringMatching(/^unknown field of params\.config \(did you mean "branch"\?\)/),
        },
        { path: "params.config.links[0]", message: "must be a string, got a number (1)" },
      ],
    })
    const top = definitions.check("read/GetStack", { stack: "web", tail: 5 })
    expect(top).toMatchObject({
      problems: [
        {
          path: "params.tail",
          message: "unknown field of params: params takes stack, id, name; the service would ignore it",
        },
      ],
    })
  })

  it("says what is missing, what type is wrong, which enum values are allowed, which tags a union takes", () => {
    expect(definitions.check("write/DeleteVariable", { id: "x" })).toMatchObject({
      problems: [
        { path: "params.name", message: "is required (string)" },
        { path: "params.id", message: expect.stringMatching(/^unknown field of params: params takes name;/) },
      ],
    })
    expect(definitions.check("read/GetStackLog", { stack: "web", services: "web" })).toMatchObject({
      problems: [{ path: "params.services", message: 'must be an array, got a string ("web")' }],
    })
    const color = definitions.check("write/UpdateTagColor", { tag: "prod", color: "Purple2" })
    expect(color).toMatchObject({
      problems: [
        {
          path: "params.color",
          message: expect.stringMatching(/^must be one of "LightSlate", .*"DarkRose"; got "Purple2"$/),
        },
      ],
    })
    const image = definitions.check("write/CreateDeployment", {
      name: "d",
      config: { image: { type: "Img", params: {} } },
    })
    expect(image).toMatchObject({
      problems: [{ path: "params.config.image.type", message: 'must be one of "Image", "Build"; got "Img"' }],
    })
    const inner = definitions.check("write/CreateDeployment", {
      name: "d",
      config: { image: { type: "Image", params: { imag: "nginx" } } },
    })
    expect(inner).toMatchObject({
      problems: [{ path: "params.config.image.params.imag", message: expect.stringMatching(/did you mean "image"/) }],
    })
  })

  it("a null for a field its object does not require is left out, at any depth; a database filter keeps its nulls", () => {
    expect(definitions.check("read/GetStack", { stack: null, id: "web" })).toEqual({
      _tag: "Valid",
      body: { id: "web" },
    })
    expect(definitions.check("write/UpdateStack", { id: "web", config: { branch: null, links: ["a"] } })).toEqual({
      _tag: "Valid",
      body: { id: "web", config: { links: ["a"] } },
    })
    expect(definitions.check("read/ListTags", { query: { name: null } })).toEqual({
      _tag: "Valid",
      body: { query: { name: null } },
    })
    // A required field given as null is a mistake to correct, not an absence.
    expect(definitions.check("write/CreateVariable", { name: null })).toMatchObject({
      problems: [{ path: "params.name", message: "must be a string, got null" }],
    })
  })

  property(
    "a field the endpoint does not have is refused by name, for every endpoint with a definition",
    [
      FastCheck.constantFrom(...allEndpoints.filter((e) => Examples.requestOf(e.endpoint) !== undefined)),
      FastCheck.stringMatching(/^[a-z_]{1,12}$/),
    ],
    ([{ endpoint }, key]) => {
      const body = Examples.least(Examples.requestOf(endpoint)) as Record<string, unknown>
      const properties = (Examples.requestOf(endpoint)?.properties ?? {}) as Record<string, unknown>
      if (Object.hasOwn(properties, key)) return
      const result = definitions.check(endpoint, { ...body, [key]: 1 })
      expect(result._tag).toBe("Invalid")
      if (result._tag === "Invalid") expect(result.problems.map((p) => p.path)).toContain(`params.${key}`)
    },
  )
})

describe("the examples in the tools' descriptions", () => {
  it("every params example passes the check of its selector's endpoint", () => {
    let count = 0
    for (const tool of Definitions.all) {
      const examples = Examples.examplesOf(tool, Definitions.all)
      expect(examples.length, `${tool.name} has params examples`).toBeGreaterThan(0)
      for (const example of examples) {
        const result = definitions.check(example.endpoint, example.params)
        expect(
          result._tag === "Invalid" ? result.problems : [],
          `${tool.name} ${example.selector} ${example.text}`,
        ).toEqual([])
        count++
      }
    }
    expect(count).toBeGreaterThan(100)
  })

  it("the hints the definitions contradicted are now true", () => {
    const examples = Object.fromEntries(
      Definitions.all.flatMap((tool) =>
        Examples.examplesOf(tool, Definitions.all).map((e) => [`${tool.name}:${e.selector}`, e.params]),
      ),
    )
    expect(examples["svc_delete:variable"]).toEqual({ name: "x" })
    expect(Object.keys(examples["svc_create:image_registry_account"] ?? {})).toEqual(["account"])
    expect(Object.keys(examples["svc_update:git_provider_account"] ?? {})).toEqual(["id", "account"])
    expect(examples["svc_list:tag"]).toEqual({ query: { name: "prod" } })
    expect(examples["svc_list:variable"]).toEqual({})
    expect(Object.keys(examples["svc_execute:deploy_stack_service"] ?? {})).toEqual(["stack", "service", "command"])
    expect(Definitions.svc_execute.description).toMatch(/deploy_stack_service, a one-off command/)
    expect(examples["svc_search_logs:stack"]).not.toHaveProperty("tail")
  })
})

describe("through the protocol", () => {
  it.scoped(
    "bad params are refused with kind invalid_params, every problem with its path, the accepted fields; nothing is sent",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
        const result = (yield* Effect.promise(() =>
          client.callTool({
            name: "svc_update",
            arguments: { resource_type: "stack", params: { id: "web", config: { brnach: "main" }, force: true } },
          }),
        )) as ErrorResult
        expect(result.isError).toBe(true)
        const error = result.structuredContent?.error
        expect(error).toMatchObject({
          kind: "invalid_params",
          tool: "svc_update",
          selector: "stack",
          endpoint: "write/UpdateStack",
        })
        expect(error?.problems.map((p) => p.path).sort()).toEqual(["params.config.brnach", "params.force"])
        expect(error?.accepted).toMatch(/^\{config: \{additional_env_files\?: .*branch\?: string.*\}, id: string\}$/)
        const text = Mcp.text(result)
        expect(text).toMatch(
          /^svc_update resource_type "stack" -> write\/UpdateStack: invalid params, nothing was sent:\n/,
        )
        expect(text).toContain('- params.config.brnach: unknown field of params.config (did you mean "branch"?)')
        expect(text).toMatch(/\nwrite\/UpdateStack takes params \{config: /)
        expect(double.requests).toHaveLength(0)
      }),
  )

  it.scoped("null for params, wait and optional fields counts as absent; the body leaves them out", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
      const listed = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "variable", params: null, schema: null } }),
      )
      expect(listed.isError).toBeFalsy()
      expect(double.calls().at(-1)?.body).toEqual({})
      const deployed = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_execute",
          arguments: {
            operation: "deploy_stack",
            params: { stack: "web", services: null, stop_time: null },
            wait: null,
          },
        }),
      )
      expect(deployed.isError).toBeFalsy()
      expect(double.calls().at(-1)).toMatchObject({ path: "/execute/DeployStack", body: { stack: "web" } })
    }),
  )

  it.scoped("schema: true answers the selector's params from the definitions, and sends nothing", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
      const answer = JSON.parse(
        Mcp.text(
          yield* Effect.promise(() =>
            client.callTool({ name: "svc_logs", arguments: { resource_type: "stack", schema: true } }),
          ),
        ),
      )
      expect(answer).toEqual({
        tool: "svc_logs",
        resource_type: "stack",
        endpoint: "read/GetStackLog",
        params: "{services: string[], stack|id|name: string, tail?: number, timestamps?: boolean}",
        notation:
          'k?: optional; a|b: one of these keys; Name: a shape nested deeper, schema: "Name" answers it; {...}: an object nested deeper',
      })
      // A shape no answer named is said to be unknown, with the names the selector has.
      const unknown = JSON.parse(
        Mcp.text(
          yield* Effect.promise(() =>
            client.callTool({ name: "svc_create", arguments: { resource_type: "procedure", schema: "NoSuch" } }),
          ),
        ),
      )
      expect(unknown.type).toMatch(
        /^unknown: the service's definitions have no shape named "NoSuch"; the selector's names: .*EnabledExecution/,
      )
      const unchecked = JSON.parse(
        Mcp.text(
          yield* Effect.promise(() =>
            client.callTool({ name: "svc_execute", arguments: { operation: "run_server_copy", schema: true } }),
          ),
        ),
      )
      expect(unchecked.note).toMatch(/not in the service's published definitions/)
      expect(double.requests).toHaveLength(0)
    }),
  )

  it.scoped(
    "schema: true with the selector alone answers the schema on every tool and selector, and sends nothing",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
        expect(Definitions.all).toHaveLength(13)
        const shapes = new Set<string>()
        // svc_search_logs' published schema still requires `query`: only `schema: true` goes without it.
        expect(Definitions.svc_search_logs.inputSchema.required).toContain("query")
        for (const { tool, selector, endpoint } of allEndpoints) {
          const result = yield* Effect.promise(() =>
            client.callTool({ name: tool.name, arguments: { [tool.selectorKey]: selector, schema: true } }),
          )
          expect(result.isError, `${tool.name} ${selector}: ${Mcp.text(result)}`).toBeFalsy()
          const text = Mcp.text(result)
          expect(text.length, `${tool.name} ${selector}`).toBeLessThan(4_000)
          const answer = JSON.parse(text) as { shapes?: ReadonlyArray<string> }
          expect(answer, `${tool.name} ${selector}`).toMatchObject({
            tool: tool.name,
            [tool.selectorKey]: selector,
            endpoint:
              tool.groups?.[selector] === undefined ? endpoint : `${tool.groups[selector]}/${tool.endpoints[selector]}`,
          })
          // Every shape it names answers by its name, as short; each asked once.
          for (const name of answer.shapes ?? []) {
            if (shapes.has(name)) continue
            shapes.add(name)
            const shape = yield* Effect.promise(() =>
              client.callTool({ name: tool.name, arguments: { [tool.selectorKey]: selector, schema: name } }),
            )
            const shown = Mcp.text(shape)
            expect(shown.length, name).toBeLessThan(4_000)
            expect(JSON.parse(shown), name).toMatchObject({ shape: name, type: expect.stringMatching(/^[{A-Za-z"]/) })
            expect(JSON.parse(shown).type, name).not.toMatch(/^unknown/)
          }
        }
        expect(shapes.size).toBeGreaterThan(20)
        // Without `schema: true` the query is still required.
        const refused = yield* Effect.promise(() =>
          client.callTool({ name: "svc_search_logs", arguments: { resource_type: "stack", params: { stack: "web" } } }),
        )
        expect(refused.isError).toBe(true)
        expect(Mcp.text(refused)).toMatch(/query is required/)
        expect(double.requests).toHaveLength(0)
      }),
  )

  it.scoped("an endpoint with no published definition is sent unchecked", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const result = yield* invoke(Definitions.svc_execute, {
        operation: "run_server_run_command",
        params: { server: "a", anything: [1] },
      }).pipe(Effect.provide(Layers.client(Layers.apiKey(double.url))))
      expect(result.body).toEqual({ server: "a", anything: [1] })
      expect(double.calls()).toHaveLength(1)
    }).pipe(Effect.provide(ParamsCheck.layerLazy)),
  )

  it.scoped("with SVC_CHECK_PARAMS=off params are sent as given", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      yield* invoke(Definitions.svc_get, { resource_type: "stack", params: { stak: "web" } }).pipe(
        Effect.provide(Layers.client(Layers.apiKey(double.url))),
        Effect.provide(ParamsCheck.layerOff),
      )
      expect(double.calls().at(-1)?.body).toEqual({ stak: "web" })
    }),
  )
})
