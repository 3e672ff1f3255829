#!/usr/bin/env node
/**
 * `npm run answer-sizes`: what five questions about the fleet cost an
 * assistant, with and without `fields`. Starts the built server against its
 * sandbox, asks each question both ways, and prints a Markdown table of the
 * answers' characters and tokens (the figures of docs/tools.md).
 *
 * Tokens are counted with gpt-tokenizer's o200k_base encoding: an assistant's
 * own tokenizer differs somewhat, but the ratio between the two answers holds.
 */
import * as Path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"

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
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [entry, "--sandbox"],
  env: { PATH: process.env.PATH ?? "" },
  stderr: "pipe",
})
const client = new Client({ name: "svc-mcp-answer-sizes", version: "1.0.0" })

/** The text an assistant reads: the answer's JSON and any note. */
const answer = async (tool, args) => {
  const result = await client.callTool({ name: tool, arguments: args })
  const text = result.content.map((part) => part.text ?? "").join("\n")
  if (result.isError) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${text}`)
  return text
}

const size = (text) => ({ chars: text.length, tokens: countTokens(text) })
const percent = (part, whole) => `${Math.round((100 * part) / whole)}%`

await client.connect(transport)
const rows = []
for (const { question, tool, args, fields } of QUESTIONS) {
  const whole = size(await answer(tool, args))
  const shaped = size(await answer(tool, { ...args, fields }))
  rows.push({ question, call: `${tool} ${Object.values(args)[0]}`, fields, whole, shaped })
}
await client.close()

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
