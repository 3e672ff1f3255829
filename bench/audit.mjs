#!/usr/bin/env node
/**
 * What the audit log's write-ahead adds to a change: the built server over HTTP
 * with SVC_AUDIT_LOG (a file on the machine's disk, so each flush is a real
 * fdatasync) and without it, measured in alternated blocks against the bench's
 * service double. A change is `svc_create` of a tag: with the log, its intent is
 * written and flushed before it is sent, and its outcome after. Measured at 1
 * in flight (one client, one call after the other) and at 50 in flight (50
 * calls kept out at once, each one's own time), median and p99; and a read
 * (`svc_list`), which the log does not touch, at 1 in flight. On a shared, busy
 * machine the calls' own times spread by more than the log adds: so also the
 * write-ahead alone, as a change waits for it (dist/Audit/Writer.js: an intent
 * sealed, written and flushed), at 1 and at 50 in flight, beside a bare
 * write + fdatasync of a line, the device's own floor.
 *
 *   npm run build && node bench/audit.mjs [--calls N] [--rounds N]
 *
 * Prints a table and writes bench/audit-results.json.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"

const HERE = import.meta.dirname
const ROOT = Path.resolve(HERE, "..")
const PKG = JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8"))
const OURS = Path.join(ROOT, PKG.bin["svc-mcp"])
const option = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at < 0 ? fallback : Number(process.argv[at + 1])
}
const CALLS = option("--calls", 2000)
const ROUNDS = option("--rounds", 10)
const IN_FLIGHT = 50

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

const startService = async () => {
  const child = ChildProcess.spawn(process.execPath, [Path.join(HERE, "echo-service.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
  })
  const [, port] = await waitFor(child, /(\d+)/)
  return { child, url: `http://127.0.0.1:${port}` }
}

const startServer = async (serviceUrl, auditLog) => {
  const env = {
    PATH: process.env.PATH,
    SVC_URL: serviceUrl,
    SVC_API_KEY: "bench-key",
    SVC_API_SECRET: "bench-secret",
    SVC_MCP_HTTP_PORT: "0",
    ...(auditLog === undefined ? {} : { SVC_AUDIT_LOG: auditLog }),
  }
  const child = ChildProcess.spawn(process.execPath, [OURS], { env, stdio: ["ignore", "ignore", "pipe"] })
  const [, url] = await waitFor(child, /over HTTP at (http:\/\/\S+\/mcp)/)
  return { child, url, agent: new Http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT }) }
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
}

/** One tools/call over a kept-alive connection, written whole; its time in ms. */
const call = (server, params) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: META } })
    const started = performance.now()
    const req = Http.request(
      server.url,
      {
        method: "POST",
        agent: server.agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": params.name,
        },
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk) => {
          text += chunk
        })
        res.on("end", () => {
          const result = JSON.parse(text).result
          if (result?.isError) reject(new Error(`failed: ${text}`))
          else resolve(performance.now() - started)
        })
      },
    )
    req.setNoDelay(true)
    req.on("error", reject)
    req.end(body)
  })

const change = (i) => ({ name: "svc_create", arguments: { resource_type: "tag", params: { name: `t${i}` } } })
const read = { name: "svc_list", arguments: { resource_type: "tag" } }

/** `count` calls with `inFlight` of them out at once; each call's time. */
const block = async (server, count, inFlight, params) => {
  const times = []
  let next = 0
  const worker = async () => {
    while (next < count) times.push(await call(server, params(next++)))
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  return times
}

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]
const summary = (values) => ({ median: quantile(values, 0.5), p99: quantile(values, 0.99), n: values.length })

/** The intent's wait alone: `count` intents through the server's writer, `inFlight` at once; and the device's floor. */
const writerAlone = async (dir, count, inFlight) => {
  const { Writer } = await import(Path.join(ROOT, "dist/Audit/Writer.js"))
  const writer = Writer.open({ path: Path.join(dir, `alone-${inFlight}.log`), writer: "bench", key: undefined, checkpointMs: 0 })
  const fields = (i) => ({
    phase: "intent",
    time: new Date().toISOString(),
    caller: "server",
    who: "server",
    tool: "svc_create",
    selector: "tag",
    endpoint: "write/CreateTag",
    target: `t${i}`,
    params: { name: `t${i}` },
    paramsDigest: "sha256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  })
  const times = []
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      const started = performance.now()
      await writer.append(fields(i))
      times.push(performance.now() - started)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  await writer.close()
  return times
}

const deviceFloor = (dir, count) => {
  const fd = Fs.openSync(Path.join(dir, "floor.log"), "a")
  const line = `${"x".repeat(400)}\n`
  const times = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    Fs.writeSync(fd, line)
    Fs.fdatasyncSync(fd)
    times.push(performance.now() - started)
  }
  Fs.closeSync(fd)
  return times
}

export const auditFigure = async ({ calls = CALLS, rounds = ROUNDS } = {}) => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-bench-audit-"))
  const log = Path.join(dir, "audit.log")
  const service = await startService()
  const servers = { without: await startServer(service.url), with: await startServer(service.url, log) }
  const times = Object.fromEntries(
    ["without", "with"].map((name) => [name, { one: [], fifty: [], read: [] }]),
  )
  try {
    for (const server of Object.values(servers)) await block(server, 200, 10, change)
    const per = Math.max(1, Math.round(calls / rounds))
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 === 0 ? ["without", "with"] : ["with", "without"]) {
        const server = servers[name]
        times[name].one.push(...(await block(server, per, 1, (i) => change(round * per + i))))
        times[name].fifty.push(...(await block(server, per * 2, IN_FLIGHT, (i) => change(round * per * 2 + i))))
        times[name].read.push(...(await block(server, per, 1, () => read)))
      }
    }
    const lines = Fs.readFileSync(log, "utf8").split("\n").filter((line) => line !== "").length
    const alone = {
      one: summary(await writerAlone(dir, calls, 1)),
      fifty: summary(await writerAlone(dir, calls * 2, IN_FLIGHT)),
      floor: summary(deviceFloor(dir, calls)),
    }
    const figures = Object.fromEntries(
      Object.entries(times).map(([name, t]) => [name, { one: summary(t.one), fifty: summary(t.fifty), read: summary(t.read) }]),
    )
    const added = (kind, at) => figures.with[kind][at] - figures.without[kind][at]
    return {
      at: new Date().toISOString(),
      node: process.version,
      auditLines: lines,
      figures,
      writeAheadAloneMs: alone,
      addedMs: {
        one: { median: added("one", "median"), p99: added("one", "p99") },
        fifty: { median: added("fifty", "median"), p99: added("fifty", "p99") },
        read: { median: added("read", "median"), p99: added("read", "p99") },
      },
    }
  } finally {
    for (const child of [servers.without.child, servers.with.child, service.child]) child.kill("SIGKILL")
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

export const auditLines = (results) => {
  const f = (ms) => `${ms.toFixed(3)} ms`
  const row = (label, kind) =>
    `  ${label.padEnd(22)} without: median ${f(results.figures.without[kind].median)}, p99 ${f(results.figures.without[kind].p99)}; with: median ${f(results.figures.with[kind].median)}, p99 ${f(results.figures.with[kind].p99)}; added: median ${f(results.addedMs[kind].median)}, p99 ${f(results.addedMs[kind].p99)}`
  return [
    `the audit log's write-ahead, Node ${results.node}, ${results.figures.with.one.n} changes at 1 in flight and ${results.figures.with.fifty.n} at ${IN_FLIGHT} (${results.auditLines} audit lines)`,
    row("a change, 1 in flight", "one"),
    row(`a change, ${IN_FLIGHT} in flight`, "fifty"),
    row("a read, 1 in flight", "read"),
    `  the write-ahead alone (an intent sealed, written, flushed), as a change waits for it:`,
    `    1 in flight: median ${f(results.writeAheadAloneMs.one.median)}, p99 ${f(results.writeAheadAloneMs.one.p99)}; ${IN_FLIGHT} in flight: median ${f(results.writeAheadAloneMs.fifty.median)}, p99 ${f(results.writeAheadAloneMs.fifty.p99)}`,
    `    the device's floor, a bare write + fdatasync of a line: median ${f(results.writeAheadAloneMs.floor.median)}, p99 ${f(results.writeAheadAloneMs.floor.p99)}`,
  ]
}

if (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === Path.join(HERE, "audit.mjs")) {
  const results = await auditFigure()
  console.log(auditLines(results).join("\n"))
  Fs.writeFileSync(Path.join(HERE, "audit-results.json"), `${JSON.stringify(results, null, 2)}\n`)
}
