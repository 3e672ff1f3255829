/**
 * One call, resolved once: the arguments of a `tools/call` are decoded once,
 * whatever the stages that read them (confirmation, the record, the program).
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { vi } from "vitest"
import * as Settings from "../../src/Settings/Policy.js"
import * as Definitions from "../../src/Tools/Definitions.js"
import * as Layers from "../support/Layers.js"
import * as Mcp from "../support/Mcp.js"
import * as Double from "../support/ServiceDouble.js"

const API_KEY = { apiKey: { key: Layers.KEY, secret: Layers.SECRET } }

const confirming = (patterns: string) =>
  Settings.loadSettings.pipe(
    Effect.map(({ confirm }) => ({ confirm })),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_CONFIRM", patterns]]))),
  )

describe("a tools/call", () => {
  // The SDK asks the question as the call's first round and runs the call again with the answer.
  it.scopedLive("is decoded once a round, though it is confirmed, sent and rendered", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(API_KEY)
      const settings = yield* confirming("svc_delete:*")
      const { client, asked } = yield* Mcp.connectV2(Layers.apiKey(double.url), settings, {
        era: "legacy",
        elicit: () => "accept",
      })
      const decode = vi.spyOn(Definitions.svc_delete, "decode")
      yield* Effect.addFinalizer(() => Effect.sync(() => decode.mockRestore()))
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "svc_delete", arguments: { resource_type: "stack", params: { id: "web" } } }),
      )
      expect(result.isError).toBeFalsy()
      expect(asked).toHaveLength(1)
      // The plan's reads, then the one write.
      expect(double.requests.filter((r) => !r.path.startsWith("/read/")).map((r) => r.path)).toEqual([
        "/write/DeleteStack",
      ])
      // The question's round and the answer's.
      expect(decode).toHaveBeenCalledTimes(2)
    }),
  )

  it.scopedLive("whose arguments do not decode is refused by the decoder's one reading, nothing sent", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(API_KEY)
      const { client } = yield* Mcp.connectV2(Layers.apiKey(double.url), yield* confirming("svc_delete:*"))
      const decode = vi.spyOn(Definitions.svc_delete, "decode")
      yield* Effect.addFinalizer(() => Effect.sync(() => decode.mockRestore()))
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "svc_delete", arguments: { resource_type: "stack", params: 3 } }),
      )
      expect(result.isError).toBe(true)
      expect(result.structuredContent).toMatchObject({ error: { kind: "invalid_arguments" } })
      expect(double.requests).toEqual([])
      expect(decode).toHaveBeenCalledTimes(1)
    }),
  )
})
