/**
 * Three replicas of the built server, each with its own audit file, sharing a
 * real redis-server (Debian's): each line also goes to the store's stream, so
 * that the three files verify together, and after one replica's file is lost
 * the other two with the stream still hold every line.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connect } from "../support/HttpMcp.js"
import * as Layers from "../support/Layers.js"
import * as Redis from "../support/Redis.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const STATE_KEY = "replicas-share-this-state-key-of-40-bytes"
const AUDIT_KEY = "the audit key the replicas share, 32+ bytes"

const linesOf = (path: string) =>
  Fs.readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")

describe("three replicas' audit logs and the store's stream", () => {
  it.scopedLive(
    "verify together, and the stream holds every line after one replica's file is lost",
    () =>
      Effect.gen(function* () {
        const redis = yield* Redis.scoped()
        const double = yield* Double.scoped(Layers.API_KEY)
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-audit-stream-"))
        const files = ["a", "b", "c"].map((name) => Path.join(dir, `${name}.log`))
        const env = {
          SVC_URL: double.url,
          SVC_API_KEY: Layers.KEY,
          SVC_API_SECRET: Layers.SECRET,
          SVC_MCP_STATE_KEY: STATE_KEY,
          SVC_MCP_STORE: redis.url,
          SVC_AUDIT_KEY: AUDIT_KEY,
        }
        const replicas = yield* Effect.all(
          files.map((file) => Spawn.serveHttp({ ...env, SVC_AUDIT_LOG: file })),
          { concurrency: "unbounded" },
        )
        for (const [index, replica] of replicas.entries()) {
          expect(replica.stderr()).toContain("each line also to the stream audit of the shared store")
          const client = yield* connect(replica.url)
          for (const name of ["one", "two"]) {
            yield* Effect.promise(() =>
              client.callTool({
                name: "svc_create",
                arguments: { resource_type: "tag", params: { name: `${name}-${index}` } },
              }),
            )
          }
        }
        // Each replica stops cleanly: its chain closes with a signed checkpoint, in its file and the stream.
        for (const replica of replicas) {
          replica.child.kill("SIGTERM")
          yield* Effect.promise(() => replica.exited)
        }
        const counts = files.map((file) => linesOf(file).length)
        // Per replica: two intents, two outcomes, the closing checkpoint.
        expect(counts).toEqual([5, 5, 5])
        const auditEnv = { SVC_AUDIT_KEY: AUDIT_KEY }
        const whole = yield* Spawn.run(auditEnv, ["audit", "verify", ...files])
        expect(whole.stderr).toMatch(/\nthe chains hold\n$/)
        expect(whole.stderr.match(/; closed at a clean stop/g)).toHaveLength(3)
        expect(whole.code).toBe(0)

        // Replica b's disk is lost.
        Fs.rmSync(files[1] as string)
        const withStream = yield* Spawn.run(auditEnv, [
          "audit",
          "verify",
          "--store",
          redis.url,
          files[0] as string,
          files[2] as string,
        ])
        expect(withStream.stderr).toContain("checkpoints signed and verified with SVC_AUDIT_KEY: 3")
        expect(withStream.stderr.match(/: 5 lines, seq 0 to 4; /g)).toHaveLength(3)
        expect(withStream.stderr).toMatch(/\nthe chains hold\n$/)
        expect(withStream.code).toBe(0)
        // The stream alone holds every line of the three.
        const streamOnly = yield* Spawn.run(auditEnv, ["audit", "verify", "--store", redis.url])
        expect(streamOnly.code).toBe(0)
        expect(streamOnly.stderr.match(/: 5 lines, seq 0 to 4; /g)).toHaveLength(3)
      }),
    // Three servers and three runs of verify: a busy machine takes its time.
    120_000,
  )
})
