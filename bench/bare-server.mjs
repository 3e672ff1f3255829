#!/usr/bin/env node
/**
 * The floor to compare with: the SDK's low-level Server with one tool that
 * forwards to the service with a plain fetch, and nothing else.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const url = process.env.SVC_URL
const headers = {
  "content-type": "application/json",
  "x-api-key": process.env.SVC_API_KEY,
  "x-api-secret": process.env.SVC_API_SECRET,
}
const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "call",
      description: "Calls one endpoint",
      inputSchema: {
        type: "object",
        properties: { endpoint: { type: "string" }, params: { type: "object" } },
        required: ["endpoint"],
      },
    },
  ],
}))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { endpoint, params } = request.params.arguments
  const response = await fetch(`${url}/${endpoint}`, { method: "POST", headers, body: JSON.stringify(params ?? {}) })
  return { content: [{ type: "text", text: await response.text() }] }
})
await server.connect(new StdioServerTransport())
