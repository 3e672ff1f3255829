#!/usr/bin/env node
/**
 * `npm run demo`: starts the built server against its sandbox, as an MCP client
 * would, and plays a short session, printing what an assistant would see. It
 * reads each answer's `structuredContent`, the service's JSON: the text an
 * assistant reads starts with a notice where it carries untrusted text.
 * Its user accepts the questions the server asks (SVC_GUARD, after the logs).
 */
import * as Path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const entry = Path.resolve(import.meta.dirname, "../dist/svc-mcp.js")
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [entry, "--sandbox"],
  env: { PATH: process.env.PATH ?? "" },
  stderr: "pipe",
})
const client = new Client({ name: "svc-mcp-demo", version: "1.0.0" }, { capabilities: { elicitation: {} } })

const say = (text) => process.stdout.write(`${text}\n`)

// The user of this session reads each question and accepts it.
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  say(`  (the user is asked: ${request.params.message.split("\n").join(" / ")})`)
  say("  (the user accepts)")
  return { action: "accept", content: {} }
})

/**
 * The answer's data: structuredContent, unwrapped where the server wrapped a non-object as {result};
 * a list at a glance ({columns, result}: svc_list's rows) as one object per row, keyed by column.
 */
const dataOf = (result) => {
  const structured = result.structuredContent
  if (Array.isArray(structured?.columns) && Array.isArray(structured.result)) {
    return structured.result.map((row) => Object.fromEntries(structured.columns.map((column, i) => [column, row[i]])))
  }
  return structured !== undefined && Object.keys(structured).length === 1 && "result" in structured
    ? structured.result
    : structured
}
const clip = (text, max = 400) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text)

/** One tool call, printed as the assistant's request and the server's answer. */
const call = async (name, args, show = (data) => clip(JSON.stringify(data))) => {
  say(`\n> ${name} ${JSON.stringify(args)}`)
  const result = await client.callTool({ name, arguments: args })
  const text = result.content[0]?.text ?? ""
  if (result.isError) {
    say(`< error: ${text}`)
    say(`  structured: ${JSON.stringify(result.structuredContent)}`)
    return undefined
  }
  const data = dataOf(result)
  say(`< ${show(data)}`)
  return data
}

const names = (items) => items.map((i) => `${i.name} (${i.info?.state ?? i.state ?? "-"})`).join(", ")

await client.connect(transport)
const { tools } = await client.listTools()
say(`Connected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version} in sandbox mode.`)
say(`${tools.length} tools: ${tools.map((t) => t.name).join(", ")}`)

await call("svc_list", { resource_type: "server" }, names)
await call("svc_list", { resource_type: "stack" }, names)
await call(
  "svc_get",
  { resource_type: "stack", params: { stack: "staging-web" } },
  // At a glance: the fields an operator reads first, its state from its list, the server by name; fields: ["*"] gives the whole record.
  (s) =>
    `${s.name} (${s.state}): ${s.repo}@${s.branch}, files ${s.files.join(", ")} in the ${s.files_at}, on server ${s.server}`,
)
await call(
  "svc_inspect",
  { inspect_type: "container", params: { server: "prod-01", container: "web-web-1" } },
  (c) => `${c.name}: ${c.state}, image ${c.image}`,
)

const update = await call(
  "svc_execute",
  { operation: "deploy_stack", params: { stack: "staging-web" } },
  (u) => `Update ${u.update}: ${u.operation} ${u.target} ${u.status}`,
)
say("\n(following the deploy through svc_list_detail updates, once a second)")
for (let i = 0; i < 10; i++) {
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const result = await client.callTool({ name: "svc_list_detail", arguments: { list_type: "updates" } })
  const mine = dataOf(result).updates.find((u) => u.id === update.update)
  say(`  ${mine.status}${mine.status === "Complete" ? `, success: ${mine.success}` : ""}`)
  if (mine.status === "Complete") break
}
// The glance says the state the deploy left: no list to read for it.
await call("svc_get", { resource_type: "stack", params: { stack: "staging-web" } }, (s) => `${s.name} (${s.state})`)
await call(
  "svc_logs",
  { resource_type: "stack", params: { stack: "staging-web", services: [], tail: 5 } },
  (log) => `\n${log.stdout}`,
)
await call(
  "svc_search_logs",
  { resource_type: "stack", query: "listening", params: { stack: "staging-web", services: ["web"] } },
  (log) => `\n${log.stdout}`,
)

await call(
  "svc_create",
  { resource_type: "tag", params: { name: "demo", color: "Green" } },
  (t) => `created tag ${t.name}`,
)
await call(
  "svc_rename",
  { resource_type: "tag", params: { id: "demo", name: "demo-renamed" } },
  (t) => `renamed to ${t.name}`,
)
await call("svc_list", { resource_type: "tag" }, (tags) => tags.map((t) => t.name).join(", "))
await call("svc_delete", { resource_type: "tag", params: { id: "demo-renamed" } }, (t) => `deleted tag ${t.name}`)

say("\nWhat a selector's params are, from the service's definitions (nothing is sent):")
await call("svc_delete", { resource_type: "variable", schema: true }, (s) => `${s.endpoint} takes ${s.params}`)

say("\nAnd what an error looks like:")
await call("svc_get", { resource_type: "stack", params: { stack: "no-such-stack" } })
await call("svc_get", { resource_type: "user", params: {} })
await call("svc_delete", { resource_type: "variable", params: { id: "demo" } })

await client.close()

say("\nSeveral services behind one server: --sandbox --services prod,staging runs a sandbox for each,")
say("each with its own estate; SVC_STAGING_MODE=read-only gives staging its own policy.")
const several = new Client({ name: "svc-mcp-demo", version: "1.0.0" })
await several.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [entry, "--sandbox", "--services", "prod,staging"],
    env: { PATH: process.env.PATH ?? "", SVC_STAGING_MODE: "read-only" },
    stderr: "pipe",
  }),
)
const listed = (await several.listTools()).tools
say(`service: ${JSON.stringify(listed[0]?.inputSchema.properties.service)}`)
say(`svc_delete: …${listed.find((t) => t.name === "svc_delete")?.description.slice(-28)}`)
const tags = (tags) => tags.map((t) => t.name).join(", ") || "(none)"
{
  const call = async (args, service) => {
    const name = args.name
    const given = { ...args.arguments, ...(service === undefined ? {} : { service }) }
    say(`\n> ${name} ${JSON.stringify(given)}`)
    const result = await several.callTool({ name, arguments: given })
    const text = result.content[0]?.text ?? ""
    say(result.isError ? `< error: ${text}` : `< ${name === "svc_list" ? tags(dataOf(result)) : clip(text, 120)}`)
  }
  await call({ name: "svc_create", arguments: { resource_type: "tag", params: { name: "only-on-prod" } } }, "prod")
  await call({ name: "svc_list", arguments: { resource_type: "tag" } }, "prod")
  await call({ name: "svc_list", arguments: { resource_type: "tag" } }, "staging")
  await call({ name: "svc_delete", arguments: { resource_type: "tag", params: { id: "only-on-prod" } } }, "staging")
}
await several.close()
say("\nDone. Point the server at a real service with SVC_URL and credentials (see README).")
