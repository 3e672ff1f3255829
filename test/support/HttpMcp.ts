/**
 * Clients of the built server's HTTP mode: the SDK v1 Client (as most hosts
 * embed it today) with any headers, and raw requests.
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

export interface RawOptions {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  /** The loopback address the request's socket is bound to (127.0.0.2 ...): a caller of its own. */
  readonly from?: string
}

/** One request, read to its end. */
export const raw = (url: string, options: RawOptions = {}) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const from = options.from === undefined ? {} : { localAddress: options.from, agent: false }
        const req = NodeHttp.request(
          url,
          { method: options.method ?? "GET", headers: options.headers, ...from },
          (res) => {
            let body = ""
            res.on("data", (chunk: Buffer) => {
              body += chunk.toString("utf8")
            })
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
          },
        )
        req.on("error", reject)
        req.end(options.body)
      }),
  )

export const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

/** The `_meta` a 2026-07-28 client sends with each request: its version, its name, its capabilities. */
export const modernMeta = (client: string, capabilities: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: client, version: "1" },
  "io.modelcontextprotocol/clientCapabilities": capabilities,
})

/**
 * One 2026-07-28 request as the wire carries it, its routing headers included,
 * answered as JSON: what a client sends, and echoes, is its own to choose.
 */
export const modern = (
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: {
    readonly meta: Record<string, unknown>
    readonly headers?: Record<string, string>
    readonly from?: string
  },
) =>
  Effect.map(
    raw(url, {
      method: "POST",
      headers: {
        ...JSON_HEADERS,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
        ...options.headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: options.meta } }),
      ...(options.from === undefined ? {} : { from: options.from }),
    }),
    // biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
    ({ status, body }) => ({ status, body: JSON.parse(body) as any }),
  )

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
})

export const textOf = (result: unknown): string =>
  (result as { content: Array<{ text: string }> }).content[0]?.text ?? ""
