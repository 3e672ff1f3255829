/**
 * The SDK server: it publishes the tools and hands each `tools/call` to its
 * Effect (ToolCall.ts), run once per call; transports are attached apart from
 * registration (stdio here, HTTP in Http.ts).
 *
 * One factory builds the SDK server for every protocol revision it serves:
 * 2026-07-28 (no handshake, per-request `_meta`) and the earlier ones
 * (2025-11-25, 2025-06-18, 2025-03-26, after `initialize`).
 */
import type { Server, ServerOptions, Transport } from "@modelcontextprotocol/server"
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberSet from "effect/FiberSet"
import { constVoid } from "effect/Function"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as CallContext from "../../Call/Context.js"
import type { SecretPages } from "../../Confirmation/SecretPages.js"
import type { ConfirmationState } from "../../Confirmation/State.js"
import type * as CallRecord from "../../Operations/CallRecord.js"
import { Services } from "../../Registry/Registry.js"
import type { ServerSettings } from "../../Settings/ToolSettings.js"
import type { PatternReader } from "../../Shared/PatternReader.js"
import * as Runner from "../../Shared/Runner.js"
import { VERSION } from "../../Shared/Version.js"
import type { SvcClient } from "../../SvcClient.js"
import type { Tool } from "../../Tools/Catalog/Tool.js"
import type { Names } from "../../Tools/Names/Names.js"
import type { ParamsCheck } from "../../Tools/Params/ParamsCheck.js"
import { Policy } from "../../Tools/Policy/Policy.js"
import type { Guard } from "../../Untrusted/Guard.js"
import { FleetView } from "../../View/Fleet.js"
import * as McpLogging from "../Calls/ClientLog.js"
import type * as ToolCall from "../Calls/ToolCall.js"
import { StdioTransport } from "../Stdio/StdioTransport.js"
import * as Apps from "./Apps.js"
import * as Listing from "./Listing.js"
import { DefaultJsonSchemaValidator } from "./SdkShims.js"
import { protocolError, ToolServer } from "./ToolServer.js"

export const INSTRUCTIONS =
  "Tools for an infrastructure-management service. Each tool takes a selector (resource_type, operation, inspect_type or list_type) and params, the JSON body of the one endpoint the selector names. A result's structuredContent is the service's JSON answer, wrapped as {result} when it is not an object; svc_list's is its rows and their columns unless fields are given. Failures come back with isError and a structured error (kind, endpoint, status, service error, trace)."

/** How long a client may cache tools/list and server/discover: the list changes only with a restart. */
export const LIST_TTL_MS = 600_000

const withMeta = (meta: Record<string, unknown> | undefined) => (meta === undefined ? {} : { _meta: meta })

export interface McpServer {
  /**
   * A new SDK server with the tools registered: one per stdio connection, one
   * per HTTP request. What does not change between them is prepared once.
   */
  readonly create: (
    request?: CallContext.CallContext,
    wrap?: (transport: Transport) => Transport,
    reach?: Listing.Reach,
  ) => Server
  /** Completes once no tool call is in flight, on any server it created. */
  readonly idle: Effect.Effect<void>
}

/**
 * What serving the tools needs: the service's client, the policy and settings,
 * the credentials the call's record scrubs, and the parts that hold state (the
 * params check, the confirmations' memory, the guard's window), which the
 * tools' bundle provides, and the names of ids, which the client's bundle provides. The optional parts without state (audit, telemetry,
 * the services SVC_SERVICES names) are off unless provided.
 */
export type Requirements =
  | SvcClient
  | Policy
  | ServerSettings
  | CallRecord.Requirements
  | ParamsCheck
  | ConfirmationState
  | Guard
  | Names
  | SecretPages
  | PatternReader

/** Runs one call's Effect as a fiber of the server's set of calls. */
type RunCall = (
  program: Effect.Effect<ToolCall.Answer, ToolCall.ProtocolFailure, ToolCall.Requirements>,
) => Fiber.RuntimeFiber<ToolCall.Answer, ToolCall.ProtocolFailure>

/** The one boundary between a call's Effect and the SDK; the client's cancellation interrupts the call. */
const boundary =
  (runFork: RunCall) =>
  (
    program: Effect.Effect<ToolCall.Answer, ToolCall.ProtocolFailure, ToolCall.Requirements>,
    signal: AbortSignal,
  ): Promise<ToolCall.Answer> =>
    new Promise<ToolCall.Answer>((resolve, reject) => {
      const fiber = runFork(program)
      const cancel = () => fiber.unsafeInterruptAsFork(FiberId.none)
      signal.addEventListener("abort", cancel, { once: true })
      if (signal.aborted) cancel()
      fiber.addObserver((exit) => {
        signal.removeEventListener("abort", cancel)
        if (Exit.isSuccess(exit)) return resolve(exit.value)
        const failed = Cause.failureOption(exit.cause)
        if (Option.isSome(failed)) return reject(protocolError(failed.value.code, failed.value.message))
        reject(
          Cause.isInterruptedOnly(exit.cause)
            ? protocolError(-32001, "The call was cancelled")
            : Cause.squash(exit.cause),
        )
      })
    })

/** The answer to `tools/list`, built once in the tools' fixed order: the list is the same for every request. */
const listing = (tools: ReadonlyArray<Tool>, apps: Option.Option<Apps.Apps>) => ({
  tools: tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as unknown as { type: "object"; [key: string]: unknown },
    ...(tool.outputSchema === undefined
      ? {}
      : { outputSchema: tool.outputSchema as unknown as { type: "object"; [key: string]: unknown } }),
    annotations: tool.hints,
    ...Option.match(apps, { onNone: () => ({}), onSome: (a) => withMeta(a.toolMeta(tool.name)) }),
  })),
})

/**
 * What every server created announces: its capabilities, instructions and how long its lists may be
 * cached: by anyone, or, where the list is a signed-in person's own, by that person alone.
 */
const optionsOf = (apps: Option.Option<Apps.Apps>, cacheScope: "public" | "private" = "public"): ServerOptions => ({
  // The answers to this server's one question are checked by its own validator (SdkShims.ts).
  jsonSchemaValidator: new DefaultJsonSchemaValidator(),
  capabilities: { tools: {}, logging: {}, ...(Option.isSome(apps) ? { resources: {} } : {}) },
  instructions: INSTRUCTIONS,
  cacheHints: {
    "tools/list": { ttlMs: LIST_TTL_MS, cacheScope },
    "server/discover": { ttlMs: LIST_TTL_MS, cacheScope },
  },
})

/**
 * The handler of every call to the one service, made when first needed: answering `tools/list` needs
 * none of the call path (the tools' programs, rendering, the confirmation), so a start does not load
 * its modules. Calls that come before it is made wait for it.
 */
const onFirstUse = Effect.gen(function* () {
  const context = yield* Effect.context<Requirements>()
  const made = yield* Effect.cached(
    Effect.flatMap(
      Effect.promise(() => import("../Calls/ToolCall.js")),
      (m) => Effect.provide(m.make, context),
    ),
  )
  let ready: ToolCall.Handler | undefined
  const handle: ToolCall.Handler = (incoming) =>
    ready !== undefined
      ? ready(incoming)
      : Effect.flatMap(made, (handler) => {
          ready = handler
          return handler(incoming)
        })
  // Called as the first `tools/list` is answered, whose answer is written in this turn: made in the next,
  // ahead of the first call, which a client sends once it has read the tools.
  const runner = yield* Runner.current
  let warming = false
  const warmSoon = () => {
    if (warming) return
    warming = true
    setImmediate(() => runner.fork(made))
  }
  return { handle, warmSoon }
})

/**
 * Who handles the calls, and the tools published: among several services (SVC_SERVICES), the router,
 * which has made each one's handler, so nothing is left to warm; else the one service's, made on first use.
 */
const handling = Effect.gen(function* () {
  const policy = yield* Policy
  const services = yield* Services
  if (services.length === 0) return { ...(yield* onFirstUse), tools: policy.tools }
  const routed = yield* Effect.flatMap(
    Effect.promise(() => import("../Calls/Router.js")),
    (m) => m.make,
  )
  return { handle: routed.handle, warmSoon: constVoid, tools: routed.tools }
})

/**
 * Prepares the tools for serving. Each call runs as one fiber of a set that
 * lives as long as the scope: `idle` waits for the set to empty, and closing
 * the scope interrupts what is left.
 */

/** For a person of a reach: why the service would refuse them a call of these tools, when it would (Listing.ts). */
const beyondIn = (tools: ReadonlyArray<Tool>) => {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  return (reach: Listing.Reach) => (name: string, selector: string) => {
    const tool = byName.get(name)
    return tool === undefined ? undefined : Listing.beyondOf(tool, selector, reach)
  }
}

export const make: Effect.Effect<McpServer, never, Requirements | Scope.Scope> = Effect.gen(function* () {
  const { handle, warmSoon, tools } = yield* handling
  const services = yield* Services
  // The fleet view (an MCP App), when its layer is provided: a resource, and a link to it from svc_summary.
  const view = yield* FleetView
  const apps = Option.map(view, (v) =>
    Apps.make(
      v,
      services.map((s) => s.name),
    ),
  )
  const calls = yield* FiberSet.make<ToolCall.Answer, ToolCall.ProtocolFailure>()
  // The client-log forwarder is installed once here; each call only says which client it serves.
  const runFork = yield* Effect.locallyWith(
    FiberSet.runtime(calls)<ToolCall.Requirements>(),
    FiberRef.currentLoggers,
    HashSet.add(McpLogging.forwarder),
  )
  const serve = boundary(runFork)
  const listed = listing(tools, apps)
  const listedFor = Listing.memo((reach) => listing(Listing.narrowed(tools, reach), apps))
  const beyondFor = beyondIn(tools)
  const run = (yield* Runner.current).promise
  const options = optionsOf(apps)
  const personal = optionsOf(apps, "private")
  const create = (
    requestContext: CallContext.CallContext = CallContext.empty,
    wrap?: (transport: Transport) => Transport,
    reach?: Listing.Reach,
  ) => {
    const server = new ToolServer({ name: "svc-mcp", version: VERSION }, reach === undefined ? options : personal, wrap)
    const sessionLevel = McpLogging.attach(server)
    const answer = reach === undefined ? listed : listedFor(reach)
    server.setRequestHandler("tools/list", () => {
      warmSoon()
      return answer
    })
    if (Option.isSome(apps)) apps.value.attach(server, run)
    server.setRequestHandler("tools/call", (request, ctx) =>
      serve(
        handle({
          name: request.params.name,
          args: request.params.arguments,
          meta: request.params._meta,
          ctx,
          server,
          sessionLevel,
          request: requestContext,
          ...(reach === undefined ? {} : { beyond: beyondFor(reach) }),
        }),
        ctx.mcpReq.signal,
      ),
    )
    return server
  }
  return { create, idle: FiberSet.awaitEmpty(calls) }
})

/**
 * Serves the tools over this process's stdin and stdout until stdin ends.
 * Calls already read when it ends are answered before the server closes.
 */
export const serveStdio: Effect.Effect<void, never, Requirements> = Effect.scoped(
  Effect.gen(function* () {
    const { create, idle } = yield* make
    const runner = yield* Runner.current
    const warn = (message: string) => runner.fork(Effect.logWarning(`protocol: ${message}`))
    // The SDK starts a request's handler, and sends its answer, in microtasks:
    // by the next turn of the event loop each has happened.
    const nextTurn = Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
    const transport = new StdioTransport({
      stdin: process.stdin,
      stdout: process.stdout,
      drained: () => runner.promise(Effect.all([nextTurn, idle, nextTurn], { discard: true })),
      warn,
    })
    const handle = sdkServeStdio(() => create(), {
      transport,
      // A message the server refuses is reported and skipped; serving goes on.
      onerror: (error) => warn(error.message.split("\n", 1)[0] ?? ""),
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => handle.close()))
    yield* Effect.promise(transport.whenClosed)
  }),
)

/**
 * The tools served over this process's stdio for the life of the layer, for a
 * program that composes it with layers of its own (as `@effect/ai`'s
 * McpServer.layerStdio). Serving stops when stdin ends or the layer's scope closes.
 */
export const layerStdio: Layer.Layer<never, never, Requirements> = Layer.scopedDiscard(Effect.forkScoped(serveStdio))
