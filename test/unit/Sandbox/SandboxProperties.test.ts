/**
 * Properties of the sandbox over the service's definitions of all 341
 * endpoints: for any endpoint and any params its request definition allows
 * (strings drawn mostly from the estate's names, so that calls reach their
 * resources), the answer is the endpoint's answer definition or an error in
 * the service's shape, never an unknown variant or a crash; and whatever the
 * read-only user sends, it changes nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import { document, type JsonSchema, validators } from "../../support/Definitions.js"
import { runs } from "../../support/Runs.js"
import * as Sandboxes from "../../support/Sandbox.js"

const validator = validators(false)

/** Names the seeded estate holds, of every kind: most drawn strings are one of them. */
const NAMES = [
  "web",
  "monitoring",
  "staging-web",
  "api",
  "docs",
  "legacy-cron",
  "prod-01",
  "prod-02",
  "staging-01",
  "api-image",
  "docs-image",
  "infra",
  "api-source",
  "release",
  "nightly-backup",
  "rotate-logs",
  "estate-sync",
  "local-builder",
  "ops-slack",
  "edge-swarm",
  "production",
  "staging",
  "LOG_LEVEL",
  "operators",
  "alice",
  "bob",
  "ci-deployer",
  "web-web-1",
  "web-worker-1",
  "worker",
  "redis:7-alpine",
  "bridge",
  "redis-data",
  "compose.yaml",
]

const resolve = (schema: JsonSchema): JsonSchema => {
  let current = schema
  for (let i = 0; i < 20 && current.$ref !== undefined; i++) {
    current = document.definitions[decodeURIComponent(current.$ref.slice(current.$ref.lastIndexOf("/") + 1))] ?? {}
  }
  return current
}

const text = FastCheck.oneof(
  { weight: 4, arbitrary: FastCheck.constantFrom(...NAMES) },
  { weight: 1, arbitrary: FastCheck.string({ maxLength: 8 }) },
)

/** Values a definition allows: its enums and constants, records with its required fields, the estate's names. */
const allowed = (given: JsonSchema, depth: number): FastCheck.Arbitrary<unknown> => {
  const schema = resolve(given)
  if (schema.const !== undefined) return FastCheck.constant(schema.const)
  if (schema.enum !== undefined) return FastCheck.constantFrom(...schema.enum)
  if (schema.properties !== undefined) return recordOf(schema, depth)
  if (schema.anyOf !== undefined) return FastCheck.oneof(...schema.anyOf.map((s) => allowed(s, depth + 1)))
  switch (schema.type) {
    case "string":
      return text
    case "number":
      return FastCheck.oneof(FastCheck.constantFrom(0, 1, 2), FastCheck.integer({ min: -1, max: 2000 }))
    case "boolean":
      return FastCheck.boolean()
    case "array":
      return depth > 3
        ? FastCheck.constant([])
        : FastCheck.array(allowed(schema.items ?? {}, depth + 1), { maxLength: 3 })
    case "object":
      return FastCheck.constant({})
    default:
      // A database filter, or any value: mostly one that names a field the records have.
      return FastCheck.constantFrom({}, { resolved: false }, { name: "production" }, { "data.type": "ServerMem" })
  }
}

const recordOf = (schema: JsonSchema, depth: number): FastCheck.Arbitrary<unknown> => {
  if (depth > 4) return FastCheck.constant({})
  const properties = schema.properties ?? {}
  const fields = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, allowed(s, depth + 1)]))
  // A field that goes by other names (`stack`, `id`, `name`): one of the names is given.
  const aliases = schema.anyOf?.map((o) => o.required ?? []) ?? [[]]
  return FastCheck.constantFrom(...aliases).chain((alias) =>
    FastCheck.record(fields, { requiredKeys: [...(schema.required ?? []), ...alias] }),
  )
}

const ENDPOINTS = Object.keys(document.endpoints).filter((e) => e !== "auth/login/LoginLocalUser")

const call = FastCheck.constantFrom(...ENDPOINTS).chain((endpoint) => {
  const request = document.endpoints[endpoint]?.request
  const params =
    request === null || request === undefined
      ? FastCheck.constant({})
      : allowed({ $ref: `#/definitions/${request}` }, 0)
  return FastCheck.tuple(
    FastCheck.constant(endpoint),
    FastCheck.oneof({ weight: 9, arbitrary: params }, { weight: 1, arbitrary: FastCheck.jsonValue() }),
  )
})

/** An error as the service words one: what it refuses, never a crash of its own. */
const serviceError = (body: unknown) => {
  expect(body).toEqual({ error: expect.any(String), trace: expect.any(Array) })
  const { error } = body as { error: string }
  expect(error).not.toMatch(/^(TypeError|RangeError|ReferenceError|SyntaxError|Error)\b/)
  expect(error).not.toMatch(/^unknown variant `\w+`, expected one of the (read|write|execute) requests/)
}

describe("the sandbox, for any call the definitions allow", () => {
  it.scopedLive(
    "answers as the endpoint's answer definition says, or refuses in the service's shape",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const headers = { "x-api-key": sandbox.apiKey.key, "x-api-secret": sandbox.apiKey.secret }
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(call, async ([endpoint, params]) => {
              const { status, body } = await Sandboxes.request(sandbox, endpoint, params, headers)
              if (status !== 200) {
                expect([400, 500]).toContain(status)
                return serviceError(body)
              }
              const response = document.endpoints[endpoint]?.response
              if (response === null || response === undefined) return
              const validate = validator(response)
              expect(validate(body), `${endpoint} ${JSON.stringify(validate.errors?.[0])}`).toBe(true)
            }),
            { numRuns: runs(150) },
          ),
        )
        // And it still serves.
        expect((yield* Effect.promise(() => Sandboxes.request(sandbox, "read/ListStacks", {}, headers))).status).toBe(
          200,
        )
      }),
    60_000,
  )

  it.scopedLive(
    "from the read-only user, changes nothing: each write and execution is refused or changes its own",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const admin = { "x-api-key": sandbox.apiKey.key, "x-api-secret": sandbox.apiKey.secret }
        const viewer = { "x-api-key": sandbox.viewer.apiKey.key, "x-api-secret": sandbox.viewer.apiKey.secret }
        const state = () =>
          Promise.all(
            ["read/ListFullStacks", "read/ListFullServers", "read/ListUsers", "read/ListAlerts", "read/ListTags"].map(
              async (e) => JSON.stringify((await Sandboxes.request(sandbox, e, {}, admin)).body),
            ),
          )
        const before = yield* Effect.promise(state)
        const own = new Set(["write/PushRecentlyViewed", "write/SetLastSeenUpdate"])
        const changes = call.filter(([endpoint]) => !endpoint.startsWith("read/") && !own.has(endpoint))
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(changes, async ([endpoint, params]) => {
              const { status, body } = await Sandboxes.request(sandbox, endpoint, params, viewer)
              // A batch leaves out what the caller may not execute: it answers each as refused, or nothing.
              if (status === 200) {
                expect(endpoint).toMatch(/^(execute\/Batch|write\/BatchCheck)/)
                for (const item of body) expect(item.status).toBe("Err")
                return
              }
              serviceError(body)
            }),
            { numRuns: runs(100) },
          ),
        )
        expect(yield* Effect.promise(state)).toEqual(before)
        expect(sandbox.world.history.updates).toHaveLength(0)
      }),
  )
})
