#!/usr/bin/env node
/**
 * `npm run answer-sizes`: what five questions about the fleet cost an
 * assistant, with and without `fields`. Starts the built server against its
 * sandbox, asks each question both ways, and prints a Markdown table of the
 * answers' characters and tokens (the figures of docs/tools.md). Then each
 * list's default answer on the small and the large estate, before (the whole
 * records, as `fields: ["*"]` still gives them) and after (the rows at a
 * glance): the figures of docs/benchmark.md. Then a few records and results (gets, a container
 * inspected, a sync, a deploy followed and not, a server's containers), before and after, on
 * both estates. Last, the replay of 21 everyday requests (scripts/everyday-requests.mjs), each
 * call's answer as it comes and whole, on the small estate with everything in reach; and of the
 * requests that need the whole service (alerts, a resource's meta, permissions, service users, a
 * sync's commit...), the same way: calls and characters for each.
 *
 * Tokens are counted with gpt-tokenizer's o200k_base encoding: an assistant's
 * own tokenizer differs somewhat, but the ratio between the two answers holds.
 */
import * as Path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { REQUESTS, replay, WHOLE_SERVICE } from "./everyday-requests.mjs"

const QUESTIONS = [
  {
    question: "Which stacks are not running, and on which server?",
    tool: "svc_list",
    args: { resource_type: "stack" },
    fields: ["name", "info.state", "info.server_name"],
  },
  {
    question: "Which stack services have an image update available?",
    tool: "svc_list",
    args: { resource_type: "stack" },
    fields: ["name", "info.services.service", "info.services.update_available"],
  },
  {
    question: "Which image does each deployment run, and is it running?",
    tool: "svc_list",
    args: { resource_type: "deployment" },
    fields: ["name", "info.image", "info.state"],
  },
  {
    question: "Which servers are not Ok, in which region, on which version?",
    tool: "svc_list",
    args: { resource_type: "server" },
    fields: ["name", "info.state", "info.region", "info.version"],
  },
  {
    question: "Which containers run where, and in what state?",
    tool: "svc_list_detail",
    args: { list_type: "all_containers" },
    fields: ["name", "server_name", "state"],
  },
]

const entry = Path.resolve(import.meta.dirname, "../dist/svc-mcp.js")

/** A client of the built server on a sandbox of `estate`; `asked`: one whose user accepts each question. */
const connect = async (estate, env = {}, asked = false) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, "--sandbox", "--estate", estate],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  })
  const client = new Client(
    { name: "svc-mcp-answer-sizes", version: "1.0.0" },
    asked ? { capabilities: { elicitation: {} } } : {},
  )
  if (asked) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }))
  await client.connect(transport)
  return client
}

let client = await connect("small")

/** The text an assistant reads: the answer's JSON and any note. */
const answer = async (tool, args) => {
  const result = await client.callTool({ name: tool, arguments: args })
  const text = result.content.map((part) => part.text ?? "").join("\n")
  if (result.isError) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${text}`)
  return text
}

const size = (text) => ({ chars: text.length, tokens: countTokens(text) })
const percent = (part, whole) => `${Math.round((100 * part) / whole)}%`

const rows = []
for (const { question, tool, args, fields } of QUESTIONS) {
  // Before: the whole records, as the answer was before lists came at a glance.
  const whole = size(await answer(tool, { ...args, fields: ["*"] }))
  const shaped = size(await answer(tool, { ...args, fields }))
  rows.push({ question, call: `${tool} ${Object.values(args)[0]}`, fields, whole, shaped })
}
await client.close()

/**
 * Each list of svc_list and each full list of svc_list_detail, asked as an
 * assistant asks first: no params (one page), and the longest with limit 0.
 */
const LISTS = [
  ...[
    "stack",
    "deployment",
    "server",
    "build",
    "repo",
    "procedure",
    "action",
    "alerter",
    "builder",
    "sync_resource",
    "swarm",
    "tag",
    "user",
    "variable",
    "user_group",
    "git_provider_account",
    "image_registry_account",
  ].map((type) => ({ label: type, args: { resource_type: type } })),
  { label: "stack, limit 0", args: { resource_type: "stack", params: { limit: 0 } } },
  { label: "deployment, limit 0", args: { resource_type: "deployment", params: { limit: 0 } } },
  { label: "server, limit 0", args: { resource_type: "server", params: { limit: 0 } } },
  // svc_list_detail's full lists: the same resources with their whole config.
  ...[
    "full_stacks",
    "full_deployments",
    "full_servers",
    "full_builds",
    "full_repos",
    "full_procedures",
    "full_actions",
    "full_alerters",
    "full_builders",
    "full_resource_syncs",
    "full_swarms",
  ].map((type) => ({ label: type, tool: "svc_list_detail", args: { list_type: type } })),
]
/** The default output budget: an answer longer than this is cut when served as configured by default. */
const BUDGET = 50_000
const estates = {}
for (const estate of ["small", "large"]) {
  // A budget no answer reaches, so that each is measured whole; the table marks those over the default.
  client = await connect(estate, { SVC_MAX_OUTPUT_CHARS: "10000000" })
  estates[estate] = []
  for (const { label, tool = "svc_list", args } of LISTS) {
    const before = await answer(tool, { ...args, fields: ["*"] })
    const after = await answer(tool, args)
    estates[estate].push({ label, before, after })
  }
  await client.close()
}

/**
 * One record or result, as an assistant asks for it, on each estate: before (the whole record, as
 * `fields: ["*"]` still gives it) and after (the default answer).
 */
const RECORDS = [
  { label: "svc_get stack web", tool: "svc_get", args: { resource_type: "stack", params: { stack: "web" } } },
  {
    label: "svc_get deployment api",
    tool: "svc_get",
    args: { resource_type: "deployment", params: { deployment: "api" } },
  },
  {
    label: "svc_get server prod-01",
    tool: "svc_get",
    args: { resource_type: "server", params: { server: "prod-01" } },
  },
  {
    label: "svc_get build api-image",
    tool: "svc_get",
    args: { resource_type: "build", params: { build: "api-image" } },
  },
  { label: "svc_get repo infra", tool: "svc_get", args: { resource_type: "repo", params: { repo: "infra" } } },
  {
    label: "svc_inspect container web-web-1",
    tool: "svc_inspect",
    args: { inspect_type: "container", params: { server: "prod-01", container: "web-web-1" } },
  },
  {
    label: "svc_get sync_resource estate-sync",
    tool: "svc_get",
    args: { resource_type: "sync_resource", params: { sync: "estate-sync" } },
  },
  {
    label: "svc_execute deploy_stack staging-web, wait",
    tool: "svc_execute",
    args: { operation: "deploy_stack", params: { stack: "staging-web" }, wait: true },
  },
  {
    label: "svc_execute deploy_stack web",
    tool: "svc_execute",
    args: { operation: "deploy_stack", params: { stack: "web" } },
  },
  {
    label: "svc_list_detail containers prod-01",
    tool: "svc_list_detail",
    args: { list_type: "containers", params: { server: "prod-01" } },
  },
]
const records = {}
for (const estate of ["small", "large"]) {
  client = await connect(estate, { SVC_WAIT_POLL_MS: "100" })
  records[estate] = []
  for (const { tool, args } of RECORDS) {
    const before = await answer(tool, { ...args, fields: ["*"] })
    const after = await answer(tool, args)
    records[estate].push({ before, after })
  }
  await client.close()
}

const total = (pick) => rows.reduce((sum, row) => sum + pick(row), 0)
const line = (cells) => `| ${cells.join(" | ")} |`
const out = [
  line(["Question", "Call", "`fields`", "Chars, whole", "Chars, shaped", "Tokens, whole", "Tokens, shaped"]),
  line(["---", "---", "---", "---:", "---:", "---:", "---:"]),
  ...rows.map((row) =>
    line([
      row.question,
      `\`${row.call}\``,
      `\`${JSON.stringify(row.fields)}\``,
      row.whole.chars,
      `${row.shaped.chars} (${percent(row.shaped.chars, row.whole.chars)})`,
      row.whole.tokens,
      `${row.shaped.tokens} (${percent(row.shaped.tokens, row.whole.tokens)})`,
    ]),
  ),
  line([
    "**All five**",
    "",
    "",
    total((r) => r.whole.chars),
    `${total((r) => r.shaped.chars)} (${percent(
      total((r) => r.shaped.chars),
      total((r) => r.whole.chars),
    )})`,
    total((r) => r.whole.tokens),
    `${total((r) => r.shaped.tokens)} (${percent(
      total((r) => r.shaped.tokens),
      total((r) => r.whole.tokens),
    )})`,
  ]),
]
process.stdout.write(`${out.join("\n")}\n`)

const cell = (text) => `${text.length}${text.length > BUDGET ? " (over the budget: cut)" : ""}`
const smaller = (before, after) => `${Math.round(100 - (100 * after.length) / before.length)}%`
const lists = [
  line(["List", "Small, before", "Small, after", "Smaller by", "Large, before", "Large, after", "Smaller by"]),
  line(["---", "---:", "---:", "---:", "---:", "---:", "---:"]),
  ...LISTS.map(({ label }, i) => {
    const small = estates.small[i]
    const big = estates.large[i]
    return line([
      label,
      cell(small.before),
      cell(small.after),
      smaller(small.before, small.after),
      cell(big.before),
      cell(big.after),
      smaller(big.before, big.after),
    ])
  }),
]
process.stdout.write(`\n${lists.join("\n")}\n`)

const recordsTable = [
  line([
    "Record or result",
    "Small, before",
    "Small, after",
    "Smaller by",
    "Large, before",
    "Large, after",
    "Smaller by",
  ]),
  line(["---", "---:", "---:", "---:", "---:", "---:", "---:"]),
  ...RECORDS.map(({ label }, i) => {
    const small = records.small[i]
    const big = records.large[i]
    return line([
      label,
      small.before.length,
      small.after.length,
      smaller(small.before, small.after),
      big.before.length,
      big.after.length,
      smaller(big.before, big.after),
    ])
  }),
]
process.stdout.write(`\n${recordsTable.join("\n")}\n`)

// The 21 everyday requests, then the whole-service ones, each replay on a fresh sandbox: as
// answered, and with every answer whole.
const everyday = (whole, requests) =>
  replay(() => connect("small", { SVC_REACH: "all", SVC_WAIT_POLL_MS: "100" }, true), whole, requests)
const measured = async (requests) => [await everyday(false, requests), await everyday(true, requests)]
const sum = (texts) => texts.reduce((n, text) => n + text.length, 0)
const tokens = (texts) => texts.reduce((n, text) => n + countTokens(text), 0)
const all = (answers) => answers.flatMap((a) => a.texts)
/** A table of `requests`' calls and characters, each as answered and whole, and their sum. */
const requestsTable = async (requests) => {
  const [asAnswered, asWhole] = await measured(requests)
  return [
    line(["Request", "Calls", "Chars, whole", "Chars, as answered", "Smaller by"]),
    line(["---", "---:", "---:", "---:", "---:"]),
    ...requests.map(({ request, calls }, i) => {
      const [before, after] = [sum(asWhole[i].texts), sum(asAnswered[i].texts)]
      return line([request, calls.length, before, after, `${Math.round(100 - (100 * after) / before)}%`])
    }),
    line([
      `**All ${requests.length}**`,
      requests.reduce((n, r) => n + r.calls.length, 0),
      `${sum(all(asWhole))} (${tokens(all(asWhole))} tokens)`,
      `${sum(all(asAnswered))} (${tokens(all(asAnswered))} tokens)`,
      `${Math.round(100 - (100 * sum(all(asAnswered))) / sum(all(asWhole)))}%`,
    ]),
  ]
}
process.stdout.write(`\n${(await requestsTable(REQUESTS)).join("\n")}\n`)
// The requests that need the whole service (SVC_REACH=all).
process.stdout.write(`\n${(await requestsTable(WHOLE_SERVICE)).join("\n")}\n`)
