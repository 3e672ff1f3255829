/**
 * No secret value in the audit log or the shared store's stream, against the built server over
 * HTTP with the sandbox and a real redis-server: a secret variable's new value, sent without
 * `is_secret` in the request, is recorded as a keyed digest in the intent, the outcome and the
 * stream alike, and the chain still verifies; a value never sent (asked of the user, or refused by
 * the policy) is a digest too, in a line that names its endpoint, and the question says it redacted.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createClient } from "redis"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Redis from "../support/Redis.js"
import * as Sandbox from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"
import * as TempDir from "../support/TempDir.js"

const NEW_VALUE = "n3w-db-passw0rd-only-the-service-may-hold"
const AUDIT_KEY = "the audit key of this test, 32 bytes and more"

/** Every line of every stream in the store, as text. */
const streamLines = async (url: string): Promise<Array<string>> => {
  const client = createClient({ url })
  await client.connect()
  try {
    const lines: Array<string> = []
    for (const key of await client.keys("*")) {
      if ((await client.type(key)) !== "stream") continue
      for (const entry of (await client.xRange(key, "-", "+")) ?? []) lines.push(JSON.stringify(entry.message))
    }
    return lines
  } finally {
    await client.quit()
  }
}

describe("a secret variable's new value in the audit", () => {
  it.scopedLive(
    "is a digest in the intent, the outcome and the store's stream, never the value",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.scoped()
        const redis = yield* Redis.scoped()
        const dir = yield* TempDir.scoped("svc-mcp-audit-secrets-")
        const file = Path.join(dir, "audit.log")
        const server = yield* Spawn.serveHttp({
          SVC_URL: sandbox.url,
          SVC_API_KEY: sandbox.apiKey.key,
          SVC_API_SECRET: sandbox.apiKey.secret,
          SVC_MCP_STORE: redis.url,
          SVC_MCP_STATE_KEY: "this test's state key, forty bytes or so",
          SVC_AUDIT_LOG: file,
          SVC_AUDIT_KEY: AUDIT_KEY,
        })
        const answer = yield* HttpMcp.modern(
          server.url,
          "tools/call",
          {
            name: "svc_update",
            arguments: { resource_type: "variable", params: { name: "DB_PASSWORD", value: NEW_VALUE } },
          },
          { meta: HttpMcp.modernMeta("audit-secrets") },
        )
        const result = answer.body.result
        expect(result.isError, JSON.stringify(result)).toBeFalsy()
        // The service did take the new value: the digest stands for what was sent.
        const read = yield* Effect.promise(() =>
          Sandbox.post(
            sandbox.url,
            "read/GetVariable",
            { name: "DB_PASSWORD" },
            {
              "x-api-key": sandbox.apiKey.key,
              "x-api-secret": sandbox.apiKey.secret,
            },
          ),
        )
        expect(JSON.stringify(read.body)).toContain(NEW_VALUE)

        // The stream is written off the call's path: wait for both lines to reach it.
        let stream: Array<string> = []
        for (let i = 0; i < 100 && stream.filter((l) => l.includes("UpdateVariableValue")).length < 2; i++) {
          stream = yield* Effect.promise(() => streamLines(redis.url))
          yield* Effect.sleep("50 millis")
        }
        // A clean stop closes the chain with a signed checkpoint.
        server.child.kill("SIGTERM")
        yield* Effect.promise(() => server.exited)
        const lines = Fs.readFileSync(file, "utf8").trim().split("\n")
        const ours = lines.filter((l) => l.includes("UpdateVariableValue"))
        expect(ours.map((l) => JSON.parse(l).phase).sort()).toEqual(["intent", "outcome"])
        expect(stream.filter((l) => l.includes("UpdateVariableValue"))).toHaveLength(2)
        for (const line of [...lines, ...stream]) expect(line).not.toContain(NEW_VALUE)
        expect(ours.join("\n")).toMatch(/\[secret hmac-sha256:[0-9a-f]+/)

        const verified = yield* Spawn.run({ SVC_AUDIT_KEY: AUDIT_KEY }, ["audit", "verify", file])
        expect(verified.stderr).toMatch(/\nthe chains hold\n$/)
        expect(verified.stderr).toMatch(/; closed at a clean stop/)
        expect(verified.code, verified.stderr).toBe(0)
      }),
    60_000,
  )

  it.scopedLive(
    "is a digest in the line of a call asked of the user or refused, which names its endpoint",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.scoped()
        const dir = yield* TempDir.scoped("svc-mcp-audit-secrets-")
        const file = Path.join(dir, "audit.log")
        const server = yield* Spawn.serveHttp({
          SVC_URL: sandbox.url,
          SVC_API_KEY: sandbox.apiKey.key,
          SVC_API_SECRET: sandbox.apiKey.secret,
          SVC_CONFIRM: "svc_update:variable",
          SVC_DENY: "svc_create:variable",
          SVC_AUDIT_LOG: file,
        })
        // A client that can be asked is asked; one that cannot is refused: both lines, nothing sent.
        const call = (name: string, conversation: string, capabilities = {}) =>
          HttpMcp.modern(
            server.url,
            "tools/call",
            { name, arguments: { resource_type: "variable", params: { name: "DB_PASSWORD", value: NEW_VALUE } } },
            { meta: HttpMcp.modernMeta(conversation, capabilities) },
          )
        const asked = yield* call("svc_update", "audit-secrets-asked", { elicitation: { form: {} } })
        const unasked = yield* call("svc_update", "audit-secrets-unasked")
        const refused = yield* call("svc_create", "audit-secrets-refused")
        expect(JSON.stringify(unasked.body.result)).toMatch(/confirm/)
        // The question says the value as an answer would: redacted, as its client may log it.
        expect(JSON.stringify(asked.body)).toMatch(/on name=\\"DB_PASSWORD\\", value=\[redacted\]/)
        expect(JSON.stringify(asked.body)).not.toContain(NEW_VALUE)
        expect(JSON.stringify(refused.body.result)).toMatch(/is refused/)
        server.child.kill("SIGTERM")
        yield* Effect.promise(() => server.exited)
        const text = Fs.readFileSync(file, "utf8")
        const lines = text
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line.phase !== "checkpoint")
        expect(
          lines.map((line) => [line.outcome, line.endpoint, line.sent]),
          JSON.stringify(asked.body),
        ).toEqual([
          ["asked", "write/UpdateVariableValue", false],
          ["refused", "write/UpdateVariableValue", false],
          ["refused", "write/CreateVariable", false],
        ])
        for (const line of lines)
          expect((line.params as { value?: unknown }).value).toMatch(/^\[secret hmac-sha256:[\w-]+/)
        expect(text).not.toContain(NEW_VALUE)
      }),
    60_000,
  )
})
