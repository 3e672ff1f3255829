/**
 * The bundles an embedding program composes, each on top of the one before:
 * - `client`: the service's client, needing only an HttpClient;
 * - `tools`: the tools' settings, policy and params check, on top of the client;
 * - `stdio` or `http(settings)`: the served MCP server, on top of the tools.
 * Every optional part (audit, telemetry, readiness, per-caller credentials,
 * team settings, several services, the fleet view) is off unless its layer
 * is provided beneath them, and none has to be named when off. The parts that
 * hold state (the store, the confirmations' memory, the params check, the
 * guard, the refused keys) are in the bundles' types: each is the one provided
 * beneath, else the bundle's own, built with it (Shared/Parts.ts).
 */
import * as McpHttp from "../Mcp/Http/Http.js"
import * as McpServer from "../Mcp/Server/Server.js"

export { type Client, type ConfigFor, layer as client, layerWith as clientWith } from "./Client.js"
export { layer as tools, layerWith as toolsWith, type Tools } from "./Tools.js"

/** The tools served over this process's stdio for the life of the layer. */
export const stdio = McpServer.layerStdio

/** The tools served over Streamable HTTP for the life of the layer (`McpHttp.HttpServing` says where). */
export const http = McpHttp.layerHttp
