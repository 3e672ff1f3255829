/**
 * Clients of the built server's HTTP mode: the SDK's client with any headers,
 * and raw requests.
 */
import * as NodeHttp from "node:http"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"

/** A connected client sending `headers` with every request, for the length of a scope. */
export const connect = (url: string, headers: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
      const client = new Client({ name: "svc-mcp-ops-test", version: "1.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close()),
  )

/** One request, read to its end. */
export const raw = (url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = NodeHttp.request(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
          let body = ""
          res.on("data", (chunk: Buffer) => {
            body += chunk.toString("utf8")
          })
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on("error", reject)
        req.end(options.body)
      }),
  )

export const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
})

export const textOf = (result: unknown): string =>
  (result as { content: Array<{ text: string }> }).content[0]?.text ?? ""
