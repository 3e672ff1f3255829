#!/usr/bin/env node
/**
 * `npm run soak`: 100,000 mixed tool calls against the sandbox, through a proxy
 * that injects faults at a low rate, 50 in flight. Reports calls per second,
 * outcomes by kind, and the server's RSS every 10,000 calls; fails if a call
 * never ends or if RSS keeps growing. Not part of CI. `--calls N` for another count.
 */
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const ROOT = Path.resolve(import.meta.dirname, "..")
const ENTRY = Path.join(ROOT, "dist/svc-mcp.js")
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i < 0 ? fallback : Number(process.argv[i + 1])
}
const CALLS = arg("--calls", 100_000)
const IN_FLIGHT = 50
const FAULT_RATE = arg("--fault-rate", 0.01)
const TIMEOUT_MS = 2000
const SAMPLE_EVERY = Math.max(1000, Math.floor(CALLS / 10))

if (!Fs.existsSync(ENTRY)) {
  process.stderr.write("soak: dist/ is missing: run npm run build first\n")
  process.exit(1)
}
const { start } = await import(Path.join(ROOT, "dist/Sandbox/Server.js"))

/** A small seeded generator, so that a run can be repeated. */
let seed = 0x5eed
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const pick = (items) => items[Math.floor(random() * items.length)]

const sandbox = await start({ timing: { completeMs: 200 } })
const target = new URL(sandbox.url)

const faults = { error500: 0, reset: 0, stall: 0, garbage: 0 }
const agent = new Http.Agent({ keepAlive: true })
const proxy = Http.createServer((req, res) => {
  if (random() < FAULT_RATE) {
    const fault = pick(Object.keys(faults))
    faults[fault]++
    req.resume()
    if (fault === "error500")
      return res.writeHead(500, { "content-type": "application/json" }).end('{"error":"injected","trace":[]}')
    if (fault === "reset") return req.socket.destroy()
    if (fault === "garbage") return res.writeHead(200, { "content-type": "application/json" }).end("<html>oops")
    // stall: answer nothing until the client gives up
    return setTimeout(() => res.destroy(), TIMEOUT_MS + 1000)
  }
  const upstream = Http.request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    },
  )
  upstream.on("error", () => res.destroy())
  req.pipe(upstream)
})
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve))

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [ENTRY],
  env: {
    PATH: process.env.PATH ?? "",
    SVC_URL: `http://127.0.0.1:${proxy.address().port}`,
    SVC_API_KEY: sandbox.apiKey.key,
    SVC_API_SECRET: sandbox.apiKey.secret,
    SVC_TIMEOUT_MS: String(TIMEOUT_MS),
  },
  stderr: "ignore",
})
const client = new Client({ name: "soak", version: "1.0.0" })
await client.connect(transport)
const pid = transport.pid
const rssMb = () =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 102.4) / 10

let tag = 0
const calls = [
  () => ({ name: "svc_list", arguments: { resource_type: pick(["stack", "server", "deployment", "build", "tag"]) } }),
  () => ({
    name: "svc_get",
    arguments: { resource_type: "stack", params: { stack: pick(["web", "monitoring", "nope"]) } },
  }),
  () => ({ name: "svc_summary", arguments: { resource_type: pick(["stack", "deployment", "server"]) } }),
  () => ({ name: "svc_logs", arguments: { resource_type: "stack", params: { stack: "web", services: [], tail: 20 } } }),
  () => ({
    name: "svc_search_logs",
    arguments: { resource_type: "stack", query: "healthy", params: { stack: "web", services: [] } },
  }),
  () => ({
    name: "svc_inspect",
    arguments: { inspect_type: "container", params: { server: "prod-01", container: "web-web-1" } },
  }),
  () => ({
    name: "svc_list_detail",
    arguments: { list_type: pick(["containers", "updates", "images"]), params: { server: "prod-01" } },
  }),
  () => ({
    name: "svc_execute",
    arguments: { operation: pick(["restart_stack", "deploy_stack"]), params: { stack: "web" } },
  }),
  () => ({ name: "svc_create", arguments: { resource_type: "tag", params: { name: `soak-${tag++}` } } }),
  () => ({ name: "svc_delete", arguments: { resource_type: "tag", params: { id: `soak-${Math.max(0, tag - 1)}` } } }),
  () => ({ name: "svc_get", arguments: { resource_type: pick(["user", 42]), params: "bad" } }),
]

const outcomes = {}
const samples = []
let done = 0
let next = 0
const t0 = performance.now()
const worker = async () => {
  while (next < CALLS) {
    next++
    const call = pick(calls)()
    const kind = await client
      .callTool(call, undefined, { timeout: TIMEOUT_MS * 5 })
      .then((r) => (r.isError ? (r.structuredContent?.error?.kind ?? "error") : "ok"))
      .catch((e) => (e?.code === -32001 ? "NEVER ENDED" : "jsonrpc_error"))
    outcomes[kind] = (outcomes[kind] ?? 0) + 1
    done++
    if (done % SAMPLE_EVERY === 0) {
      samples.push({ calls: done, rssMb: rssMb(), seconds: Math.round((performance.now() - t0) / 100) / 10 })
      process.stderr.write(`soak: ${done} calls, RSS ${samples.at(-1).rssMb} MB\n`)
    }
  }
}
await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
const seconds = (performance.now() - t0) / 1000
await client.close()
proxy.close()
await sandbox.close()

const rss = samples.map((s) => s.rssMb)
const settled = rss.slice(Math.floor(rss.length / 2))
const growth = Math.round((Math.max(...settled) - Math.min(...settled)) * 10) / 10
const report = {
  date: new Date().toISOString(),
  calls: CALLS,
  inFlight: IN_FLIGHT,
  faultRate: FAULT_RATE,
  seconds: Math.round(seconds * 10) / 10,
  callsPerSecond: Math.round(CALLS / seconds),
  outcomes,
  faultsInjected: faults,
  rss: samples,
  rssGrowthOverSecondHalfMb: growth,
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
const neverEnded = outcomes["NEVER ENDED"] ?? 0
if (neverEnded > 0) process.stderr.write(`soak: FAILED: ${neverEnded} calls never ended\n`)
if (growth > 20) process.stderr.write(`soak: FAILED: RSS grew ${growth} MB over the second half\n`)
process.exit(neverEnded > 0 || growth > 20 ? 1 : 0)
