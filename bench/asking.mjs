#!/usr/bin/env node
/**
 * A question's round trip over HTTP for a 2025-era client (2025-11-25, SVC_CONFIRM
 * on svc_delete): from the tools/call POST to the question on its event stream
 * (the server reads the target to word the plan, and seals the state), and from
 * the answer's POST to the result on that stream (the answer routed to the
 * waiting call, the call sent). Measured against one replica, and, where
 * redis-server is on the PATH, against two replicas sharing it, the answer
 * POSTed to the replica that did not ask (routed through the store, which the
 * waiting replica reads every 100 ms). Prints and returns medians and p99s in ms.
 * Builds nothing: run `npm run build` first.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"

const HERE = import.meta.dirname
const ROOT = Path.resolve(HERE, "..")
const OURS = Path.join(ROOT, JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8")).bin["svc-mcp"])
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

const freePort = () =>
  new Promise((resolve) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const started = (command, args, env, pattern) =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    const look = (chunk) => {
      out += chunk.toString("utf8")
      const found = pattern.exec(out)
      if (found !== null) resolve({ child, match: found[1] })
    }
    child.stdout.on("data", look)
    child.stderr.on("data", look)
    child.on("exit", () => reject(new Error(`${command} exited: ${out}`)))
  })

/** The messages of one POST's event stream, one by one. */
const messages = (response) => {
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  return async () => {
    for (;;) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("")
        buffer = buffer.slice(end + 2)
        if (data !== "") return JSON.parse(data)
        continue
      }
      const { done, value } = await reader.read()
      if (done) return undefined
      buffer += decoder.decode(value, { stream: true })
    }
  }
}

const initialize = async (url) => {
  const response = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "bench", version: "1" } },
    }),
  })
  await response.text()
  return { ...HEADERS, "mcp-protocol-version": "2025-11-25", "mcp-session-id": response.headers.get("mcp-session-id") }
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100) / 100
}

/** `n` questions asked through `askUrl`, each answered through `answerUrl`. */
const roundTrips = async (askUrl, answerUrl, n) => {
  const headers = await initialize(askUrl)
  const asking = []
  const answering = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const response = await fetch(askUrl, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "svc_delete", arguments: { resource_type: "tag", params: { id: `t${i}` } } },
      }),
    })
    const next = messages(response)
    const question = await next()
    const t1 = performance.now()
    const answered = await fetch(answerUrl, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: {} } }),
    })
    await answered.text()
    const result = await next()
    const t2 = performance.now()
    if (result?.result?.isError !== false && result?.result?.isError !== undefined) throw new Error(JSON.stringify(result))
    asking.push(t1 - t0)
    answering.push(t2 - t1)
  }
  return {
    questionMs: { median: quantile(asking, 0.5), p99: quantile(asking, 0.99) },
    answerToResultMs: { median: quantile(answering, 0.5), p99: quantile(answering, 0.99) },
  }
}

export const askingFigure = async ({ quick = false } = {}) => {
  const n = quick ? 30 : 200
  const service = await started(process.execPath, [Path.join(HERE, "echo-service.mjs")], {}, /^(\d+)\n/)
  const env = {
    SVC_URL: `http://127.0.0.1:${service.match}`,
    SVC_API_KEY: "bench-key",
    SVC_API_SECRET: "bench-secret",
    SVC_CONFIRM: "svc_delete:*",
    SVC_MCP_HTTP_PORT: "0",
    SVC_MCP_STATE_KEY: "bench-state-key-of-forty-bytes-or-more-000",
  }
  const children = [service.child]
  try {
    const one = await started(process.execPath, [OURS], env, /over HTTP at (http:\/\/\S+\/mcp)/)
    children.push(one.child)
    await roundTrips(one.match, one.match, 10)
    const single = await roundTrips(one.match, one.match, n)
    let replicas
    if (ChildProcess.spawnSync("redis-server", ["--version"]).status === 0) {
      const port = await freePort()
      const redis = await started(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        {},
        /(Ready) to accept connections/,
      )
      children.push(redis.child)
      const shared = { ...env, SVC_MCP_STORE: `redis://127.0.0.1:${port}` }
      const a = await started(process.execPath, [OURS], shared, /over HTTP at (http:\/\/\S+\/mcp)/)
      const b = await started(process.execPath, [OURS], shared, /over HTTP at (http:\/\/\S+\/mcp)/)
      children.push(a.child, b.child)
      await roundTrips(a.match, b.match, 10)
      replicas = await roundTrips(a.match, b.match, quick ? 20 : 100)
    }
    return { single, replicas }
  } finally {
    for (const child of children) child.kill("SIGKILL")
  }
}

export const askingLines = (figure) => [
  "A 2025-era client asked over HTTP (SVC_CONFIRM, 2025-11-25), median / p99 ms:",
  `  one replica: call to question ${figure.single.questionMs.median} / ${figure.single.questionMs.p99}; answer to result ${figure.single.answerToResultMs.median} / ${figure.single.answerToResultMs.p99}`,
  figure.replicas === undefined
    ? "  two replicas: not measured (no redis-server on the PATH)"
    : `  two replicas, the answer on the other one: call to question ${figure.replicas.questionMs.median} / ${figure.replicas.questionMs.p99}; answer to result ${figure.replicas.answerToResultMs.median} / ${figure.replicas.answerToResultMs.p99}`,
]

if (import.meta.url === `file://${process.argv[1]}`) {
  const figure = await askingFigure({ quick: process.argv.includes("--quick") })
  process.stdout.write(`${askingLines(figure).join("\n")}\n`)
}
