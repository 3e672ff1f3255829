/**
 * svc-mcp as a library, for an Effect program that embeds it
 * (examples/embed.ts shows one):
 * - the bundles (Bundle): `client`, the service's client over any HttpClient
 *   (SvcTransport is ours), its settings from the ConfigProvider; `tools` on
 *   top of it; `stdio` or `http(settings)`, the served server, on top of those;
 * - their parts, to compose otherwise: SvcConfig (read from any ConfigProvider,
 *   or given as a value), Auth, SvcClient, PolicySettings, Policy,
 *   ParamsCheck; McpServer (the SDK servers' factory), McpHttp and
 *   HttpSettings. Each is exported under the name the code imports it by
 *   (SvcConfig leaves Effect's `Config` to it): a program that also imports
 *   the SDK's `McpServer` class renames one of the two;
 * - the tool programs: Definitions (the tools), Invoke (one call), Render
 *   (its answer as text), Pages (the service's default page Invoke needs);
 * - the optional parts, each off unless its layer is provided beneath the
 *   bundles (its `layerConfig` reads its settings from the ConfigProvider):
 *   Audit, Telemetry, CallerCredentials (per-request mode), Readiness (over
 *   HTTP), TeamSettings, Registry (several services), SignIn and SignInAuth (sign-in
 *   over HTTP: docs/sign-in.md), FleetView (the fleet view, an MCP App);
 * - the parts that hold state, each the one provided beneath the bundles, else
 *   the bundle's own: Store (the store replicas share), ConfirmationState,
 *   ParamsCheck, Guard (SVC_GUARD: changes that follow untrusted text and
 *   cannot be undone are asked first), RefusedKeys, Names (the names of ids,
 *   which Invoke needs: Bundle.client's, or Names.layerOff);
 * - CallContext: what one tool call carries.
 */

export * as Auth from "./Auth.js"
export * as Bundle from "./Bundle/All.js"
export * as CallContext from "./Call/Context.js"
export * as RefusedKeys from "./Callers/RefusedKeys.js"
export * as SvcConfig from "./Config.js"
export * as ConfirmationState from "./Confirmation/State.js"
export * as McpHttp from "./Mcp/Http/Http.js"
export * as McpServer from "./Mcp/Server/Server.js"
export * as Audit from "./Operations/Audit.js"
export * as Readiness from "./Operations/Readiness.js"
export * as Telemetry from "./Operations/Telemetry.js"
export * as Registry from "./Registry/Registry.js"
export * as CallerCredentials from "./Service/CallerCredentials.js"
export * from "./Service/Errors.js"
export * as SvcTransport from "./Service/Transport.js"
export * as HttpSettings from "./Settings/Http.js"
export * as TeamSettings from "./Settings/Team.js"
export * as PolicySettings from "./Settings/ToolSettings.js"
export * as PatternReader from "./Shared/PatternReader.js"
export { VERSION } from "./Shared/Version.js"
export * as SignIn from "./SignIn/Resource.js"
export * as SignInAuth from "./SignIn/SignedInAuth.js"
export * as Store from "./Store/Store.js"
export * as SvcClient from "./SvcClient.js"
export * as Definitions from "./Tools/Catalog/Definitions.js"
export * as Progress from "./Tools/Catalog/Progress.js"
export * as Tool from "./Tools/Catalog/Tool.js"
export * from "./Tools/Catalog/ToolError.js"
export * as Invoke from "./Tools/Invoke.js"
export * as Pages from "./Tools/Lists/Pages.js"
export * as Names from "./Tools/Names/Names.js"
export * as ParamsCheck from "./Tools/Params/ParamsCheck.js"
export * as Policy from "./Tools/Policy/Policy.js"
export * as Render from "./Tools/Render.js"
export * as Guard from "./Untrusted/Guard.js"
export * as FleetView from "./View/Fleet.js"
