/**
 * Fuzzing through the protocol: any JSON as any tool's arguments, and any
 * answer the service may give, end in a well-formed result, never a crash or
 * a hang, and never show a secret. 50 cases times PROPERTY_RUNS (200 as `npm test` runs it); FUZZ_RUNS
 * sets the count for a longer run.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import { runs } from "../../support/Runs.js"
import * as Double from "../../support/ServiceDouble.js"

const RUNS = Number(process.env.FUZZ_RUNS ?? runs(50))

interface Result {
  readonly isError?: boolean
  readonly content: Array<{ type: string; text: string }>
  readonly structuredContent?: { error?: { kind?: string; message?: string } }
}

/** Well-formed: one text content; a failure has a structured error with a kind and a message. */
const wellFormed = (result: Result) => {
  expect(result.content).toHaveLength(1)
  expect(result.content[0]?.type).toBe("text")
  expect(typeof result.content[0]?.text).toBe("string")
  // An object, whatever the service answered: clients that validate structuredContent refuse anything else.
  const structured: unknown = result.structuredContent
  expect(typeof structured === "object" && structured !== null && !Array.isArray(structured)).toBe(true)
  if (result.isError === true) {
    expect(typeof result.structuredContent?.error?.kind).toBe("string")
    expect(typeof result.structuredContent?.error?.message).toBe("string")
  }
}

const secretFree = (text: string) => {
  expect(text).not.toContain(Layers.SECRET)
  expect(text).not.toContain(Layers.PASSWORD)
}

/** Arguments that are mostly near-valid, so that decoding and calling are both reached. */
const argumentsFor = (tool: (typeof Definitions.all)[number]) =>
  FastCheck.oneof(
    FastCheck.jsonValue(),
    FastCheck.record(
      {
        [tool.selectorKey]: FastCheck.oneof(FastCheck.constantFrom(...tool.selectors), FastCheck.jsonValue()),
        params: FastCheck.oneof(
          FastCheck.dictionary(FastCheck.string(), FastCheck.jsonValue(), { maxKeys: 4 }),
          FastCheck.jsonValue(),
        ),
        query: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
        wait: FastCheck.oneof(FastCheck.constant(false), FastCheck.jsonValue()),
        extra: FastCheck.jsonValue(),
      },
      { requiredKeys: [] },
    ),
  )

const toolCall = FastCheck.oneof(
  ...Definitions.all.map((tool) =>
    FastCheck.record({ name: FastCheck.constant(tool.name), arguments: argumentsFor(tool) }),
  ),
  FastCheck.record({ name: FastCheck.string(), arguments: FastCheck.jsonValue() }),
)

describe("fuzzing", () => {
  it.scopedLive(
    `any JSON as any tool's arguments is answered: ${RUNS} cases`,
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        // Executions answer like the service, so that `wait` ends at once.
        double.next(
          "*",
          { status: 200, body: { _id: { $oid: "u" }, status: "Complete", success: true } },
          { sticky: true },
        )
        const { client } = yield* Mcp.connect(Layers.apiKey(double.url), { waitTimeoutMs: 2_000 })
        const known = new Set(Definitions.all.map((t) => t.name))
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(toolCall, async (call) => {
              const args = call.arguments as Record<string, unknown>
              // An answer is a result or a JSON-RPC error (as for an unknown tool, or arguments
              // that are not an object, which the SDK refuses); the client's time-out is a hang.
              const answer = await client
                .callTool({ name: call.name, arguments: args }, undefined, { timeout: 10_000 })
                .then((result) => ({ result: result as Result }))
                .catch((error: { code?: number; message?: string }) => ({ error }))
              if ("error" in answer) {
                expect(answer.error.code).not.toBe(-32001)
                // Only an unknown tool, or arguments that are not an object: "invalid params".
                expect(answer.error.code).toBe(-32602)
                expect(typeof answer.error.message).toBe("string")
                const notAnObject =
                  typeof call.arguments !== "object" || call.arguments === null || Array.isArray(call.arguments)
                if (known.has(call.name)) expect(notAnObject).toBe(true)
                return
              }
              wellFormed(answer.result)
              secretFree(JSON.stringify(answer.result))
            }),
            { numRuns: RUNS },
          ),
        )
        // Still serving.
        const after = (yield* Effect.promise(() =>
          client.callTool({ name: "svc_list", arguments: { resource_type: "tag" } }),
        )) as Result
        expect(after.isError).toBeFalsy()
      }),
    300_000,
  )

  it.scopedLive(
    "any status, headers and body the service may send end in a well-formed, secret-free result",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
        const withSecret = FastCheck.oneof(
          FastCheck.string(),
          FastCheck.constantFrom(Layers.SECRET, `{"error":"bad key ${Layers.SECRET}","trace":["${Layers.SECRET}"]}`),
        )
        const answer = FastCheck.record({
          status: FastCheck.integer({ min: 200, max: 599 }),
          headers: FastCheck.dictionary(
            FastCheck.stringMatching(/^x-[a-z]{1,10}$/),
            FastCheck.stringMatching(/^[ -~]{0,40}$/),
            { maxKeys: 3 },
          ),
          body: FastCheck.oneof(
            withSecret,
            FastCheck.jsonValue().map((v) => JSON.stringify(v)),
          ),
        })
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(answer, async ({ status, headers, body }) => {
              double.next("/read/GetStack", { status, raw: body, headers })
              const result = (await client.callTool({
                name: "svc_get",
                arguments: { resource_type: "stack", params: { stack: "web" } },
              })) as Result
              wellFormed(result)
              secretFree(JSON.stringify(result))
              if (status >= 300) expect(result.isError).toBe(true)
            }),
            { numRuns: Math.min(RUNS, 2_000) },
          ),
        )
      }),
    300_000,
  )
})
