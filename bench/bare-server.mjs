#!/usr/bin/env node
/**
 * The floor to compare with: the SDK v2's low-level Server with one tool that
 * forwards to the service with a plain fetch, served by the SDK's stdio entry
 * in both protocol eras, and nothing else.
 */
import { Server } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"

const url = process.env.SVC_URL
const headers = {
  "content-type": "application/json",
  "x-api-key": process.env.SVC_API_KEY,
  "x-api-secret": process.env.SVC_API_SECRET,
}
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
serveStdio(() => {
  const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler("tools/list", () => ({ tools }))
  server.setRequestHandler("tools/call", async (request) => {
    const { endpoint, params } = request.params.arguments
    const response = await fetch(`${url}/${endpoint}`, { method: "POST", headers, body: JSON.stringify(params ?? {}) })
    return { content: [{ type: "text", text: await response.text() }] }
  })
  return server
})
