import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Shown from "../../../src/Call/Shown.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { invoke, resolve } from "../../../src/Tools/Invoke.js"
import * as ParamsCheck from "../../../src/Tools/Params/ParamsCheck.js"
import * as Render from "../../../src/Tools/Render.js"
import * as Examples from "../../support/Examples.js"
import * as Layers from "../../support/Layers.js"
import * as Double from "../../support/ServiceDouble.js"
import * as Spec from "../../support/Spec.js"

const refused = (tool: (typeof Definitions.all)[number], args: unknown) => {
  const result = resolve(tool, args)
  if (Either.isRight(result)) throw new Error(`expected ${JSON.stringify(args)} to be refused`)
  return result.left
}

describe("tool arguments", () => {
  it("decode the selector, default params to {}, and name the endpoint", () => {
    const invocation = Either.getOrThrow(resolve(Definitions.svc_get, { resource_type: "sync_resource" }))
    expect(invocation).toEqual({
      tool: "svc_get",
      wait: false,
      schema: false,
      selectorKey: "resource_type",
      selector: "sync_resource",
      endpoint: "read/GetResourceSync",
      body: {},
      // At a glance: no `fields` asked for another view.
      shown: Shown.Shown.Glance(),
    })
  })

  it("treat absent arguments as {} (and then ask for the selector)", () => {
    const error = refused(Definitions.svc_list, undefined)
    expect(error.problems).toEqual([expect.stringMatching(/^resource_type is required, one of: stack, build,/)])
  })

  it("refuse a selector the tool does not accept, listing those it does", () => {
    // `user` is a list-only type; image_registry_account cannot be deleted.
    expect(refused(Definitions.svc_get, { resource_type: "user" }).problems[0]).toMatch(
      /resource_type "user" is not accepted by svc_get; accepted: stack, .*git_provider_account$/,
    )
    expect(refused(Definitions.svc_delete, { resource_type: "image_registry_account" }).message).toMatch(
      /not accepted by svc_delete/,
    )
    expect(refused(Definitions.svc_execute, { operation: "RunBuild" }).problems[0]).toMatch(/operation "RunBuild"/)
  })

  it("take null for an optional argument as absent, as clients that make every field required send it", () => {
    const invocation = Either.getOrThrow(
      resolve(Definitions.svc_execute, { operation: "deploy", params: null, wait: null, schema: null }),
    )
    expect(invocation).toMatchObject({ body: {}, wait: false, schema: false })
    expect(refused(Definitions.svc_get, { resource_type: null }).problems[0]).toMatch(/^resource_type is required/)
  })

  for (const params of ["web", 5, [1, 2], true]) {
    it(`refuse params that is not an object: ${JSON.stringify(params)}`, () => {
      expect(refused(Definitions.svc_get, { resource_type: "stack", params }).problems).toEqual([
        expect.stringMatching(/^params must be a JSON object/),
      ])
    })
  }

  it("refuse arguments that are not an object", () => {
    for (const args of ["stack", 1, [], null]) {
      const problems = refused(Definitions.svc_list, args).problems
      expect(problems.length).toBe(1)
    }
  })

  it("refuse unknown arguments, naming those the tool takes", () => {
    expect(refused(Definitions.svc_get, { resource_type: "stack", param: {} }).problems).toEqual([
      'unknown argument "param": svc_get takes resource_type, params, fields, schema',
    ])
  })

  it("svc_search_logs requires a query string and sends it as terms, unless params names terms", () => {
    const tool = Definitions.svc_search_logs
    expect(refused(tool, { resource_type: "stack", params: { stack: "web" } }).problems).toEqual([
      "query is required: the text to search for",
    ])
    expect(refused(tool, { resource_type: "stack", query: 5 }).problems[0]).toMatch(/query must be a string/)
    const sent = Either.getOrThrow(
      resolve(tool, { resource_type: "stack", query: "error", params: { stack: "web", services: [] } }),
    )
    expect(sent.body).toEqual({ stack: "web", services: [], terms: ["error"] })
    const own = Either.getOrThrow(
      resolve(tool, { resource_type: "stack", query: "x", params: { terms: ["a", "b"], combinator: "And" } }),
    )
    // A stack's search without services searches them all: `[]`, as the service reads it.
    expect(own.body).toEqual({ services: [], terms: ["a", "b"], combinator: "And" })
  })

  it("report every problem at once", () => {
    const error = refused(Definitions.svc_search_logs, { resource_type: "nope", params: 1, extra: true })
    expect(error.problems).toHaveLength(4)
    const rendered = Render.failure(error)
    expect(rendered.isError).toBe(true)
    expect(rendered.text).toMatch(/Nothing was sent/)
    expect(rendered.structured?.error).toMatchObject({ kind: "invalid_arguments", tool: "svc_search_logs" })
  })
})

describe("tool programs against the service", () => {
  it.scoped(
    `every one of the ${Spec.rows.length} selectors calls its endpoint, once, with the params as the body`,
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        let count = 0
        yield* Effect.gen(function* () {
          for (const tool of Definitions.all) {
            for (const selector of tool.selectors) {
              const endpoint = `${tool.group}/${tool.endpoints[selector]}`
              // The least params the endpoint's definition accepts; a marker where it has none.
              const request = Examples.requestOf(endpoint)
              const params =
                request === undefined ? { marker: `${tool.name}:${selector}` } : (Examples.least(request) as object)
              const args = { [tool.selectorKey]: selector, params, ...(tool.query === undefined ? {} : { query: "q" }) }
              const before = double.requests.length
              const result = yield* invoke(tool, args)
              expect(double.requests.length).toBe(before + 1)
              expect(double.requests.at(-1)?.path).toBe(`/${endpoint}`)
              expect(result.endpoint).toBe(endpoint)
              expect(result.data).toEqual({ endpoint, params: result.body })
              expect(result.body).toMatchObject(params)
              count++
            }
          }
        }).pipe(Effect.provide(Layers.client(Layers.apiKey(double.url))))
        expect(count).toBe(Spec.rows.length)
        // The check off: this is each selector's way to its endpoint. That every least body passes
        // the check is ParamsCheck.test's, which compiles every endpoint's check already.
      }).pipe(Effect.provide(ParamsCheck.layerOff)),
  )

  it.scoped(
    "params reach the service exactly as given with the check off, a key named __proto__ included; checked, it is an unknown field",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const client = Layers.client(Layers.apiKey(double.url))
        const text = '{"__proto__":{"a":1},"stack":"web","config":{"constructor":"x"}}'
        // Checked, __proto__ is a field like any other: one GetStack does not have.
        const error = yield* Effect.flip(
          invoke(Definitions.svc_get, { resource_type: "stack", params: JSON.parse(text) }).pipe(
            Effect.provide(client),
          ),
        )
        expect(error._tag === "ToolParamsError" && error.problems.map((p) => p.path)).toEqual([
          "params.__proto__",
          "params.config",
        ])
        expect(double.requests).toHaveLength(0)
        yield* invoke(Definitions.svc_get, { resource_type: "stack", params: JSON.parse(text) }).pipe(
          Effect.provide(client),
          Effect.provide(ParamsCheck.layerOff),
        )
        expect(JSON.stringify(double.requests.at(-1)?.body)).toBe(text)
      }).pipe(Effect.provide(Layers.params)),
  )

  it.scoped("a refused call sends nothing", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const error = yield* Effect.flip(
        invoke(Definitions.svc_get, { resource_type: "nope" }).pipe(
          Effect.provide(Layers.client(Layers.apiKey(double.url))),
        ),
      )
      expect(error._tag).toBe("ToolInputError")
      expect(double.requests).toHaveLength(0)
    }).pipe(Effect.provide(Layers.params)),
  )

  it.scoped("a failed call names the tool, the selector and the endpoint, in text and structure", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ ...Layers.API_KEY, version: "2.3.2" })
      const error = yield* Effect.flip(
        invoke(Definitions.svc_execute, { operation: "run_server_copy", params: { server: "a" } }).pipe(
          Effect.provide(Layers.client(Layers.apiKey(double.url))),
        ),
      )
      const rendered = Render.failure(error)
      expect(rendered.text).toMatch(
        /^svc_execute operation "run_server_copy": execute\/RunServerCopy is not offered by this version/,
      )
      expect(rendered.structured?.error).toMatchObject({
        kind: "unknown_endpoint",
        tool: "svc_execute",
        selector: "run_server_copy",
        endpoint: "execute/RunServerCopy",
        status: 500,
      })
    }).pipe(Effect.provide(Layers.params)),
  )
})
