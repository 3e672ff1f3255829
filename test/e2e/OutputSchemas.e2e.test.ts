/**
 * Every answer checks against its tool's output schema, as a client checks it: the SDK's v1
 * `Client` refuses structured content that does not match once it has listed the tools (-32602),
 * and each answer is checked here with ajv as well, so that a refusal names the call. Over the
 * built server and its sandbox, in every scenario, with and without SVC_REACH=all: every
 * selector's `schema: true`, and each list at a glance, with `fields`, with `fields: ["*"]`, cut
 * by a small budget, a page past the end, and refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

interface Listed {
  readonly name: string
  readonly inputSchema: { readonly properties?: Record<string, { readonly enum?: ReadonlyArray<string> }> }
  readonly outputSchema?: Record<string, unknown>
}

/** The params a list of one thing needs, by the thing's key: the sandbox's names. */
const PARAMS: Readonly<Record<string, Record<string, unknown>>> = {
  containers: { server: "prod-01" },
  images: { server: "prod-01" },
  networks: { server: "prod-01" },
  volumes: { server: "prod-01" },
  system_processes: { server: "prod-01" },
  compose_projects: { server: "prod-01" },
  image_history: { server: "prod-01", image: "nginx:1.27" },
  api_keys_for_service_user: { user: "ci-deployer" },
  build_versions: { build: "api-image" },
  user_target_permissions: { user_target: { type: "User", id: "alice" } },
  historical_server_stats: { server: "prod-02", granularity: "5-min" },
  stack_services: { stack: "web" },
  ...Object.fromEntries(
    ["configs", "networks", "nodes", "secrets", "services", "stacks", "tasks"].map((kind) => [
      `swarm_${kind}`,
      { swarm: "edge-swarm" },
    ]),
  ),
}

const selectorsOf = (tool: Listed): { readonly key: string; readonly values: ReadonlyArray<string> } => {
  const [key, schema] = Object.entries(tool.inputSchema.properties ?? {}).find(([, s]) => s.enum !== undefined) ?? []
  return { key: key ?? "", values: schema?.enum ?? [] }
}

/** Connects a checking client over stdio, and answers each call's refusals: the client's and ajv's. */
const checking = (env: Record<string, string>, args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { client } = yield* Spawn.connect(env, args)
    const { tools } = (yield* Effect.promise(() => client.listTools())) as unknown as { tools: ReadonlyArray<Listed> }
    const ajv = new Ajv({ strict: false })
    const validators = new Map(
      tools.flatMap((tool) => (tool.outputSchema === undefined ? [] : [[tool.name, ajv.compile(tool.outputSchema)]])),
    )
    const refused: Array<string> = []
    const sizes: Array<readonly [string, number]> = []
    let calls = 0
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(async () => {
        calls++
        const label = `${name} ${JSON.stringify(args)}`
        try {
          const result = (await client.callTool({ name, arguments: args })) as {
            content: Array<{ text?: string }>
            structuredContent?: unknown
            isError?: boolean
          }
          sizes.push([label, result.content[0]?.text?.length ?? 0])
          const validate = validators.get(name)
          if (validate !== undefined && result.structuredContent !== undefined && !validate(result.structuredContent))
            refused.push(`${label}: ${ajv.errorsText(validate.errors)}`)
          if (validate !== undefined && result.structuredContent === undefined && result.isError !== true)
            refused.push(`${label}: no structured content`)
        } catch (error) {
          refused.push(`${label}: ${String((error as Error).message).slice(0, 200)}`)
        }
      })
    return { tools, call, refused, sizes, count: () => calls }
  })

const schemaLookups = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const { tools, call, refused, sizes, count } = yield* checking(env, ["--sandbox"])
    for (const tool of tools) {
      const { key, values } = selectorsOf(tool)
      for (const value of values) yield* call(tool.name, { [key]: value, schema: true })
    }
    // Schema help stays short: deeper shapes are named, each answered by `schema: "Name"`.
    return { refused, long: sizes.filter(([, length]) => length > 4_000), count: count() }
  })

describe("every answer checks against its tool's output schema", () => {
  it.scopedLive("every selector's schema: true, with SVC_REACH=all and without", () =>
    Effect.gen(function* () {
      const all = yield* schemaLookups({ SVC_REACH: "all" })
      expect(all.refused).toEqual([])
      expect(all.long).toEqual([])
      expect(all.count).toBeGreaterThan(300)
      const interfaceOnly = yield* schemaLookups({})
      expect(interfaceOnly.refused).toEqual([])
      expect(interfaceOnly.long).toEqual([])
      expect(interfaceOnly.count).toBeGreaterThan(250)
    }),
  )

  for (const scenario of ["calm", "incident", "drift"]) {
    it.scopedLive(`every list, as rows, with fields, whole, cut, past its end and refused: ${scenario}`, () =>
      Effect.gen(function* () {
        const budget = scenario === "incident" ? { SVC_MAX_OUTPUT_CHARS: "1500" } : {}
        const { tools, call, refused, count } = yield* checking({ SVC_REACH: "all", ...budget }, [
          "--sandbox",
          "--scenario",
          scenario,
        ])
        const lists = tools.filter((tool) => tool.outputSchema !== undefined)
        expect(lists.map((tool) => tool.name).sort()).toEqual(["svc_list", "svc_list_detail"])
        for (const tool of lists) {
          const { key, values } = selectorsOf(tool)
          for (const value of values) {
            const params = PARAMS[value] ?? {}
            yield* call(tool.name, { [key]: value, params })
            yield* call(tool.name, { [key]: value, params, fields: ["*"] })
            yield* call(tool.name, { [key]: value, params, fields: ["name", "id", "state"] })
            yield* call(tool.name, { [key]: value, params: { ...params, page: 99 } })
            yield* call(tool.name, { [key]: value, params: { ...params, no_such_field: true } })
          }
        }
        yield* call("svc_list", { resource_type: "stack", params: { limit: 1 } })
        yield* call("svc_list", { resource_type: "nothing" })
        yield* call("svc_list", { resource_type: "stack", fields: "name" })
        expect(refused).toEqual([])
        expect(count()).toBeGreaterThan(300)
      }),
    )
  }
})
