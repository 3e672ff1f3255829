/**
 * The MCP server in this process, spoken to by the SDK's Client over an
 * in-memory transport: the protocol end to end, without spawning.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Config from "../../src/Config.js"
import * as McpServer from "../../src/Mcp/Server.js"
import * as Policy from "../../src/Tools/Policy.js"
import * as Layers from "./Layers.js"

export interface Connected {
  readonly client: Client
  readonly logs: Array<LoggingMessageNotification["params"]>
}

export const connect = (config: Config.SvcConfigShape, settings: Partial<Config.ServerSettingsShape> = {}) =>
  Effect.gen(function* () {
    // Built in the test's scope: the server outlives this effect.
    const context = yield* Layer.build(
      Policy.layer.pipe(
        Layer.provideMerge(Config.layerSettingsValue(settings)),
        Layer.provideMerge(Layers.client(config)),
      ),
    )
    const server = (yield* McpServer.make.pipe(Effect.provide(context))).create()
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* Effect.acquireRelease(
      Effect.promise(() => McpServer.connect(server, serverSide)),
      () => Effect.promise(() => server.close()),
    )
    const client = new Client({ name: "svc-mcp-test", version: "1.0.0" })
    const logs: Connected["logs"] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params)
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(clientSide)),
      () => Effect.promise(() => client.close()),
    )
    return { client, logs } satisfies Connected
  })

export const text = (result: unknown): string => {
  const [first] = (result as { content: Array<{ text: string }> }).content
  return first?.text ?? ""
}
