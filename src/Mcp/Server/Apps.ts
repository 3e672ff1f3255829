/**
 * The fleet view as MCP Apps serves it: the resource `ui://svc-mcp/fleet`
 * (resources/list, resources/read), and the link from a tool to it
 * (`_meta.ui.resourceUri` in tools/list).
 *
 * The Apps SDK's server helpers (`registerAppResource`, `registerAppTool`)
 * register on the SDK's `McpServer`; our tools are on the low-level `Server`
 * (Server.ts says why). So the helpers register into a recorder here, which
 * keeps what they would have registered (the resource's MIME type, the tool's
 * `_meta` in both the current and the older key), and the handlers below serve it.
 */
import { registerAppResource, registerAppTool } from "@modelcontextprotocol/ext-apps/server"
import type { ListResourcesResult, McpServer, ReadResourceResult, Server } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import type { FleetViewShape } from "../../View/Fleet.js"
import { protocolError } from "./ToolServer.js"

/** What the page declares it needs of the host: no network at all (every origin list empty). */
export const UI_META: {
  ui: { csp: { connectDomains: Array<string>; resourceDomains: Array<string> }; prefersBorder: boolean }
} = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: false } }

interface Recorded {
  readonly resource: { name: string; uri: string; config: Record<string, unknown> }
  readonly toolMeta: Record<string, unknown>
}

/** Runs the helpers against a recorder and keeps what they registered. */
const record = (view: FleetViewShape): Recorded => {
  let resource: Recorded["resource"] | undefined
  let toolMeta: Record<string, unknown> | undefined
  const recorder = {
    registerResource: (name: string, uri: string, config: Record<string, unknown>) => {
      resource = { name, uri, config }
    },
    registerTool: (_name: string, config: { _meta?: Record<string, unknown> }) => {
      toolMeta = config._meta
    },
  } as unknown as Pick<McpServer, "registerResource" | "registerTool">
  registerAppResource(
    recorder,
    view.name,
    view.uri,
    { title: view.title, description: view.description, _meta: UI_META },
    () => ({ contents: [] }),
  )
  registerAppTool(recorder, "linked", { _meta: { ui: { resourceUri: view.uri } } }, () => ({ content: [] }))
  if (resource === undefined || toolMeta === undefined) throw new Error("the Apps SDK's helpers registered nothing")
  return { resource, toolMeta }
}

export interface Apps {
  /** The `_meta` a tool of the list carries, if it links to the view. */
  readonly toolMeta: (tool: string) => Record<string, unknown> | undefined
  /** Registers resources/list, resources/read and resources/templates/list on a server. */
  readonly attach: (server: Server, run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>) => void
}

// The MCP specification's code for a resource that does not exist.
const RESOURCE_NOT_FOUND = -32002

export const make = (view: FleetViewShape, services: ReadonlyArray<string>): Apps => {
  const { resource, toolMeta } = record(view)
  const linked = new Set(view.linkedTools)
  const mimeType = String(resource.config.mimeType)
  const listed: ListResourcesResult = {
    resources: [
      {
        uri: resource.uri,
        name: resource.name,
        title: view.title,
        description: view.description,
        mimeType,
        _meta: UI_META,
      },
    ],
  }
  const read = (uri: string): Effect.Effect<ReadResourceResult, Error> =>
    uri !== resource.uri
      ? Effect.fail(protocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri} (this server has ${resource.uri})`))
      : view.page(services).pipe(
          Effect.map((text) => ({ contents: [{ uri, mimeType, text, _meta: UI_META }] })),
          Effect.mapError((error) => protocolError(-32603, error.message)),
        )
  return {
    toolMeta: (tool) => (linked.has(tool) ? toolMeta : undefined),
    attach: (server, run) => {
      server.setRequestHandler("resources/list", () => listed)
      server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }))
      server.setRequestHandler("resources/read", (request) => run(read(request.params.uri)))
    },
  }
}
