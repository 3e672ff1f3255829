#!/usr/bin/env node
/**
 * The image's figures (`npm run bench:image`, root, podman; after `npm run build`):
 * - its size;
 * - its cold start: from `podman run` to the first answered tools/list (2026-07-28,
 *   over HTTP, on the sandbox), beside the same built server started on the host;
 * - calls/s through deploy/compose (HAProxy, three replicas, Redis) beside one
 *   replica started on the host without a container, both in front of the
 *   benchmark's service double (bench/echo-service.mjs), IN_FLIGHT calls in
 *   flight, per-request credentials, for SECONDS each, alternated ROUNDS times.
 * Writes bench/image-results.json.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "..")
const IMAGE = "svc-mcp:local"
const TOKEN = "bench-image-token-of-forty-characters-00"
const STARTS = 5
const ROUNDS = 2
const SECONDS = 8
const IN_FLIGHT = 32
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench-image", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
}

const now = () => Number(process.hrtime.bigint()) / 1e6
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const say = (line) => process.stderr.write(`bench:image: ${line}\n`)

const podman = (args, options = {}) => {
  const result = ChildProcess.spawnSync("podman", args, { encoding: "utf8", ...options })
  if (result.status !== 0) throw new Error(`podman ${args.join(" ")}: ${result.stderr}`)
  return result.stdout.trim()
}

const agent = new Http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT })
const post = (url, body, headers = {}) =>
  new Promise((resolve) => {
    const req = Http.request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (res) => {
        let text = ""
        res.on("data", (chunk) => {
          text += chunk
        })
        res.on("end", () => resolve({ status: res.statusCode, text }))
      },
    )
    req.on("error", () => resolve({ status: 0, text: "" }))
    req.end(JSON.stringify(body))
  })

const CALLER = { "x-svc-api-key": "bench-key", "x-svc-api-secret": "bench-secret" }
const toolsList = (url, headers = {}) =>
  post(
    url,
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } },
    { "mcp-method": "tools/list", ...headers },
  )
const listed = (answer) => answer.status === 200 && answer.text.includes('"svc_list"')

/** Milliseconds from `start()` to the first tools/list answered with the tools. */
const coldStart = async (start, urlOf) => {
  const began = now()
  const handle = start()
  const url = await urlOf(handle)
  for (;;) {
    if (listed(await toolsList(url))) return { ms: now() - began, handle }
    if (now() - began > 60_000) throw new Error(`no tools/list answered at ${url} within 60 s`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const freePort = () =>
  new Promise((resolve) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** Calls answered per second, IN_FLIGHT at a time, for SECONDS. */
const throughput = async (url) => {
  let done = 0
  let failed = 0
  const end = now() + SECONDS * 1000
  const worker = async (w) => {
    for (let i = 0; now() < end; i++) {
      const body = {
        jsonrpc: "2.0",
        id: i,
        method: "tools/call",
        params: { name: "svc_get", arguments: { resource_type: "stack", params: { stack: `s-${w}` } }, _meta: META },
      }
      const answer = await post(url, body, { ...CALLER, "mcp-method": "tools/call", "mcp-name": "svc_get" })
      if (answer.status === 200 && !answer.text.includes('"isError":true')) done++
      else failed++
    }
  }
  const began = now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, w) => worker(w)))
  return { perSecond: Math.round(done / ((now() - began) / 1000)), failed }
}

// The image and its bases, as the tests make them.
ChildProcess.execFileSync(process.execPath, [Path.join(ROOT, "scripts/image.mjs"), "--compose", "--no-build"], {
  stdio: ["ignore", "ignore", "inherit"],
})
const size = Number(podman(["image", "inspect", "--format", "{{.Size}}", IMAGE]))
say(`${IMAGE}: ${(size / 1e6).toFixed(1)} MB`)

const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-bench-image-"))
const children = []
const cleanup = []
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
  for (const step of cleanup.reverse()) step()
  Fs.rmSync(work, { recursive: true, force: true })
})
Fs.writeFileSync(Path.join(work, "mcp-token"), `${TOKEN}\n`, { mode: 0o644 })

// Cold starts: the container, then the host, alternated.
const container = []
const host = []
for (let i = 0; i < STARTS; i++) {
  const name = `svc-mcp-bench-cold-${process.pid}-${i}`
  const port = await freePort()
  const inContainer = await coldStart(
    () =>
      ChildProcess.spawn(
        "podman",
        ["run", "-d", "--rm", "--name", name, "--read-only", "-p", `127.0.0.1:${port}:8765`]
          .concat(["-v", `${Path.join(work, "mcp-token")}:/run/secrets/mcp-token:ro`])
          .concat(["-e", "SVC_MCP_TOKEN_FILE=/run/secrets/mcp-token", IMAGE, "--sandbox"]),
        { stdio: "ignore" },
      ),
    async () => `http://127.0.0.1:${port}/mcp`,
  )
  container.push(inContainer.ms)
  podman(["rm", "--force", "--time", "0", name])
  const hostPort = await freePort()
  const onHost = await coldStart(
    () => {
      const child = ChildProcess.spawn(process.execPath, [Path.join(ROOT, "dist/svc-mcp.js"), "--sandbox"], {
        env: { PATH: process.env.PATH, SVC_MCP_HTTP_PORT: String(hostPort), SVC_MCP_TOKEN: TOKEN },
        stdio: "ignore",
      })
      children.push(child)
      return child
    },
    async () => `http://127.0.0.1:${hostPort}/mcp`,
  )
  host.push(onHost.ms)
  onHost.handle.kill("SIGKILL")
}
say(`cold start to the first tools/list: container ${median(container).toFixed(0)} ms, host ${median(host).toFixed(0)} ms`)

// The service double, on loopback, and a way to it from the containers.
const echo = ChildProcess.spawn(process.execPath, [Path.join(ROOT, "bench/echo-service.mjs")], {
  stdio: ["ignore", "pipe", "ignore"],
})
children.push(echo)
const echoPort = await new Promise((resolve) => echo.stdout.once("data", (chunk) => resolve(Number(String(chunk)))))
const forwarder = Net.createServer((inbound) => {
  const outbound = Net.connect(echoPort, "127.0.0.1")
  inbound.on("error", () => outbound.destroy())
  outbound.on("error", () => inbound.destroy())
  inbound.pipe(outbound).pipe(inbound)
})
await new Promise((resolve) => forwarder.listen(0, "0.0.0.0", resolve))
forwarder.unref()

// deploy/compose as shipped, beside its secrets.
for (const file of ["compose.yaml", "haproxy.cfg"]) {
  Fs.copyFileSync(Path.join(ROOT, "deploy/compose", file), Path.join(work, file))
}
Fs.writeFileSync(Path.join(work, "state-key"), "bench-replicas-share-this-state-key-of-48-bytes!\n", { mode: 0o644 })
Fs.writeFileSync(Path.join(work, "store-password"), "bench-store-password\n", { mode: 0o644 })
const project = `svc-mcp-bench-${process.pid}`
const balancerPort = await freePort()
const compose = (args) =>
  ChildProcess.spawnSync("podman-compose", ["--project-name", project, "--file", Path.join(work, "compose.yaml"), ...args], {
    cwd: work,
    env: {
      ...process.env,
      SVC_URL: `http://host.containers.internal:${forwarder.address().port}`,
      MCP_PORT: String(balancerPort),
    },
    stdio: "ignore",
  })
cleanup.push(() => {
  const ids = podman(["ps", "-aq", "--filter", `label=io.podman.compose.project=${project}`])
  if (ids !== "") podman(["rm", "--force", "--time", "0", ...ids.split("\n")])
  ChildProcess.spawnSync("podman", ["network", "rm", "--force", `${project}_default`], { stdio: "ignore" })
})
compose(["up", "--detach"])
const balancer = `http://127.0.0.1:${balancerPort}/mcp`
for (let ready = 0; ready < 6; ) {
  const status = await fetch(balancer.replace(/\/mcp$/, "/readyz")).then(
    (answer) => answer.status,
    () => 0,
  )
  ready = status === 200 ? ready + 1 : 0
  if (ready === 0) await new Promise((resolve) => setTimeout(resolve, 500))
}
// Three healthy replicas behind the balancer (its checks run every 2 s).
await new Promise((resolve) => setTimeout(resolve, 4000))

const replicaPort = await freePort()
const replica = ChildProcess.spawn(process.execPath, [Path.join(ROOT, "dist/svc-mcp.js")], {
  env: {
    PATH: process.env.PATH,
    SVC_URL: `http://127.0.0.1:${echoPort}`,
    SVC_MCP_CREDENTIALS: "per-request",
    SVC_MCP_HTTP_PORT: String(replicaPort),
    SVC_MCP_TOKEN: TOKEN,
  },
  stdio: "ignore",
})
children.push(replica)
const single = `http://127.0.0.1:${replicaPort}/mcp`
for (const began = now(); !listed(await toolsList(single, CALLER)); ) {
  if (now() - began > 30_000) throw new Error("the replica on the host did not answer")
  await new Promise((resolve) => setTimeout(resolve, 50))
}

const through = []
const alone = []
for (let round = 0; round < ROUNDS; round++) {
  through.push(await throughput(balancer))
  alone.push(await throughput(single))
}
say(
  `calls/s: Compose's balancer ${through.map((r) => r.perSecond).join(", ")}; one replica on the host ${alone.map((r) => r.perSecond).join(", ")}`,
)

const results = {
  machine: { cpus: Os.availableParallelism(), node: process.version, podman: podman(["--version"]) },
  image: { name: IMAGE, bytes: size },
  coldStartMs: { container: container.map(Math.round), host: host.map(Math.round) },
  callsPerSecond: {
    inFlight: IN_FLIGHT,
    seconds: SECONDS,
    composeBalancer: through,
    oneReplicaOnHost: alone,
  },
}
Fs.writeFileSync(Path.join(ROOT, "bench/image-results.json"), `${JSON.stringify(results, null, 2)}\n`)
process.exit(0)
