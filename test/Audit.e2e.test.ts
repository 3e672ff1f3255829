/**
 * SVC_AUDIT_LOG: the built server's audit lines, written before each result
 * returns, with secrets redacted; refusals logged; a log that cannot be opened
 * stops the start, one that cannot be written fails the call and refuses the
 * next; SIGHUP reopens.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connect, textOf } from "./support/HttpMcp.js"
import * as Layers from "./support/Layers.js"
import * as Double from "./support/ServiceDouble.js"
import * as Spawn from "./support/Spawn.js"
import { until } from "./support/Wait.js"

const API_KEY = { apiKey: { key: Layers.KEY, secret: Layers.SECRET } }
const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })
const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-audit-"))
const linesOf = (path: string): Array<Record<string, unknown>> =>
  Fs.readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l))

describe("the audit log", () => {
  it.scopedLive("has one line per write or execute call, in the file before its result returns, secrets redacted", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(API_KEY)
      const path = Path.join(tempDir(), "audit.log")
      const server = yield* Spawn.serveHttp({ ...keyEnv(double.url), SVC_AUDIT_LOG: path, SVC_DENY: "svc_delete:*" })
      const client = yield* connect(server.url)
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))

      yield* call("svc_list", { resource_type: "stack" })
      expect(linesOf(path)).toEqual([])

      const created = yield* call("svc_create", {
        resource_type: "git_provider_account",
        params: {
          // The server's own secret, given as a value, is hidden like a credential field.
          account: { domain: "git.example.com", username: Layers.SECRET, token: "ghp_tokenvalue123" },
        },
      })
      expect(created.isError).toBeFalsy()
      // Read as soon as the result is in: the line was written before it was returned.
      const [first] = linesOf(path)
      expect(first).toMatchObject({
        caller: "server",
        tool: "svc_create",
        selector: "git_provider_account",
        endpoint: "write/CreateGitProviderAccount",
        params: { account: { domain: "git.example.com", username: "[redacted]", token: "[redacted]" } },
        outcome: "ok",
      })
      expect(typeof first?.durationMs).toBe("number")
      expect(Date.parse(String(first?.time))).toBeGreaterThan(Date.now() - 60_000)

      double.next("/execute/DeployStack", {
        status: 200,
        body: { _id: { $oid: "6650aa00bb11cc22dd33ee44" }, operation: "DeployStack", status: "Queued" },
      })
      yield* call("svc_execute", { operation: "deploy_stack", params: { stack: "web" } })
      expect(linesOf(path)[1]).toMatchObject({
        tool: "svc_execute",
        endpoint: "execute/DeployStack",
        target: "web",
        outcome: "ok",
        update: "6650aa00bb11cc22dd33ee44",
      })

      double.next("/write/UpdateStack", { status: 500, body: { error: "stack not found", trace: [] } })
      yield* call("svc_update", { resource_type: "stack", params: { id: "nope", config: {} } })
      expect(linesOf(path)[2]).toMatchObject({ target: "nope", outcome: "error", kind: "service_error", status: 500 })

      const denied = yield* call("svc_delete", { resource_type: "tag", params: { id: "t1" } })
      expect(denied.structuredContent).toMatchObject({ error: { kind: "denied" } })
      expect(linesOf(path)[3]).toMatchObject({
        tool: "svc_delete",
        selector: "tag",
        target: "t1",
        outcome: "refused",
        kind: "denied",
        reason: "denied by SVC_DENY (svc_delete:*)",
      })
      yield* call("svc_create", { resource_type: "tag", params: "not an object" })
      expect(linesOf(path)[4]).toMatchObject({ tool: "svc_create", outcome: "error", kind: "invalid_arguments" })
      expect(linesOf(path)).toHaveLength(5)
      const file = Fs.readFileSync(path, "utf8")
      expect(file).not.toContain(Layers.SECRET)
      expect(file).not.toContain("ghp_tokenvalue123")
    }),
  )

  it.scopedLive("reopens the file on SIGHUP, as logrotate needs", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(API_KEY)
      const path = Path.join(tempDir(), "audit.log")
      const server = yield* Spawn.serveHttp({ ...keyEnv(double.url), SVC_AUDIT_LOG: path })
      const client = yield* connect(server.url)
      const create = (name: string) =>
        Effect.promise(() =>
          client.callTool({ name: "svc_create", arguments: { resource_type: "tag", params: { name } } }),
        )
      yield* create("before")
      Fs.renameSync(path, `${path}.1`)
      yield* create("rotated")
      server.child.kill("SIGHUP")
      yield* until(() => server.stderr().includes("reopened"))
      yield* create("after")
      expect(linesOf(`${path}.1`).map((l) => l.target)).toEqual(["before", "rotated"])
      expect(linesOf(path).map((l) => l.target)).toEqual(["after"])
      expect(server.child.exitCode).toBeNull()
    }),
  )

  it.live("a path that cannot be opened stops the start with a clear message", () =>
    Effect.gen(function* () {
      const finished = yield* Spawn.run({
        ...keyEnv("http://127.0.0.1:9"),
        SVC_AUDIT_LOG: "/nonexistent-dir/audit.log",
      })
      expect(finished.code).toBe(2)
      expect(finished.stderr).toMatch(
        /svc-mcp: SVC_AUDIT_LOG names a file that cannot be opened for appending \(ENOENT\): check the path "\/nonexistent-dir\/audit.log"/,
      )
    }),
  )

  it.scopedLive("a log that cannot be written fails the call clearly, and refuses the next before sending", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(API_KEY)
      // Every write to /dev/full fails with ENOSPC, as on a full disk.
      const server = yield* Spawn.serveHttp({ ...keyEnv(double.url), SVC_AUDIT_LOG: "/dev/full" })
      const client = yield* connect(server.url)
      const create = () =>
        Effect.promise(() =>
          client.callTool({ name: "svc_create", arguments: { resource_type: "tag", params: { name: "x" } } }),
        )
      const first = yield* create()
      expect(first.isError).toBe(true)
      expect(textOf(first)).toMatch(/^the audit log \/dev\/full cannot be written \(ENOSPC\)/)
      expect(double.calls()).toHaveLength(1)
      const second = yield* create()
      expect(second.isError).toBe(true)
      expect(textOf(second)).toContain("ENOSPC")
      expect(double.calls()).toHaveLength(1)
      // Reads are not audited, so they go on.
      const read = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "tag" } }),
      )
      expect(read.isError).toBeFalsy()
    }),
  )
})
