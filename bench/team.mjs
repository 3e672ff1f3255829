/**
 * The team figure: HTTP, per-request credentials, TEAM callers each with its
 * own key and its own loopback address (127.0.0.2 ...), IN_FLIGHT calls in
 * flight over 2026-07-28 (stateless POSTs), against the bare SDK v2 server over
 * HTTP, alternated round by round. Each call names its caller in its params; the
 * service double counts any call whose key is another caller's.
 *
 * With a redis-server on the PATH it also measures three replicas sharing it
 * (SVC_MCP_STORE, one SVC_MCP_STATE_KEY), the calls dealt round robin over
 * them by the callers themselves, as a balancer without affinity would.
 */
import * as ChildProcess from "node:child_process"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Path from "node:path"

const TEAM = 50
const IN_FLIGHT = 200
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench-team", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
}

const now = () => Number(process.hrtime.bigint()) / 1e6
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** A server over HTTP on a free port, as it announces it (`entry` null: `node` is the program, with `env` its arguments). */
const start = (node, entry, env, announced) =>
  new Promise((resolve, reject) => {
    const child =
      entry === null
        ? ChildProcess.spawn(node, env, { stdio: ["ignore", "pipe", "pipe"] })
        : ChildProcess.spawn(node, [entry], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    const read = (chunk) => {
      out += String(chunk)
      const url = announced(out)
      if (url !== undefined) resolve({ child, url })
    }
    child.stdout.on("data", read)
    child.stderr.on("data", read)
    child.on("exit", (code) => reject(new Error(`${entry ?? node} exited (${code}): ${out}`)))
    child.on("error", reject)
  })

const one = ({ child, url }) => ({ children: [child], urls: [url] })

const agentOf = (address) => new Http.Agent({ keepAlive: true, localAddress: address })
const callers = Array.from({ length: TEAM }, (_, i) => ({
  key: `team-key-${i}`,
  secret: `team-secret-${i}`,
  address: `127.0.0.${2 + i}`,
  agent: agentOf(`127.0.0.${2 + i}`),
}))

const post = (url, caller, body) =>
  new Promise((resolve) => {
    const req = Http.request(
      url,
      {
        method: "POST",
        agent: caller.agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": body.params.name,
          "x-svc-api-key": caller.key,
          "x-svc-api-secret": caller.secret,
        },
      },
      (res) => {
        let text = ""
        res.on("data", (chunk) => {
          text += chunk
        })
        res.on("end", () => {
          try {
            const answer = JSON.parse(text)
            resolve(res.statusCode === 200 && answer.result !== undefined && answer.result.isError !== true)
          } catch {
            resolve(false)
          }
        })
      },
    )
    req.on("error", () => resolve(false))
    req.end(JSON.stringify(body))
  })

const burst = async (urls, callOf, total) => {
  let next = 0
  let errors = 0
  const worker = async () => {
    while (next < total) {
      const i = next++
      const caller = i % TEAM
      const body = { jsonrpc: "2.0", id: i, method: "tools/call", params: { ...callOf(caller), _meta: META } }
      if (!(await post(urls[i % urls.length], callers[caller], body))) errors++
    }
  }
  const t0 = now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return { callsPerSecond: Math.round(total / ((now() - t0) / 1000)), errors }
}

/** A redis-server without persistence on a free port, or undefined where there is none. */
const startRedis = async () => {
  const port = await new Promise((resolve) => {
    const server = Net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
  try {
    const { child } = await start(
      "redis-server",
      null,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      (out) => (/Ready to accept connections/.test(out) ? true : undefined),
    )
    return { child, url: `redis://127.0.0.1:${port}` }
  } catch {
    return undefined
  }
}

const STATE_KEY = "bench-team-state-key-of-at-least-32-bytes"

/** The figure, against the service double at `serviceUrl`. */
export const teamFigure = async ({ node, ours, here, serviceUrl, total, rounds }) => {
  const redis = await startRedis()
  const oursEnv = { SVC_URL: serviceUrl, SVC_MCP_CREDENTIALS: "per-request", SVC_MCP_HTTP_PORT: "0" }
  const announced = (out) => /over HTTP at (http:\/\/\S+\/mcp)/.exec(out)?.[1]
  const oursCall = (i) => ({ name: "svc_get", arguments: { resource_type: "stack", params: { stack: `caller-${i}` } } })
  const servers = {
    bare: {
      start: () =>
        start(node, Path.join(here, "bare-http-server.mjs"), { SVC_URL: serviceUrl }, (out) => {
          const port = /^(\d+)\n/.exec(out)?.[1]
          return port === undefined ? undefined : `http://127.0.0.1:${port}/mcp`
        }).then(one),
      call: (i) => ({ name: "call", arguments: { endpoint: "read/GetStack", params: { stack: `caller-${i}` } } }),
    },
    ours: { start: () => start(node, ours, oursEnv, announced).then(one), call: oursCall },
    ...(redis === undefined
      ? {}
      : {
          replicas: {
            start: () =>
              Promise.all(
                [0, 1, 2].map(() =>
                  start(node, ours, { ...oursEnv, SVC_MCP_STORE: redis.url, SVC_MCP_STATE_KEY: STATE_KEY }, announced),
                ),
              ).then((all) => ({ children: all.map((s) => s.child), urls: all.map((s) => s.url) })),
            call: oursCall,
          },
        }),
  }
  const before = await fetch(`${serviceUrl}/bench/team`).then((r) => r.json())
  const runs = Object.fromEntries(Object.keys(servers).map((which) => [which, []]))
  try {
    for (let round = 0; round < rounds; round++) {
      for (const which of Object.keys(servers)) {
        const { children, urls } = await servers[which].start()
        // Fresh connections for fresh servers: a kept-alive socket to a server of the round before
        // must not meet a new one that was given the same port.
        for (const caller of callers) {
          caller.agent.destroy()
          caller.agent = agentOf(caller.address)
        }
        await burst(urls, servers[which].call, IN_FLIGHT * 2)
        runs[which].push(await burst(urls, servers[which].call, total))
        for (const child of children) child.kill()
      }
    }
  } finally {
    redis?.child.kill()
  }
  const after = await fetch(`${serviceUrl}/bench/team`).then((r) => r.json())
  const summary = (xs) => ({
    callsPerSecond: median(xs.map((x) => x.callsPerSecond)),
    rounds: xs.map((x) => x.callsPerSecond),
    errors: xs.reduce((n, x) => n + x.errors, 0),
  })
  const bare = summary(runs.bare)
  const oursSummary = summary(runs.ours)
  const replicas = runs.replicas === undefined ? undefined : summary(runs.replicas)
  return {
    callers: TEAM,
    inFlight: IN_FLIGHT,
    callsPerRound: total,
    bare,
    ours: oursSummary,
    ratio: Math.round((oursSummary.callsPerSecond / bare.callsPerSecond) * 100) / 100,
    replicas:
      replicas === undefined
        ? { skipped: "no redis-server on the PATH" }
        : { ...replicas, ratio: Math.round((replicas.callsPerSecond / bare.callsPerSecond) * 100) / 100 },
    served: after.served - before.served,
    servedWithAnotherCallersKey: after.mismatched - before.mismatched,
  }
}
