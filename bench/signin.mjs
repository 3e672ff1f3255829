#!/usr/bin/env node
/**
 * The cost of checking a sign-in token with a warm JWKS: the built verifier
 * (dist/SignIn/Verifier.js, as the server runs it, through Effect), against a
 * JWKS served on 127.0.0.1, per algorithm: a client's token on every call (its
 * check remembered until it expires), and tokens each seen for the first time
 * (signature and claims checked). Prints µs per call and per first check, and
 * returns them (bench/run.mjs reports them); the target is at most 100 µs per
 * call. Builds nothing: run `npm run build` first.
 */
import * as Http from "node:http"
import { pathToFileURL } from "node:url"
import * as Effect from "effect/Effect"
import * as Jose from "jose"
import { load } from "./built.mjs"

const { make } = await load("SignIn/Verifier.js")

const AUDIENCE = "https://svc-mcp.example.test/mcp"
const ALGORITHMS = ["RS256", "ES256", "EdDSA"]

/** `calls`, `warm` and `fresh` fewer than the bench's only to try the script (test/unit/BenchScripts.test.ts). */
export const signInFigure = async ({
  quick = false,
  calls = quick ? 2000 : 20000,
  warm = 500,
  fresh: freshCount = quick ? 100 : 500,
} = {}) => {
  const keys = await Promise.all(
    ALGORITHMS.map(async (alg) => {
      const pair = await Jose.generateKeyPair(alg, { extractable: true })
      return { alg, pair, jwk: { ...(await Jose.exportJWK(pair.publicKey)), kid: `bench-${alg}`, alg, use: "sig" } }
    }),
  )
  const server = Http.createServer((req, res) => {
    const body =
      req.url === "/jwks"
        ? { keys: keys.map((key) => key.jwk) }
        : { issuer, jwks_uri: `${issuer}/jwks` }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${server.address().port}`
  const verifier = await Effect.runPromise(make({ issuers: [issuer], audience: AUDIENCE }))
  const figures = {}
  for (const { alg, pair } of keys) {
    const now = Math.floor(Date.now() / 1000)
    const sign = (jti) =>
      new Jose.SignJWT({ scope: "svc.read", email: "alice@example.com", jti })
        .setProtectedHeader({ alg, kid: `bench-${alg}`, typ: "at+jwt" })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .setSubject("alice")
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(pair.privateKey)
    const token = await sign("bench")
    // Warm: the JWKS fetched, the key imported, the code compiled.
    for (let i = 0; i < warm; i++) await Effect.runPromise(verifier.verify(token))
    const started = process.hrtime.bigint()
    for (let i = 0; i < calls; i++) await Effect.runPromise(verifier.verify(token))
    const perCall = Number(process.hrtime.bigint() - started) / 1000 / calls
    // A token seen for the first time: its signature and claims checked.
    const fresh = await Promise.all(Array.from({ length: freshCount }, (_, i) => sign(`fresh-${i}`)))
    const first = process.hrtime.bigint()
    for (const t of fresh) await Effect.runPromise(verifier.verify(t))
    const perToken = Number(process.hrtime.bigint() - first) / 1000 / fresh.length
    figures[alg] = { perCall: Math.round(perCall * 10) / 10, firstCheck: Math.round(perToken) }
  }
  server.close()
  return figures
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const figures = await signInFigure({ quick: process.argv.includes("--quick") })
  for (const [alg, { perCall, firstCheck }] of Object.entries(figures)) {
    console.log(
      `sign-in, warm JWKS, ${alg.padEnd(5)}: ${perCall} µs per call (target ≤ 100); a token's first check ${firstCheck} µs`,
    )
  }
}
