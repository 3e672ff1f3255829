#!/usr/bin/env node
/**
 * The benchmark's service double: answers every API call at once with a small
 * JSON body, checks credentials cheaply, issues one token per login and counts
 * logins. Prints its port on stdout, then serves until killed.
 */
import * as Http from "node:http"

const KEY = "bench-key"
const SECRET = "bench-secret"
const tokens = new Set()
let logins = 0

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
