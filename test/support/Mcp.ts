/**
 * The MCP server in this process, spoken to by a client with no socket: the
 * SDK v1 Client as older clients speak (`connect`), or the SDK v2 Client
 * (`connectV2`) on the earlier revisions over an in-memory transport (after
 * `initialize`), or on 2026-07-28 through the HTTP entry's fetch face.
 */
import {
  Client,
  type ClientCapabilities,
  type ElicitResult,
  InMemoryTransport,
  type LoggingMessageNotification,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport as V1InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import {
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification as V1LoggingMessageNotification,
} from "@modelcontextprotocol/sdk/types.js"
import { createMcpHandler } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Auth from "../../src/Auth.js"
import * as ToolsBundle from "../../src/Bundle/Tools.js"
import type * as Config from "../../src/Config.js"
import * as McpServer from "../../src/Mcp/Server/Server.js"
import * as Settings from "../../src/Settings/ToolSettings.js"
import type * as SvcClient from "../../src/SvcClient.js"
import * as Names from "../../src/Tools/Names/Names.js"
import * as FleetView from "../../src/View/Fleet.js"
import * as Layers from "./Layers.js"

/** `legacy`: 2025-11-25 after `initialize`; `modern`: 2026-07-28, no handshake. */
export type Era = "legacy" | "modern"

export interface Options {
  readonly era?: Era
  /** Answers the server's confirmation questions; the client then declares elicitation. */
  readonly elicit?: (message: string) => ElicitResult["action"]
  /** Instead of the client of the service at the config's URL. */
  readonly service?: Layer.Layer<SvcClient.SvcClient>
  /** Serves the fleet view (an MCP App) as the command line does. */
  readonly view?: boolean
}

/** A followed execution is read every 10 ms here, not every second: the tests' executions end within milliseconds. */
const PACE = { waitPollMs: 10 }

const build = (
  config: Config.SvcConfigShape,
  settings: Partial<Settings.ServerSettingsShape>,
  client: Layer.Layer<SvcClient.SvcClient | Auth.Auth | Names.Names> = Layers.client(config),
  view = false,
) =>
  Effect.gen(function* () {
    // Built in the test's scope: the server outlives this effect. The optional parts are off; the
    // params' check is the thread's one (Layers.params).
    const context = yield* Layer.build(
      ToolsBundle.layerWith(Settings.layerValue({ ...PACE, ...settings }), Layers.params).pipe(
        Layer.provideMerge(client),
        Layer.merge(view ? FleetView.layer : Layer.empty),
      ),
    )
    return yield* McpServer.make.pipe(Effect.provide(context))
  })

interface ConnectedV1 {
  readonly client: V1Client
  readonly logs: Array<V1LoggingMessageNotification["params"]>
}

/** The SDK v1 Client, on 2025-06-18 after `initialize`. */
export const connect = (config: Config.SvcConfigShape, settings: Partial<Settings.ServerSettingsShape> = {}) =>
  Effect.gen(function* () {
    const server = (yield* build(config, settings)).create()
    const [clientSide, serverSide] = V1InMemoryTransport.createLinkedPair()
    yield* Effect.acquireRelease(
      Effect.promise(() => server.connect(serverSide)),
      () => Effect.promise(() => server.close()),
    )
    const client = new V1Client({ name: "svc-mcp-test", version: "1.0.0" })
    const logs: ConnectedV1["logs"] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params)
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(clientSide)),
      () => Effect.promise(() => client.close()),
    )
    return { client, logs } satisfies ConnectedV1
  })

interface Connected {
  readonly client: Client
  readonly logs: Array<LoggingMessageNotification["params"]>
  /** The questions the user was asked. */
  readonly asked: Array<string>
}

/** The SDK v2 Client, in either era. */
export const connectV2 = (
  config: Config.SvcConfigShape,
  settings: Partial<Settings.ServerSettingsShape> = {},
  options: Options = {},
) =>
  Effect.gen(function* () {
    // A service of the test's own has no credentials of the server's to scrub from records.
    const service =
      options.service && Layer.mergeAll(options.service, Layer.succeed(Auth.Auth, Auth.perRequest), Names.layerOff)
    const mcp = yield* build(config, settings, service, options.view)
    const era = options.era ?? "legacy"
    const capabilities: ClientCapabilities = options.elicit === undefined ? {} : { elicitation: { form: {} } }
    const client = new Client(
      { name: "svc-mcp-test", version: "1.0.0" },
      { capabilities, ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}) },
    )
    const logs: Connected["logs"] = []
    const asked: Array<string> = []
    client.setNotificationHandler("notifications/message", (notification) => {
      logs.push(notification.params)
    })
    const { elicit } = options
    if (elicit !== undefined) {
      client.setRequestHandler("elicitation/create", (request) => {
        asked.push(request.params.message)
        const action = elicit(request.params.message)
        return action === "accept" ? { action, content: {} } : { action }
      })
    }
    if (era === "legacy") {
      const server = mcp.create()
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* Effect.acquireRelease(
        Effect.promise(() => server.connect(serverSide)),
        () => Effect.promise(() => server.close()),
      )
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(clientSide)),
        () => Effect.promise(() => client.close()),
      )
    } else {
      const handler = createMcpHandler(() => mcp.create())
      const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(transport)),
        () => Effect.promise(() => client.close().then(() => handler.close())),
      )
    }
    return { client, logs, asked } satisfies Connected
  })

/** `text` without the line an answer with untrusted text starts with (src/Untrusted/Fence.ts). */
export const unfenced = (text: string): string =>
  text.replace(/^\[svc-mcp: untrusted text at [^\n]* stands between <u:[0-9a-f]{16}> and <\/u>:[^\n]*\n/, "")

export const text = (result: unknown): string => {
  const [first] = (result as { content: Array<{ text: string }> }).content
  return first?.text ?? ""
}
