/**
 * svc-mcp embedded in an Effect program of its own: the settings come from the
 * program's ConfigProvider, the calls to the service go through the program's
 * HttpClient (the platform's fetch client here), the tool programs run without
 * MCP, and the same tools are served over MCP (Streamable HTTP) beside them.
 *
 * Outside this repository, import from "svc-mcp" instead of "../src/index.js".
 * Run it with `npx vite-node examples/embed.ts`; test/Embed.test.ts runs it in `npm test`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Bundle, Definitions, Invoke, McpHttp, Render } from "../src/index.js"
// A stand-in for the service, in this process: the sandbox that `svc-mcp --sandbox` runs.
import * as Sandbox from "../src/Sandbox/Server.js"

/**
 * The tools served over HTTP on a free loopback port, on top of the tools
 * (SVC_MODE, SVC_ALLOW ... from the ConfigProvider), on top of the service's
 * client (SVC_URL and the credentials from the ConfigProvider, the calls
 * through the program's own HttpClient). The optional parts (an audit log,
 * telemetry, per-caller credentials, /readyz ...) are off: each is turned on by
 * providing its layer beneath, e.g. `Layer.provide(Audit.layerConfig)`.
 */
const served = Bundle.http({ host: "127.0.0.1", port: 0, token: Option.none() }).pipe(
  Layer.provideMerge(Bundle.tools),
  Layer.provideMerge(Bundle.client),
  Layer.provide(FetchHttpClient.layer),
)

const names = (items: unknown): ReadonlyArray<string> =>
  Array.isArray(items) ? items.map((item: { readonly name?: unknown }) => String(item.name)) : []

/** svc_list's structuredContent: its rows, and the columns they hold (`name` among them). */
const namesOfRows = (structured: unknown): ReadonlyArray<string> => {
  const { columns, result } = (structured ?? {}) as { columns?: ReadonlyArray<string>; result?: unknown }
  const at = columns?.indexOf("name") ?? -1
  return Array.isArray(result) && at >= 0 ? result.map((row: ReadonlyArray<unknown>) => String(row[at])) : []
}

/** Lists the stacks twice: by the tool program itself, and as an MCP client does through the served tools. */
const listStacks = Effect.gen(function* () {
  const direct = yield* Invoke.invoke(Definitions.svc_list, { resource_type: "stack" })
  const { text } = Render.success(Definitions.svc_list, direct, { maxOutputChars: 50_000, revealSecrets: false })

  const { url } = yield* McpHttp.HttpServing
  const mcp = new Client({ name: "embed-example", version: "1.0.0" })
  yield* Effect.acquireRelease(
    Effect.promise(() => mcp.connect(new StreamableHTTPClientTransport(new URL(url)))),
    () => Effect.promise(() => mcp.close()),
  )
  const { tools } = yield* Effect.promise(() => mcp.listTools())
  const viaMcp = yield* Effect.promise(() => mcp.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }))
  return {
    url,
    tools: tools.map((tool) => tool.name),
    direct: names(direct.data),
    text,
    viaMcp: namesOfRows(viaMcp.structuredContent),
  }
})

/** The whole example: a sandbox to talk to, the program's settings, and both ways of calling the tools. */
export const main = Effect.gen(function* () {
  const sandbox = yield* Sandbox.make()
  const settings = ConfigProvider.fromMap(
    new Map([
      ["SVC_URL", sandbox.url],
      ["SVC_API_KEY", sandbox.apiKey.key],
      ["SVC_API_SECRET", sandbox.apiKey.secret],
      // Only the tools that read: svc_list, svc_get ... are served, the writing ones are not.
      ["SVC_MODE", "read-only"],
    ]),
  )
  return yield* listStacks.pipe(Effect.provide(served), Effect.withConfigProvider(settings))
}).pipe(Effect.scoped)

// Run when executed; not when test/Embed.test.ts imports it (vitest sets VITEST).
if (process.env.VITEST === undefined) {
  NodeRuntime.runMain(
    Effect.flatMap(main, ({ url, tools, direct, viaMcp }) =>
      Console.log(
        [
          `served over MCP at ${url}: ${tools.join(", ")}`,
          `stacks, by the tool program: ${direct.join(", ")}`,
          `stacks, through MCP: ${viaMcp.join(", ")}`,
        ].join("\n"),
      ),
    ),
  )
}
