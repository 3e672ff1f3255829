#!/usr/bin/env node
/**
 * The benchmark's service double: answers every API call at once with a small
 * JSON body, checks credentials cheaply, issues one token per login and counts
 * logins. For the team figure it also takes TEAM_SIZE callers' keys
 * (team-key-N, team-secret-N), and counts each call whose body names another
 * caller than its key (`stack: "caller-N"`): a call served with another's key.
 * Given a file of estates (bench/estates.mjs: each read's answer as the sandbox sent it, per
 * estate), it serves them under the estate's name (`/large/read/ListStacks`), every other path
 * under it as without it: a list answered as the service answers it, at the echo's cost.
 * Prints its port on stdout, then serves until killed.
 */
import * as Fs from "node:fs"
import * as Http from "node:http"

const KEY = "bench-key"
const SECRET = "bench-secret"
const tokens = new Set()
let logins = 0
const TEAM_SIZE = 50
const team = new Map(Array.from({ length: TEAM_SIZE }, (_, i) => [`team-key-${i}`, { secret: `team-secret-${i}`, caller: `caller-${i}` }]))
let teamServed = 0
let teamMismatched = 0
const estates = Object.fromEntries(
  Object.entries(process.argv[2] === undefined ? {} : JSON.parse(Fs.readFileSync(process.argv[2], "utf8"))).map(
    ([name, answers]) => [name, Object.fromEntries(Object.entries(answers).map(([path, text]) => [path, Buffer.from(text)]))],
  ),
)
/** `/large/read/ListStacks` -> the large estate's answer, if taken; the path without the estate, if one is named. */
const fromEstate = (url) => {
  const slash = url.indexOf("/", 1)
  const estate = slash < 0 ? undefined : estates[url.slice(1, slash)]
  if (estate === undefined) return { path: url }
  const path = url.slice(slash)
  return { path, answer: estate[path.slice(1)] }
}

const server = Http.createServer((req, res) => {
  const { path, answer } = fromEstate(req.url)
  req.url = path
  const chunks = []
  req.on("data", (chunk) => chunks.push(chunk))
  req.on("end", () => {
    const send = (status, body) => {
      const text = JSON.stringify(body)
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
      res.end(text)
    }
    if (req.url === "/bench/logins") return send(200, { logins })
    // The version, unauthenticated as the service answers it: a server's /readyz reaches for it.
    if (req.method === "GET" && req.url === "/version") {
      res.writeHead(200, { "content-type": "text/plain" })
      return res.end("2.3.3")
    }
    if (req.url === "/bench/team") return send(200, { served: teamServed, mismatched: teamMismatched })
    const member = team.get(req.headers["x-api-key"])
    if (member !== undefined) {
      if (req.headers["x-api-secret"] !== member.secret) return send(401, { error: "Invalid API key or secret", trace: [] })
      let stack
      try {
        stack = JSON.parse(Buffer.concat(chunks).toString("utf8")).stack
      } catch {}
      teamServed++
      if (stack !== member.caller) teamMismatched++
      return send(200, { name: stack, info: { state: "running" }, config: { server_id: "prod-01" } })
    }
    if (req.url === "/auth/login/LoginLocalUser") {
      logins++
      const jwt = `eyJ.bench.${logins}`
      tokens.add(jwt)
      return send(200, { type: "Jwt", data: { jwt } })
    }
    const authorized = tokens.has(req.headers.authorization) || (req.headers["x-api-key"] === KEY && req.headers["x-api-secret"] === SECRET)
    if (!authorized) return send(500, { error: "Invalid user credentials", trace: [] })
    if (answer !== undefined) {
      res.writeHead(200, { "content-type": "application/json", "content-length": answer.length })
      return res.end(answer)
    }
    send(200, { name: "web", info: { state: "running" }, config: { server_id: "prod-01" } })
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`))
