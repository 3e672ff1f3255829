#!/usr/bin/env node
/**
 * The floor of the team figure: the SDK v2's low-level Server over Streamable
 * HTTP (createMcpHandler, stateless), one tool that forwards to the service
 * with a plain fetch and the caller's own key from the request's headers, and
 * nothing else. Prints its port on stdout, then serves until killed.
 */
import * as Http from "node:http"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, Server } from "@modelcontextprotocol/server"

const url = process.env.SVC_URL
const tools = [
  {
    name: "call",
    description: "Calls one endpoint",
    inputSchema: {
      type: "object",
      properties: { endpoint: { type: "string" }, params: { type: "object" } },
      required: ["endpoint"],
    },
  },
]
const handler = createMcpHandler(() => {
  const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler("tools/list", () => ({ tools }))
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { endpoint, params } = request.params.arguments
    const from = ctx.http?.req?.headers
    const headers = {
      "content-type": "application/json",
      "x-api-key": from?.get("x-svc-api-key") ?? "",
      "x-api-secret": from?.get("x-svc-api-secret") ?? "",
    }
    const response = await fetch(`${url}/${endpoint}`, { method: "POST", headers, body: JSON.stringify(params ?? {}) })
    const text = await response.text()
    return { content: [{ type: "text", text }], ...(response.ok ? {} : { isError: true }) }
  })
  return server
})
const serve = toNodeHandler(handler)
const server = Http.createServer((req, res) => {
  serve(req, res).catch(() => {
    res.statusCode = 500
    res.end()
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`))
