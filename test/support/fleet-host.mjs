/**
 * A small MCP Apps host for the fleet view's browser test, built on the Apps
 * SDK's app-bridge: it connects to the server at /mcp (its own origin; the test
 * passes the requests on to the built server), reads the view that svc_summary
 * links to, shows it in a sandboxed frame under the CSP the resource declares,
 * and passes the view's tool calls on to the server, noting each. It answers the
 * server's confirmation questions as `window.host.answer` says.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge"

const theme = new URLSearchParams(location.search).get("theme") === "dark" ? "dark" : "light"
const host = { calls: [], results: [], asked: [], answer: "accept", initialized: false, resource: undefined }
window.host = host

const client = new Client(
  { name: "fleet-test-host", version: "1.0.0" },
  {
    capabilities: {
      elicitation: { form: {} },
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } },
    },
    // Over HTTP each request is a server of its own: 2026-07-28 carries the client's capabilities in every
    // request, so that a confirmation can be asked (input_required), where the earlier revisions cannot.
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  },
)
client.setRequestHandler("elicitation/create", (request) => {
  host.asked.push(request.params.message)
  return host.answer === "accept" ? { action: "accept", content: {} } : { action: host.answer }
})
await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)))

const { tools } = await client.listTools()
const uri = getToolUiResourceUri(tools.find((tool) => tool.name === "svc_summary") ?? {})
const read = await client.readResource({ uri })
const [content] = read.contents
host.resource = { uri, mimeType: content.mimeType, meta: content._meta, bytes: content.text.length }

// The CSP a host derives from the resource's declaration: nothing from the network unless it names an origin.
const csp = content._meta?.ui?.csp ?? {}
const origins = (list) => (list === undefined || list.length === 0 ? "" : ` ${list.join(" ")}`)
const policy = [
  "default-src 'none'",
  `script-src 'unsafe-inline'${origins(csp.resourceDomains)}`,
  `style-src 'unsafe-inline'${origins(csp.resourceDomains)}`,
  `img-src data:${origins(csp.resourceDomains)}`,
  `font-src data:${origins(csp.resourceDomains)}`,
  `connect-src${origins(csp.connectDomains) || " 'none'"}`,
].join("; ")
const html = content.text.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${policy}">`)

const frame = document.createElement("iframe")
frame.setAttribute("sandbox", "allow-scripts")
frame.title = "fleet view"
document.body.append(frame)

const hostContext = { theme, platform: "web", displayMode: "inline", locale: "en-GB", timeZone: "UTC" }
const bridge = new AppBridge(
  null,
  { name: "fleet-test-host", version: "1.0.0" },
  { serverTools: {}, logging: {} },
  { hostContext },
)
bridge.oncalltool = async (params) => {
  host.calls.push(params)
  const result = await client.callTool(params)
  host.results.push({ name: params.name, arguments: params.arguments, result })
  return result
}
bridge.onsizechange = ({ height }) => {
  if (height !== undefined) frame.style.height = `${Math.ceil(height)}px`
}
bridge.oninitialized = async () => {
  host.initialized = true
  // As a host does once the view is up: the call that opened it, and its result.
  const args = { resource_type: "server", params: {} }
  await bridge.sendToolInput({ arguments: args })
  await bridge.sendToolResult(await client.callTool({ name: "svc_summary", arguments: args }))
}
window.setTheme = (next) => bridge.setHostContext({ ...hostContext, theme: next })
frame.srcdoc = html
await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow))
