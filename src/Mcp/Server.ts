/**
 * The MCP adapter: the one module that knows the protocol SDK. It publishes the
 * tools, turns each `tools/call` into the tool's Effect program, and renders
 * the outcome; transports are attached apart from registration.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as LogLevel from "effect/LogLevel"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { ServerSettings } from "../Config.js"
import * as Observe from "../Observe.js"
import * as RequestContext from "../RequestContext.js"
import type { SvcClient } from "../SvcClient.js"
import { invoke } from "../Tools/Invoke.js"
import { Policy, ToolDeniedError } from "../Tools/Policy.js"
import { failure, type Rendered, success } from "../Tools/Render.js"
import { Progress } from "../Tools/Wait.js"
import { VERSION } from "../Version.js"
import * as McpLogging from "./Logging.js"

export const INSTRUCTIONS =
  "Tools for an infrastructure-management service. Each tool takes a selector (resource_type, operation, inspect_type or list_type) and params, the JSON body of the one endpoint the selector names. Failures come back with isError and a structured error (kind, endpoint, status, service error, trace)."

const toResult = (rendered: Rendered): CallToolResult => ({
  content: [{ type: "text", text: rendered.text }],
  ...(rendered.isError ? { isError: true } : {}),
  ...(rendered.structured === undefined ? {} : { structuredContent: rendered.structured }),
})

/**
 * An error the SDK answers as a JSON-RPC error with this code. (Its McpError
 * would put "MCP error N:" in the message, which the client's McpError repeats.)
 */
const protocolError = (code: ErrorCode, message: string) => Object.assign(new Error(message), { code })

export interface McpServer {
  /**
   * A new SDK server with the tools registered: one for stdio, one per request
   * over stateless HTTP. What does not change between them is prepared once.
   */
  readonly create: (around?: RequestContext.Around) => Server
  /** Completes once no tool call is in flight, on any server it created. */
  readonly idle: Effect.Effect<void>
}

export type Requirements = SvcClient | Policy | ServerSettings

/** Prepares the tools for serving, with calls run on the current runtime. */
export const make: Effect.Effect<McpServer, never, Requirements> = Effect.gen(function* () {
  // The client-log forwarder is installed once here; each call only says which client it serves.
  const runtime = yield* Effect.locallyWith(
    Effect.runtime<Requirements>(),
    FiberRef.currentLoggers,
    HashSet.add(McpLogging.forwarder),
  )
  const policy = yield* Policy
  const settings = yield* ServerSettings
  const observe = yield* Observe.make
  let inFlight = 0
  let waiters: Array<() => void> = []
  const settled = () => {
    if (--inFlight > 0) return
    for (const wake of waiters) wake()
    waiters = []
  }
  const idle = Effect.async<void>((resume) => {
    if (inFlight === 0) return resume(Effect.void)
    waiters.push(() => resume(Effect.void))
  })
  const run = Runtime.runPromiseExit(runtime)
  // Published as built once: the list is the same for every request.
  const listed = {
    tools: policy.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.hints,
    })),
  }
  const create = (around: RequestContext.Around = RequestContext.none) => {
    const server = new Server(
      { name: "svc-mcp", version: VERSION },
      { capabilities: { tools: {}, logging: {} }, instructions: INSTRUCTIONS },
    )
    const toClient = McpLogging.attach(server)
    server.setRequestHandler(ListToolsRequestSchema, () => listed)
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args } = request.params
      const tool = policy.authorize(name, args)
      if (tool === undefined) {
        throw protocolError(
          ErrorCode.InvalidParams,
          `Unknown tool ${JSON.stringify(name)}; the tools are: ${policy.tools.map((t) => t.name).join(", ")}`,
        )
      }
      if (tool instanceof ToolDeniedError)
        return toResult(await Runtime.runPromise(runtime)(around(observe.refused(tool, args))))
      const progressToken = request.params._meta?.progressToken
      const program = invoke(tool, args).pipe(
        observe.call(tool, args, request.params._meta),
        Effect.match({
          onSuccess: (outcome) => success(tool, outcome, settings),
          onFailure: (error) => (error._tag === "AuditError" ? Observe.unrecorded(error) : failure(error)),
        }),
        Effect.locally(McpLogging.CurrentClientLog, toClient),
        toClient.wantsDebug() ? Effect.locally(FiberRef.currentMinimumLogLevel, LogLevel.Debug) : (self) => self,
        progressToken === undefined
          ? (self) => self
          : Effect.provideService(Progress, {
              report: (progress, message) =>
                Effect.promise(() =>
                  extra.sendNotification({
                    method: "notifications/progress",
                    params: { progressToken, progress, message },
                  }),
                ),
            }),
        around,
      )
      // The client's cancellation interrupts the program, which aborts the HTTP request.
      inFlight++
      const exit = await run(program, { signal: extra.signal }).finally(settled)
      if (Exit.isSuccess(exit)) return toResult(exit.value)
      if (Cause.isInterruptedOnly(exit.cause)) throw protocolError(ErrorCode.RequestTimeout, "The call was cancelled")
      await Runtime.runPromise(runtime)(Effect.logError(`${name} failed unexpectedly`, exit.cause))
      return toResult({ isError: true, text: `${name}: an unexpected error occurred in the server; see its log` })
    })
    return server
  }
  return { create, idle }
})

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Connects `server` to `transport`, answering itself a `tools/call` whose
 * `arguments` is not an object: the SDK would answer it with an internal error
 * and a dump of its validation, where a caller needs "invalid params" and why.
 */
export const connect = async (server: Server, transport: Transport): Promise<void> => {
  await server.connect(transport)
  const forward = transport.onmessage
  transport.onmessage = (message, extra) => {
    const { id, method, params } = message as { id?: string | number; method?: unknown; params?: unknown }
    if (method === "tools/call" && id !== undefined) {
      const args = isObject(params) ? params.arguments : undefined
      const problem = !isObject(params)
        ? "params must be an object with name and arguments"
        : typeof params.name !== "string"
          ? "params.name must be the tool's name, a string"
          : args !== undefined && !isObject(args)
            ? `arguments must be an object, e.g. {"resource_type": "stack"}, not ${Array.isArray(args) ? "an array" : args === null ? "null" : `a ${typeof args}`}`
            : undefined
      if (problem !== undefined) {
        void transport
          .send({ jsonrpc: "2.0", id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` } })
          .catch(() => undefined)
        return
      }
    }
    forward?.(message, extra)
  }
}

/** Serves `server` on `transport` until the transport closes, or the scope ends. */
export const serve = (server: Server, transport: Transport): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const closed = yield* Deferred.make<void>()
    server.onclose = () => Deferred.unsafeDone(closed, Exit.void)
    // A garbage line or a malformed message is reported and skipped; serving goes on.
    server.onerror = (error) => Runtime.runFork(runtime)(Effect.logWarning(`protocol: ${error.message}`))
    yield* Effect.acquireRelease(
      Effect.promise(() => connect(server, transport)),
      () => Effect.promise(() => server.close()),
    )
    yield* Deferred.await(closed)
  })

/**
 * Serves the tools over this process's stdin and stdout until stdin ends.
 * Calls already read when it ends are answered before the server closes.
 */
export const serveStdio: Effect.Effect<void, never, Requirements> = Effect.scoped(
  Effect.gen(function* () {
    const { create, idle } = yield* make
    const server = create()
    const transport = new StdioServerTransport()
    const runtime = yield* Effect.runtime<never>()
    // The SDK starts a request's handler, and sends its answer, in microtasks:
    // by the next turn of the event loop each has happened.
    const nextTurn = Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
    const stdinEnded = () =>
      Runtime.runFork(runtime)(
        Effect.all([nextTurn, idle, nextTurn]).pipe(Effect.zipRight(Effect.promise(() => transport.close()))),
      )
    process.stdin.once("end", stdinEnded)
    yield* Effect.addFinalizer(() => Effect.sync(() => process.stdin.off("end", stdinEnded)))
    yield* serve(server, transport)
  }),
)
