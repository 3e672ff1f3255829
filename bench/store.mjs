#!/usr/bin/env node
/**
 * What the shared store adds to a confirmed call: the built server (per-request
 * mode, SVC_CONFIRM on deletes, one SVC_MCP_STATE_KEY) with SVC_MCP_STORE set to
 * a local redis-server, and without it, measured in alternation against the
 * bench's service double. A confirmed call is its two requests, the question and
 * the accepted answer, made one after the other by one client over a kept-alive
 * connection; the figure is the difference of the medians. Also the store's own
 * commands of a confirmed call (three SETs) through node-redis, as a floor.
 * `npm run bench` runs it too (storeFigure).
 *
 *   npm run build && node bench/store.mjs [--calls N] [--rounds N]
 *
 * Needs redis-server (Debian's package: `apt-get install -y redis-server`).
 * Prints a table and writes bench/store-results.json.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Path from "node:path"

const HERE = import.meta.dirname
const ROOT = Path.resolve(HERE, "..")
const PKG = JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8"))
const OURS = Path.join(ROOT, PKG.bin["svc-mcp"])
const option = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at < 0 ? fallback : Number(process.argv[at + 1])
}
const CALLS = option("--calls", 1000)
const ROUNDS = option("--rounds", 10)
const STATE_KEY = "bench-state-key-of-at-least-32-bytes-0123"

const freePort = () =>
  new Promise((resolve) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const waitFor = (child, pattern) =>
  new Promise((resolve, reject) => {
    let text = ""
    const read = (chunk) => {
      text += chunk.toString("utf8")
      const found = pattern.exec(text)
      if (found) resolve(found)
    }
    child.stdout?.on("data", read)
    child.stderr?.on("data", read)
    child.on("exit", (code) => reject(new Error(`exited (${code}): ${text}`)))
  })

const startRedis = async () => {
  const port = await freePort()
  const child = ChildProcess.spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  )
  await waitFor(child, /Ready to accept connections/)
  return { child, url: `redis://127.0.0.1:${port}` }
}

const startService = async () => {
  const child = ChildProcess.spawn(process.execPath, [Path.join(HERE, "echo-service.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
  })
  const [, port] = await waitFor(child, /(\d+)/)
  return { child, url: `http://127.0.0.1:${port}` }
}

const startServer = async (serviceUrl, storeUrl) => {
  const env = {
    PATH: process.env.PATH,
    SVC_URL: serviceUrl,
    SVC_MCP_CREDENTIALS: "per-request",
    SVC_CONFIRM: "svc_delete:*",
    SVC_MCP_STATE_KEY: STATE_KEY,
    SVC_MCP_HTTP_PORT: "0",
    ...(storeUrl === undefined ? {} : { SVC_MCP_STORE: storeUrl }),
  }
  const child = ChildProcess.spawn(process.execPath, [OURS], { env, stdio: ["ignore", "ignore", "pipe"] })
  const [, url] = await waitFor(child, /over HTTP at (http:\/\/\S+\/mcp)/)
  return { child, url }
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
}

// node:http with one kept-alive connection, each request written whole: fetch's separate writes of
// head and body meet the peer's delayed ACK, which alone would be tens of milliseconds a call.
const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
const post = (url, params) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: META } })
    const req = Http.request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": params.name,
          "x-svc-api-key": "bench-key",
          "x-svc-api-secret": "bench-secret",
        },
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk) => {
          text += chunk
        })
        res.on("end", () => resolve(JSON.parse(text).result))
      },
    )
    req.setNoDelay(true)
    req.on("error", reject)
    req.end(body)
  })

/** One confirmed call: the question, then the accepted answer; its time in ms. */
const confirmedCall = async (url, i) => {
  const call = { name: "svc_delete", arguments: { resource_type: "tag", params: { id: `t${i}` } } }
  const started = performance.now()
  const asked = await post(url, call)
  if (asked.resultType !== "input_required") throw new Error(`not asked: ${JSON.stringify(asked)}`)
  const done = await post(url, {
    ...call,
    inputResponses: { confirm: { action: "accept" } },
    requestState: asked.requestState,
  })
  if (done.isError) throw new Error(`refused: ${JSON.stringify(done)}`)
  return performance.now() - started
}

/** A process's CPU time so far, in ms (Linux: /proc/PID/stat, utime + stime in clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const fields = Fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}
const p90 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]

/** The figure: a confirmed call with and without the store, and the store's own commands. */
export const storeFigure = async ({ calls = CALLS, rounds = ROUNDS } = {}) => {
  const redis = await startRedis()
  const service = await startService()
  const servers = { without: await startServer(service.url), with: await startServer(service.url, redis.url) }
  const times = { without: [], with: [] }
  const cpu = { without: 0, with: 0 }
  let results
  try {
    // Warm both, then alternate blocks so that the machine's other load weighs on both alike.
    for (const server of Object.values(servers)) for (let i = 0; i < 50; i++) await confirmedCall(server.url, i)
    let n = 0
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 === 0 ? ["without", "with"] : ["with", "without"]) {
        const before = cpuMs(servers[name].child.pid)
        for (let i = 0; i < calls / rounds; i++) times[name].push(await confirmedCall(servers[name].url, n++))
        cpu[name] += cpuMs(servers[name].child.pid) - before
      }
    }
    // The store's own commands, as the server sends them, for the floor.
    const loaded = await import("redis")
    const createClient = loaded.createClient ?? loaded.default.createClient
    const client = createClient({ url: redis.url })
    await client.connect()
    const commands = []
    for (let i = 0; i < 2000; i++) {
      const started = performance.now()
      await client.sendCommand(["SET", `b:${i}`, "asked", "PX", "300000"])
      await client.sendCommand(["SET", `b:${i}`, "sending", "XX", "GET", "PX", "600000"])
      await client.sendCommand(["SET", `b:${i}`, "done", "XX", "GET", "PX", "600000"])
      commands.push(performance.now() - started)
    }
    await client.close()
    results = {
      at: new Date().toISOString(),
      node: process.version,
      calls: times.with.length,
      confirmedCallMs: {
        without: { median: median(times.without), p90: p90(times.without) },
        with: { median: median(times.with), p90: p90(times.with) },
      },
      addedMedianMs: median(times.with) - median(times.without),
      serverCpuPerConfirmedCallMs: { without: cpu.without / times.without.length, with: cpu.with / times.with.length },
      storeCommandsPerCallMs: { median: median(commands), p90: p90(commands) },
    }
  } finally {
    for (const child of [servers.without.child, servers.with.child, service.child, redis.child]) child.kill("SIGKILL")
}
return results
}

/** What it prints, run on its own. */
export const storeLines = (results) => {
  const f = (ms) => `${ms.toFixed(3)} ms`
  const perCall = results.serverCpuPerConfirmedCallMs
  return [
    `confirmed call (question + accepted answer), ${results.calls} each, one client, Node ${results.node}`,
    `  without the store   median ${f(results.confirmedCallMs.without.median)}   p90 ${f(results.confirmedCallMs.without.p90)}`,
    `  with the store      median ${f(results.confirmedCallMs.with.median)}   p90 ${f(results.confirmedCallMs.with.p90)}`,
    `  added at the median ${f(results.addedMedianMs)}`,
    `  server CPU per confirmed call: without ${f(perCall.without)}, with ${f(perCall.with)}`,
    `  the store commands of a confirmed call, alone: median ${f(results.storeCommandsPerCallMs.median)}`,
  ]
}

if (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === Path.join(HERE, "store.mjs")) {
  const results = await storeFigure()
  console.log(storeLines(results).join("\n"))
  Fs.writeFileSync(Path.join(HERE, "store-results.json"), `${JSON.stringify(results, null, 2)}\n`)
}
