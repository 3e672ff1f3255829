/**
 * The SDK server as this adapter creates it: a `tools/call` that is malformed is answered here,
 * with the JSON-RPC error a caller can act on, before the SDK's own validation words it.
 */
import {
  type JSONRPCRequest,
  type Result,
  Server,
  type ServerContext,
  type ServerOptions,
  type Transport,
} from "@modelcontextprotocol/server"
import { describe, isObject } from "../../Shared/JsonShape.js"
import { INVALID_PARAMS } from "../Calls/Incoming.js"

/**
 * An error the SDK answers as a JSON-RPC error with this code and this message
 * as it is (its ProtocolError would be prefixed where a client prints it).
 */
export const protocolError = (code: number, message: string) => Object.assign(new Error(message), { code })

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
 *
 * SDK 2.4 has no public hook for this: `setRequestHandler`'s schema form
 * (`{ params }`) is for custom methods; given `tools/call` it takes the method
 * off the era's own wire validation and words the refusal as "Invalid params
 * for tools/call: ...". The protected `_wrapHandler`, which the SDK documents
 * as the hook for subclasses (its own `Server` validates `tools/call` results
 * there), is overridden here and nowhere else.
 */
export class ToolServer extends Server {
  constructor(
    info: { readonly name: string; readonly version: string },
    options: ServerOptions,
    private readonly wrap: ((transport: Transport) => Transport) | undefined,
  ) {
    super(info, options)
  }

  /** Over HTTP, a 2025-era POST's transport is wrapped (Asking.ts), so that its client can be asked. */
  override connect(transport: Transport): Promise<void> {
    return super.connect(this.wrap === undefined ? transport : this.wrap(transport))
  }

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
