import * as ChildProcess from "node:child_process"
import * as Http from "node:http"
const withStore = process.argv[2] === "with"
const wait = (child, re) => new Promise((res) => { let t = ""; const f = (c) => { t += c; const m = re.exec(t); if (m) res(m) }; child.stdout?.on("data", f); child.stderr?.on("data", f) })
const redis = ChildProcess.spawn("redis-server", ["--port", "6391", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] })
await wait(redis, /Ready to accept/)
const svc = ChildProcess.spawn(process.execPath, ["bench/echo-service.mjs"], { stdio: ["ignore", "pipe", "inherit"] })
const [, sport] = await wait(svc, /(\d+)/)
const srv = ChildProcess.spawn(process.execPath, ["--cpu-prof", "--cpu-prof-dir=/tmp/sprof-" + process.argv[2], "dist/svc-mcp.js"], { env: { PATH: process.env.PATH, SVC_URL: `http://127.0.0.1:${sport}`, SVC_MCP_CREDENTIALS: "per-request", SVC_CONFIRM: "svc_delete:*", SVC_MCP_STATE_KEY: "bench-state-key-of-at-least-32-bytes-0123", SVC_MCP_HTTP_PORT: "0", ...(withStore ? { SVC_MCP_STORE: "redis://127.0.0.1:6391" } : {}) }, stdio: ["ignore", "ignore", "pipe"] })
const [, url] = await wait(srv, /over HTTP at (http:\/\/\S+\/mcp)/)
const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" }, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } }
const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
const post = (params) => new Promise((resolve, reject) => { const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: META } }); const req = Http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": params.name, "x-svc-api-key": "bench-key", "x-svc-api-secret": "bench-secret" } }, (res) => { let t = ""; res.on("data", (c) => (t += c)); res.on("end", () => resolve(JSON.parse(t).result)) }); req.on("error", reject); req.end(body) })
const one = async (i) => { const call = { name: "svc_delete", arguments: { resource_type: "tag", params: { id: `t${i}` } } }; const asked = await post(call); const done = await post({ ...call, inputResponses: { confirm: { action: "accept" } }, requestState: asked.requestState }); if (done.isError) console.log("refused", JSON.stringify(done).slice(0, 200)) }
const t = performance.now()
for (let i = 0; i < 1500; i++) await one(i)
console.log(process.argv[2], (performance.now() - t) / 1500, "ms per confirmed call")
srv.kill("SIGINT"); await new Promise((r) => srv.on("exit", r)); svc.kill(); redis.kill()
