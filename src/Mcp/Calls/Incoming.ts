/**
 * One `tools/call` as it came to the adapter, and the call's context made from
 * it once: what its request brought, and the client's log level, trace and
 * progress token from the call itself.
 */
import type { LoggingLevel, Server, ServerContext } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as CallContext from "../../Call/Context.js"
import * as TraceContext from "../../Operations/TraceContext.js"
import type { ProgressShape } from "../../Tools/Catalog/Progress.js"
import * as McpLogging from "./ClientLog.js"

/** JSON-RPC "invalid params": a call that names no tool, or is not a call at all. */
export const INVALID_PARAMS = -32602

/** One `tools/call` as it came, with what the SDK knows of its connection. */
export interface Incoming {
  readonly name: string
  readonly args: unknown
  readonly meta: { readonly progressToken?: string | number | undefined; readonly [key: string]: unknown } | undefined
  readonly ctx: ServerContext
  /** The SDK server the call came to: its protocol revision and the client's capabilities. */
  readonly server: Server
  /** The connection's `logging/setLevel` (the earlier revisions). */
  readonly sessionLevel: () => LoggingLevel
  /**
   * What the call's request brought (its caller, its trace; `CallContext.empty`
   * over stdio), and among several services the service it is for.
   */
  readonly request: CallContext.CallContext
  /**
   * Why the service would refuse this person the call (their level, or a creation reserved to
   * admins, Server/Listing.ts), when it would: refused before anything is asked or sent.
   */
  readonly beyond?: (tool: string, selector: string) => string | undefined
}

const isModern = (version: string | undefined) => version !== undefined && version >= "2026-07-28"

/** Progress as `notifications/progress` to the client that asked with this token. */
const progressTo = (ctx: ServerContext, progressToken: string | number): ProgressShape => ({
  report: (progress, message) =>
    Effect.promise(() =>
      ctx.mcpReq
        .notify({ method: "notifications/progress", params: { progressToken, progress, message } })
        .catch(() => undefined),
    ),
})

/**
 * The call's context, set once here: what its request brought, and the
 * client's own log level, trace and progress token from the call itself.
 */
const contextOf = ({ ctx, server, sessionLevel, meta, request }: Incoming): CallContext.CallContext => {
  const level = isModern(server.getNegotiatedProtocolVersion()) ? McpLogging.requested(ctx) : sessionLevel()
  const progressToken = meta?.progressToken
  return {
    ...request,
    trace: TraceContext.fromMeta(meta) ?? {},
    log: level === undefined ? Option.none() : Option.some(McpLogging.forCall(level, ctx)),
    progress: progressToken === undefined ? Option.none() : Option.some(progressTo(ctx, progressToken)),
    // A read, or a change outside the guard's window; ToolCall.ts sets it for a change within one.
    guarded: Option.none(),
    asked: Option.none(),
  }
}

/**
 * The call as the client's own: run in its context, at debug level when its client asked for debug.
 * Both are set for the rest of the fiber, which is the call's own (Server.ts runs each call as a
 * fiber of its own, and `self` is all it runs): there is nothing to restore them for.
 */
export const withinCallContext =
  (incoming: Incoming) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const context = contextOf(incoming)
    const debug = Option.isSome(context.log) && context.log.value.wantsDebug
    const run = debug ? Effect.zipRight(FiberRef.set(FiberRef.currentMinimumLogLevel, LogLevel.Debug), self) : self
    return Effect.zipRight(CallContext.set(context), run)
  }
