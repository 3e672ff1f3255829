/**
 * The protocol as both eras of clients see it, through the SDK v2 Client with
 * the server in this process: 2026-07-28 (no handshake, per-request `_meta`)
 * and 2025-11-25 (after `initialize`).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as CallContext from "../../../src/Call/Context.js"
import { SvcClient } from "../../../src/SvcClient.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"
import { until } from "../../support/Wait.js"

const ERAS: ReadonlyArray<Mcp.Era> = ["modern", "legacy"]
const LOG_LEVEL = "io.modelcontextprotocol/logLevel"
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

describe.each(ERAS)("the %s era", (era) => {
  it.scopedLive("lists the tools in their fixed order, and every result has an object structuredContent", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connectV2(Layers.apiKey(double.url), {}, { era })
      expect(client.getProtocolEra()).toBe(era)
      const first = yield* Effect.promise(() => client.listTools(undefined, { cacheMode: "bypass" }))
      const second = yield* Effect.promise(() => client.listTools(undefined, { cacheMode: "bypass" }))
      expect(first.tools.map((t) => t.name)).toEqual(Definitions.all.map((t) => t.name))
      expect(second).toEqual(first)
      const items = [{ name: "web" }, { name: "db" }]
      double.next("/read/ListStacks", { status: 200, body: items })
      const list = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }),
      )
      // At a glance: rows, of which these records fill only the name (and the updates, none).
      const rows = items.map((item) => [item.name, null, null, null, null, null, null, null, []])
      expect(list.structuredContent).toEqual({
        columns: ["name", "id", "state", "server", "tags", "repo", "branch", "services", "updates"],
        result: rows,
      })
      expect(JSON.parse(Mcp.text(list).split("\n")[1] ?? "")).toEqual(rows)
      const got = yield* Effect.promise(() =>
        client.callTool({ name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } }),
      )
      expect(got.structuredContent).toEqual({ endpoint: "read/GetStack", params: { stack: "web" } })
    }),
  )

  it.scopedLive("refuses an unknown tool, and arguments that are not an object, with invalid params", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connectV2(Layers.apiKey(double.url), {}, { era })
      const unknown = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "svc_nope", arguments: {} })))
      expect(unknown.cause).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool "svc_nope"/) })
      const notObject = yield* Effect.flip(
        Effect.tryPromise(() =>
          client.callTool({ name: "svc_get", arguments: [1] as unknown as Record<string, unknown> }),
        ),
      )
      expect(notObject.cause).toMatchObject({
        code: -32602,
        message: expect.stringMatching(
          /arguments must be an object, e\.g\. \{"resource_type": "stack"\}, not an array/,
        ),
      })
      expect(double.requests).toHaveLength(0)
    }),
  )

  it.scopedLive("a cancelled call aborts its request to the service", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/read/ListServers", { hang: "before-headers" })
      const { client } = yield* Mcp.connectV2(Layers.apiKey(double.url), {}, { era })
      const controller = new AbortController()
      const pending = client
        .callTool({ name: "svc_list", arguments: { resource_type: "server" } }, { signal: controller.signal })
        .catch((error: unknown) => error)
      yield* until(() => double.requests.length === 1)
      controller.abort()
      yield* Effect.promise(() => pending)
      yield* until(() => double.aborted === 1)
    }),
  )

  it.scopedLive("keeps the trace context of the call's _meta with the fiber that serves it", () =>
    Effect.gen(function* () {
      const seen: Array<CallContext.TraceContext> = []
      const service = Layer.succeed(SvcClient, {
        call: () => Effect.succeed({}),
        answer: () =>
          Effect.map(CallContext.get, ({ trace }) => {
            seen.push(trace)
            return { value: {}, text: "{}" }
          }),
      })
      const { client } = yield* Mcp.connectV2(Layers.apiKey("http://127.0.0.1:9"), {}, { era, service })
      const call = (_meta?: Record<string, unknown>) =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "tag" }, ...(_meta ? { _meta } : {}) })
      yield* Effect.promise(() => call({ traceparent: TRACEPARENT, tracestate: "vendor=1", baggage: "user=a" }))
      yield* Effect.promise(() => call())
      yield* Effect.promise(() => call({ traceparent: "not-a-trace" }))
      expect(seen).toEqual([{ traceparent: TRACEPARENT, tracestate: "vendor=1", baggage: "user=a" }, {}, {}])
    }),
  )
})

describe("log notifications", () => {
  it.scopedLive("on 2026-07-28 follow the level in the request's _meta, and none without one", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client, logs } = yield* Mcp.connectV2(Layers.apiKey(double.url), {}, { era: "modern" })
      const call = (_meta?: Record<string, unknown>) =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "server" }, ...(_meta ? { _meta } : {}) })
      yield* Effect.promise(() => call())
      expect(logs).toEqual([])
      yield* Effect.promise(() => call({ [LOG_LEVEL]: "debug" }))
      expect(logs.map((l) => [l.level, l.data])).toEqual([
        ["debug", expect.stringMatching(/read\/ListServers answered 200/)],
      ])
      double.next("/read/ListServers", { status: 500, body: { error: "boom", trace: [] } })
      yield* Effect.promise(() => call({ [LOG_LEVEL]: "warning" }))
      expect(logs.slice(1).map((l) => l.level)).toEqual(["warning"])
    }),
  )

  it.scopedLive("on 2025-11-25 follow logging/setLevel, info by default", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client, logs } = yield* Mcp.connectV2(Layers.apiKey(double.url), {}, { era: "legacy" })
      const call = () => client.callTool({ name: "svc_list", arguments: { resource_type: "server" } })
      yield* Effect.promise(() => call())
      expect(logs).toEqual([])
      yield* Effect.promise(() => client.setLoggingLevel("debug"))
      yield* Effect.promise(() => call())
      expect(logs.map((l) => l.level)).toEqual(["debug"])
    }),
  )
})
