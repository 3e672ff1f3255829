/**
 * One call, resolved once: the arguments of a `tools/call` are decoded once,
 * whatever the stages that read them (confirmation, the record, the program).
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { vi } from "vitest"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

const confirming = (patterns: string) =>
  Settings.loadSettings.pipe(
    Effect.map(({ confirm }) => ({ confirm })),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_CONFIRM", patterns]]))),
  )

describe("a tools/call", () => {
  // The SDK asks the question as the call's first round and runs the call again with the answer.
  it.scopedLive("is decoded once a round, though it is confirmed, sent and rendered", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
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
      const double = yield* Double.scoped(Layers.API_KEY)
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

  // The call path is made on first use (Server.ts): calls that come before it is made wait for the one making.
  it.scopedLive("among the first, all at once before the tools are listed, waits for the call path made once", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const stacks = [{ id: "s1", name: "web", info: { state: "running" } }]
      double.next("/read/ListStacks", { status: 200, body: stacks }, { sticky: true })
      const { client } = yield* Mcp.connectV2(Layers.apiKey(double.url), yield* confirming(""))
      const results = yield* Effect.promise(() =>
        Promise.all(
          Array.from({ length: 20 }, () =>
            client.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }),
          ),
        ),
      )
      expect(results.filter((result) => result.isError === true)).toEqual([])
      for (const result of results) {
        expect(result.structuredContent).toMatchObject({
          result: [["web", "s1", "running", null, null, null, null, null, []]],
        })
      }
      // The default page is learned once per call path made (Pages.make): one read, not one per waiting call.
      expect(double.requests.filter((r) => r.path === "/read/GetCoreInfo")).toHaveLength(1)
      expect(double.requests.filter((r) => r.path === "/read/ListStacks")).toHaveLength(20)
    }),
  )
})
