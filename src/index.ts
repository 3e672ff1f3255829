/**
 * svc-mcp as a library: the service's client and the tool programs, usable by
 * any Effect program without MCP, and the adapter for those who want MCP.
 */

export * as Auth from "./Auth.js"
export * as Config from "./Config.js"
export * as McpServer from "./Mcp/Server.js"
export * as Audit from "./Operations/Audit.js"
export * as Readiness from "./Operations/Readiness.js"
export * as Telemetry from "./Operations/Telemetry.js"
export * as CallerCredentials from "./Service/CallerCredentials.js"
export * from "./Service/Errors.js"
export * as SvcTransport from "./Service/Transport.js"
export { VERSION } from "./Shared/Version.js"
export * as SvcClient from "./SvcClient.js"
export * as Definitions from "./Tools/Definitions.js"
export * as Invoke from "./Tools/Invoke.js"
export * as Pages from "./Tools/Pages.js"
export * as ParamsCheck from "./Tools/ParamsCheck.js"
export * as Progress from "./Tools/Progress.js"
export * as Render from "./Tools/Render.js"
export * as Settings from "./Tools/Settings.js"
export * as Tables from "./Tools/Tables.js"
export * as Tool from "./Tools/Tool.js"
export * from "./Tools/ToolError.js"
