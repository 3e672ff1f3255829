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
  McpError,
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { SvcClient } from "./SvcClient.js"
import * as Definitions from "./Tools/Definitions.js"
import { invoke } from "./Tools/Invoke.js"
import { failure, type Rendered, success } from "./Tools/Render.js"
import type { Tool } from "./Tools/Tool.js"
import { VERSION } from "./Version.js"

export const INSTRUCTIONS =
  "Tools for an infrastructure-management service. Each tool takes a selector (resource_type, operation, inspect_type or list_type) and params, the JSON body of the one endpoint the selector names. Failures come back with isError and a structured error (kind, endpoint, status, service error, trace)."

const toResult = (rendered: Rendered): CallToolResult => ({
  content: [{ type: "text", text: rendered.text }],
  ...(rendered.isError ? { isError: true } : {}),
  ...(rendered.structured === undefined ? {} : { structuredContent: rendered.structured }),
})

/** Builds an SDK server whose tool calls run on the given runtime. */
export const make = (tools: ReadonlyArray<Tool> = Definitions.all): Effect.Effect<Server, never, SvcClient> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<SvcClient>()
    const run = Runtime.runPromiseExit(runtime)
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    // Published as built once: the list is the same for every request.
    const listed = {
      tools: tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
      })),
    }
    const server = new Server(
      { name: "svc-mcp", version: VERSION },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    )
    server.setRequestHandler(ListToolsRequestSchema, () => listed)
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = byName.get(request.params.name)
      if (tool === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool ${JSON.stringify(request.params.name)}; the tools are: ${[...byName.keys()].join(", ")}`,
        )
      }
      const program = invoke(tool, request.params.arguments).pipe(
        Effect.match({ onSuccess: success, onFailure: failure }),
      )
      // The client's cancellation interrupts the program, which aborts the HTTP request.
      const exit = await run(program, { signal: extra.signal })
      if (Exit.isSuccess(exit)) return toResult(exit.value)
      if (Cause.isInterruptedOnly(exit.cause)) throw new McpError(ErrorCode.RequestTimeout, "The call was cancelled")
      await Runtime.runPromise(runtime)(Effect.logError(`${tool.name} failed unexpectedly`, exit.cause))
      return toResult({ isError: true, text: `${tool.name}: an unexpected error occurred in the server; see its log` })
    })
    return server
  })

/**
 * Serves `server` on `transport` until the transport closes, or the scope ends.
 * `closed` lets a transport that cannot tell its own end (stdio) signal it.
 */
export const serve = (server: Server, transport: Transport): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const closed = yield* Deferred.make<void>()
    server.onclose = () => Deferred.unsafeDone(closed, Exit.void)
    // A garbage line or a malformed message is reported and skipped; serving goes on.
    server.onerror = (error) => Runtime.runFork(runtime)(Effect.logWarning(`protocol: ${error.message}`))
    yield* Effect.acquireRelease(
      Effect.promise(() => server.connect(transport)),
      () => Effect.promise(() => server.close()),
    )
    yield* Deferred.await(closed)
  })

/** Serves the tools over this process's stdin and stdout until stdin ends. */
export const serveStdio: Effect.Effect<void, never, SvcClient> = Effect.scoped(
  Effect.gen(function* () {
    const server = yield* make()
    const transport = new StdioServerTransport()
    const stdinEnded = () => void transport.close()
    process.stdin.once("end", stdinEnded)
    yield* Effect.addFinalizer(() => Effect.sync(() => process.stdin.off("end", stdinEnded)))
    yield* serve(server, transport)
  }),
)
