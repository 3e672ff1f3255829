/**
 * Embedding through the bundles: an optional part is off until its layer alone
 * is provided, and an embedding program's own HttpClient (here ours, wrapped
 * with HttpClient.mapRequest) is still bounded by SVC_TIMEOUT_MS; two servers
 * built in one process share none of their state.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  Audit,
  Bundle,
  ConfirmationState,
  Definitions,
  Guard,
  Invoke,
  McpHttp,
  SvcTransport,
  TeamSettings,
} from "../../src/index.js"
import * as PatternReader from "../../src/Shared/PatternReader.js"
import * as ParamsCheck from "../../src/Tools/Params/ParamsCheck.js"
import * as Clients from "../support/Clients.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"

const settings = (entries: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(entries)))

/** The tools served over HTTP through the bundles, over our HttpClient, with `parts` beneath. */
const served = <E>(parts: Layer.Layer<never, E> | Layer.Layer<Audit.Audit, E>) =>
  Bundle.http({ host: "127.0.0.1", port: 0, token: Option.none() }).pipe(
    Layer.provideMerge(Bundle.tools),
    Layer.provideMerge(Bundle.client),
    Layer.provide(parts),
    Layer.provide(SvcTransport.layer),
  )

/** Creates a tag through MCP, as a client of the served tools does. */
const createTag = Effect.gen(function* () {
  const { url } = yield* McpHttp.HttpServing
  const { client: mcp } = yield* Clients.overHttp(url, { name: "embedding-test", era: "legacy" })
  return yield* Effect.promise(() =>
    mcp.callTool({ name: "svc_create", arguments: { resource_type: "tag", params: { name: "blue" } } }),
  )
})

// Each test on a service double and servers of its own: the time-out's wait and the others' work overlap.
describe.concurrent("embedding through the bundles", () => {
  it.scopedLive("turns the audit log on by providing its layer alone, reading SVC_AUDIT_LOG; off without it", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-embedding-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      const log = Path.join(dir, "audit.log")
      const provider = settings({
        SVC_URL: double.url,
        SVC_API_KEY: Layers.KEY,
        SVC_API_SECRET: Layers.SECRET,
        SVC_AUDIT_LOG: log,
      })
      // The variable is set, but no layer reads it: nothing is audited.
      yield* createTag.pipe(Effect.provide(served(Layer.empty)), Effect.withConfigProvider(provider), Effect.scoped)
      expect(double.requests.filter((r) => r.path === "/write/CreateTag")).toHaveLength(1)
      expect(Fs.existsSync(log)).toBe(false)
      // Its layer alone turns it on.
      const result = yield* createTag.pipe(
        Effect.provide(served(Audit.layerConfig)),
        Effect.withConfigProvider(provider),
        Effect.scoped,
      )
      expect(result.isError).toBeUndefined()
      const lines = Fs.readFileSync(log, "utf8").trim().split("\n")
      // The change's intent, its outcome, and the checkpoint that closed the log with the scope.
      expect(lines.map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({ phase: "intent", tool: "svc_create", endpoint: "write/CreateTag" }),
        expect.objectContaining({
          phase: "outcome",
          caller: "server",
          tool: "svc_create",
          selector: "tag",
          endpoint: "write/CreateTag",
          outcome: "ok",
        }),
        expect.objectContaining({ phase: "checkpoint", final: true }),
      ])
      expect(lines.join("\n")).not.toContain(Layers.SECRET)
    }),
  )

  it.scopedLive("an embedding program's own HttpClient wrapper is still bounded by SVC_TIMEOUT_MS", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("*", { hang: "before-headers" })
      // The program's wrapper: every request carries its header.
      const wrapped = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(HttpClientRequest.setHeader("x-embedder", "yes"))),
      ).pipe(Layer.provide(SvcTransport.layer))
      const provider = settings({
        SVC_URL: double.url,
        SVC_API_KEY: Layers.KEY,
        SVC_API_SECRET: Layers.SECRET,
        SVC_TIMEOUT_MS: "300",
      })
      const started = performance.now()
      const error = yield* Invoke.invoke(Definitions.svc_list, { resource_type: "stack" }).pipe(
        Effect.flip,
        Effect.provide(Bundle.client.pipe(Layer.provide(wrapped))),
        Effect.withConfigProvider(provider),
      )
      const took = performance.now() - started
      expect(error).toMatchObject({ _tag: "ToolCallError", error: { _tag: "SvcTimeoutError", timeoutMs: 300 } })
      expect(took).toBeGreaterThanOrEqual(290)
      expect(took).toBeLessThan(5_000)
      expect(double.requests[0]?.headers["x-embedder"]).toBe("yes")
    }).pipe(Effect.provide(ParamsCheck.layerLazy), Effect.provide(PatternReader.layer)),
  )
})

describe("two servers in one process", () => {
  const binding = { tool: "svc_delete", selector: "tag", args: { id: "prod" }, principal: "server" }
  // One key for both, as replicas sharing SVC_MCP_STATE_KEY have: only their memories of used answers differ.
  const team = Layer.succeed(TeamSettings.TeamSettings, {
    ...TeamSettings.DEFAULT,
    stateKey: Option.some(Redacted.make(new Uint8Array(32).fill(7))),
  })
  const outcome = <A, E extends { readonly _tag: string; readonly reason?: string }>(effect: Effect.Effect<A, E>) =>
    Effect.match(effect, { onFailure: (error) => error.reason ?? error._tag, onSuccess: () => "Honoured" })

  it.scoped("share no memory of used answers, nor the guard's window: each build has its own", () =>
    Effect.gen(function* () {
      // The same layer value, built twice, as two servers an embedding program starts.
      const tools = Bundle.tools.pipe(
        Layer.provide(Guard.layer({ mode: "ask", windowMs: 60_000, hold: [] })),
        Layer.provide(team),
      )
      const one = yield* Layer.build(tools)
      const two = yield* Layer.build(tools)
      const [states1, states2] = [one, two].map((built) => Context.get(built, ConfirmationState.ConfirmationState))
      const state = yield* (states1 as ConfirmationState.ConfirmationStateShape).seal(binding)
      expect(yield* outcome(states1!.verify(state, binding))).toBe("Honoured")
      expect(yield* outcome(states1!.verify(state, binding))).toBe("Reused")
      // The other server never saw it used: without a shared store, single use is per server.
      expect(yield* outcome(states2!.verify(state, binding))).toBe("Honoured")

      const [guard1, guard2] = [one, two].map((built) => Option.getOrThrow(Context.get(built, Guard.Guard)))
      yield* guard1!.store.mark("key:alice", "the commit messages of repo infra", 60_000)
      expect(Option.map(yield* guard1!.store.recent("key:alice"), (window) => window.source)).toEqual(
        Option.some("the commit messages of repo infra"),
      )
      expect(yield* guard2!.store.recent("key:alice")).toEqual(Option.none())
    }).pipe(Effect.withConfigProvider(settings({}))),
  )
})
