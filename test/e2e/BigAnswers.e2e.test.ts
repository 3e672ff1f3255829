/**
 * One huge answer cannot stall the server: the sandbox, in a process of its
 * own, answers a stack's log of 50 MB and of 200 MB (`tail: 1000000`); the
 * built server over HTTP reads it up to its byte cap, aborts the rest, and
 * answers within 10 s, cut and saying so, while `/healthz` answers within 1 s
 * and the server's resident memory stays under 400 MB at its peak.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

const CALL_BOUND_MS = 10_000
const HEALTH_BOUND_MS = 1_000
const RSS_BOUND_BYTES = 400 * 1024 * 1024
/** The sandbox keeps a log's last 5000 lines: each this long makes the answer's size. */
const LINES = 5000

const DIST = Path.resolve(import.meta.dirname, "../../dist/Sandbox")

/** The sandbox in a process of its own (its answer is built there), stack web's log `lineLength` wide. */
const sandboxWith = (lineLength: number) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const script = `
        import { start } from ${JSON.stringify(Path.join(DIST, "Server.js"))}
        import { logKey } from ${JSON.stringify(Path.join(DIST, "World/Lifecycle.js"))}
        const sandbox = await start({})
        const line = "worker | " + "x".repeat(${lineLength} - 9)
        const stack = sandbox.world.store.find("stack", "web")
        sandbox.world.log(logKey("stack", stack), "worker", ...new Array(${LINES}).fill(line))
        process.stdout.write(JSON.stringify({ url: sandbox.url, ...sandbox.apiKey }) + "\\n")
      `
      const child = ChildProcess.spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      })
      const started = await new Promise<{ url: string; key: string; secret: string }>((resolve, reject) => {
        let out = ""
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8")
          if (out.includes("\n")) resolve(JSON.parse(out.slice(0, out.indexOf("\n"))))
        })
        child.on("exit", (code) => reject(new Error(`the sandbox exited with ${code}`)))
      })
      return { child, ...started }
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL")),
  )

/** The peak resident memory of a process, from Linux's /proc. */
const peakRss = (pid: number): number => {
  const line = /VmHWM:\s+(\d+) kB/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))
  return Number(line?.[1] ?? Number.NaN) * 1024
}

for (const megabytes of [50, 200]) {
  describe(`a ${megabytes} MB answer`, () => {
    it.scopedLive(
      "is read up to the cap and cut, saying so, within 10 s; /healthz answers within 1 s; RSS stays under 400 MB",
      () =>
        Effect.gen(function* () {
          const sandbox = yield* sandboxWith((megabytes * 1_000_000) / LINES)
          const server = yield* Spawn.serveHttp({
            SVC_URL: sandbox.url,
            SVC_API_KEY: sandbox.key,
            SVC_API_SECRET: sandbox.secret,
          })
          const { client } = yield* Clients.overHttp(server.url, { name: "svc-mcp-big-answers", era: "modern" })
          const health = server.url.replace("/mcp", "/healthz")
          const slowest = { ms: 0, answered: 0 }
          let running = true
          const probe = (async () => {
            while (running) {
              const start = performance.now()
              const answer = await fetch(health)
              expect(answer.status).toBe(200)
              slowest.ms = Math.max(slowest.ms, performance.now() - start)
              slowest.answered++
              await new Promise((resolve) => setTimeout(resolve, 50))
            }
          })()
          const start = performance.now()
          const result = (yield* Effect.promise(() =>
            client.callTool({
              name: "svc_logs",
              arguments: { resource_type: "stack", params: { stack: "web", services: [], tail: 1_000_000 } },
            }),
          )) as Result
          const took = performance.now() - start
          running = false
          yield* Effect.promise(() => probe)
          const text = result.content[0]?.text ?? ""
          expect(result.isError, text.slice(0, 300)).toBeFalsy()
          expect(took).toBeLessThan(CALL_BOUND_MS)
          expect(slowest.answered).toBeGreaterThan(0)
          expect(slowest.ms).toBeLessThan(HEALTH_BOUND_MS)
          expect(peakRss(server.child.pid as number)).toBeLessThan(RSS_BOUND_BYTES)
          // Cut at the default cap (40 times the 50,000-character budget), said in the text and the structure.
          expect(text).toContain("the service's answer passed 2000000 bytes (SVC_MAX_ANSWER_BYTES) and was cut there")
          expect(text).toContain("params.tail (fewer lines)")
          expect(text).toContain("worker | xxxx")
          expect(text.length).toBeLessThanOrEqual(50_000)
          expect(result.structuredContent).toMatchObject({ truncated: true, cut_at_bytes: 2_000_000 })
        }),
      60_000,
    )
  })
}
