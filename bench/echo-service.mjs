#!/usr/bin/env node
/**
 * The benchmark's service double: answers every API call at once with a small
 * JSON body, checks credentials cheaply, issues one token per login and counts
 * logins. For the team figure it also takes TEAM_SIZE callers' keys
 * (team-key-N, team-secret-N), and counts each call whose body names another
 * caller than its key (`stack: "caller-N"`): a call served with another's key.
 * Prints its port on stdout, then serves until killed.
 */
import * as Http from "node:http"

const KEY = "bench-key"
const SECRET = "bench-secret"
const tokens = new Set()
let logins = 0
const TEAM_SIZE = 50
const team = new Map(Array.from({ length: TEAM_SIZE }, (_, i) => [`team-key-${i}`, { secret: `team-secret-${i}`, caller: `caller-${i}` }]))
let teamServed = 0
let teamMismatched = 0

const server = Http.createServer((req, res) => {
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
    send(200, { name: "web", info: { state: "running" }, config: { server_id: "prod-01" } })
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`))
