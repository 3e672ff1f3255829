/**
 * The MCP adapter: the one module that knows the protocol SDK. It publishes the
 * tools, turns each `tools/call` into the tool's Effect program, and renders
 * the outcome; transports are attached apart from registration.
 *
 * One factory builds the SDK server for every protocol revision it serves:
 * 2026-07-28 (no handshake, per-request `_meta`) and the earlier ones
 * (2025-11-25, 2025-06-18, 2025-03-26, after `initialize`).
 */
import {
  type CallToolResult,
  type JSONRPCRequest,
  type Result,
  Server,
  type ServerContext,
  type ServerOptions,
} from "@modelcontextprotocol/server"
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as LogLevel from "effect/LogLevel"
import * as Runtime from "effect/Runtime"
import * as Observe from "../Operations/Observe.js"
import * as RequestContext from "../Operations/RequestContext.js"
import * as TraceContext from "../Operations/TraceContext.js"
import { describe, isObject } from "../Shared/JsonShape.js"
import { VERSION } from "../Shared/Version.js"
import type { SvcClient } from "../SvcClient.js"
import { invoke, resolve } from "../Tools/Invoke.js"
import { Policy } from "../Tools/Policy.js"
import { failure, type Rendered, success } from "../Tools/Render.js"
import { ServerSettings } from "../Tools/Settings.js"
import { ToolDeniedError, ToolNotConfirmedError } from "../Tools/ToolError.js"
import { Progress } from "../Tools/Wait.js"
import * as Confirm from "./Confirm.js"
import * as McpLogging from "./Logging.js"
import { StdioTransport } from "./StdioTransport.js"

export const INSTRUCTIONS =
  "Tools for an infrastructure-management service. Each tool takes a selector (resource_type, operation, inspect_type or list_type) and params, the JSON body of the one endpoint the selector names. A result's structuredContent is the service's JSON answer, wrapped as {result} when it is not an object. Failures come back with isError and a structured error (kind, endpoint, status, service error, trace)."

/** JSON-RPC "invalid params". */
const INVALID_PARAMS = -32602

/**
 * An error the SDK answers as a JSON-RPC error with this code and this message
 * as it is (its ProtocolError would be prefixed where a client prints it).
 */
const protocolError = (code: number, message: string) => Object.assign(new Error(message), { code })

/** How long a client may cache tools/list and server/discover: the list changes only with a restart. */
export const LIST_TTL_MS = 600_000

const toResult = (rendered: Rendered): CallToolResult => {
  const structured = rendered.structured ?? rendered.structuredData
  return {
    content: [{ type: "text", text: rendered.text }],
    ...(rendered.isError ? { isError: true } : {}),
    ...(structured === undefined ? {} : { structuredContent: structured as Record<string, unknown> }),
  }
}

/** Why a `tools/call` is not one at all, in words a caller can act on. */
const callProblem = (params: unknown): string | undefined => {
  if (!isObject(params)) return "params must be an object with name and arguments"
  if (typeof params.name !== "string") return "params.name must be the tool's name, a string"
  const args = params.arguments
  if (args === undefined || isObject(args)) return undefined
  const what = describe(args)
  return `arguments must be an object, e.g. {"resource_type": "stack"}, not ${what}`
}

/**
 * The SDK server, answering itself a `tools/call` that is malformed: the SDK
 * would answer with a dump of its own validation, where a caller needs
 * "invalid params" and why.
 */
class ToolServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler)
    if (method !== "tools/call") return wrapped
    return (request, ctx) => {
      const problem = callProblem(request.params)
      return problem === undefined
        ? wrapped(request, ctx)
        : Promise.reject(protocolError(INVALID_PARAMS, `Invalid params: ${problem}`))
    }
  }
}

const isModern = (version: string | undefined) => version !== undefined && version >= "2026-07-28"

export interface McpServer {
  /**
   * A new SDK server with the tools registered: one per stdio connection, one
   * per HTTP request. What does not change between them is prepared once.
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
  // Published as built once, in the tools' fixed order: the list is the same for every request.
  const listed = {
    tools: policy.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as unknown as { type: "object"; [key: string]: unknown },
      annotations: tool.hints,
    })),
  }
  const options: ServerOptions = {
    capabilities: { tools: {}, logging: {} },
    instructions: INSTRUCTIONS,
    cacheHints: {
      "tools/list": { ttlMs: LIST_TTL_MS, cacheScope: "public" },
      "server/discover": { ttlMs: LIST_TTL_MS, cacheScope: "public" },
    },
  }
  const create = (around: RequestContext.Around = RequestContext.none) => {
    const server = new ToolServer({ name: "svc-mcp", version: VERSION }, options)
    const sessionLevel = McpLogging.attach(server)
    server.setRequestHandler("tools/list", () => listed)
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const { name, arguments: args } = request.params
      const authorized = policy.authorize(name, args)
      // Refusals are recorded (audit, telemetry) in the request's context, like calls.
      const refuse = (denied: ToolDeniedError, outcome?: "declined") =>
        Runtime.runPromise(runtime)(around(observe.refused(denied, args, outcome)))
      if (Either.isLeft(authorized)) {
        const refusal = authorized.left
        if (refusal._tag === "UnknownToolError") throw protocolError(INVALID_PARAMS, refusal.message)
        return toResult(await refuse(refusal))
      }
      const tool = authorized.right
      const modern = isModern(server.getNegotiatedProtocolVersion())
      const level = modern ? McpLogging.requested(ctx) : sessionLevel()
      const toClient = level === undefined ? undefined : McpLogging.forCall(level, ctx)
      const progressToken = request.params._meta?.progressToken
      const trace = TraceContext.fromMeta(request.params._meta)
      // Decoded here only when some call needs confirming; invoke decodes again, as it does for every call.
      const resolved = settings.confirm.length === 0 ? undefined : resolve(tool, args)
      const pattern =
        resolved !== undefined && Either.isRight(resolved)
          ? policy.confirmation(tool, resolved.right.selector)
          : undefined

      const serve = <A>(program: Effect.Effect<A, never, Requirements>) => {
        const located = program.pipe(
          Effect.locally(McpLogging.CurrentClientLog, toClient),
          toClient?.wantsDebug === true
            ? Effect.locally(FiberRef.currentMinimumLogLevel, LogLevel.Debug)
            : (self) => self,
          trace === undefined ? (self) => self : Effect.provideService(TraceContext.TraceContext, trace),
          around,
        )
        inFlight++
        // The client's cancellation interrupts the program, which aborts the HTTP request.
        return run(located, { signal: ctx.mcpReq.signal }).finally(settled)
      }

      if (pattern !== undefined && resolved !== undefined && Either.isRight(resolved)) {
        const invocation = resolved.right
        const answer = Confirm.answerOf(ctx)
        if (answer === "decline" || answer === "cancel") {
          const reason = `the user ${answer === "decline" ? "declined" : "cancelled"} the confirmation (SVC_CONFIRM)`
          await refuse(new ToolDeniedError({ tool: tool.name, selector: invocation.selector, reason }), "declined")
          return toResult(failure(new ToolNotConfirmedError({ ...invocation, answer })))
        }
        if (answer === "unasked") {
          if (!Confirm.canAsk(ctx, server.getClientCapabilities())) {
            const reason = `SVC_CONFIRM (${pattern.text}) requires the user's confirmation, and this client can answer neither input_required nor elicitation requests`
            return toResult(
              await refuse(new ToolDeniedError({ tool: tool.name, selector: invocation.selector, reason })),
            )
          }
          const asked = await serve(Confirm.message({ invocation, pattern, revealSecrets: settings.revealSecrets }))
          if (Exit.isFailure(asked)) throw protocolError(-32603, "The confirmation could not be prepared")
          return Confirm.ask(asked.value)
        }
      }

      const exit = await serve(
        invoke(tool, args, settings.waitTimeoutMs).pipe(
          observe.call(tool, args),
          Effect.match({
            onSuccess: (outcome) => success(tool, outcome, settings),
            onFailure: (error) => (error._tag === "AuditError" ? Observe.unrecorded(error) : failure(error)),
          }),
          Effect.map(toResult),
          progressToken === undefined
            ? (self) => self
            : Effect.provideService(Progress, {
                report: (progress, message) =>
                  Effect.promise(() =>
                    ctx.mcpReq
                      .notify({ method: "notifications/progress", params: { progressToken, progress, message } })
                      .catch(() => undefined),
                  ),
              }),
        ),
      )
      if (Exit.isSuccess(exit)) return exit.value
      if (Cause.isInterruptedOnly(exit.cause)) throw protocolError(-32001, "The call was cancelled")
      await Runtime.runPromise(runtime)(Effect.logError(`${name} failed unexpectedly`, exit.cause))
      return toResult({ isError: true, text: `${name}: an unexpected error occurred in the server; see its log` })
    })
    return server
  }
  return { create, idle }
})

/**
 * Serves the tools over this process's stdin and stdout until stdin ends.
 * Calls already read when it ends are answered before the server closes.
 */
export const serveStdio: Effect.Effect<void, never, Requirements> = Effect.scoped(
  Effect.gen(function* () {
    const { create, idle } = yield* make
    const runtime = yield* Effect.runtime<never>()
    const warn = (message: string) => Runtime.runFork(runtime)(Effect.logWarning(`protocol: ${message}`))
    // The SDK starts a request's handler, and sends its answer, in microtasks:
    // by the next turn of the event loop each has happened.
    const nextTurn = Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
    const transport = new StdioTransport({
      stdin: process.stdin,
      stdout: process.stdout,
      drained: () => Runtime.runPromise(runtime)(Effect.all([nextTurn, idle, nextTurn], { discard: true })),
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
