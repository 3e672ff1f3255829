/**
 * SVC_AUDIT_LOG: the built server's audit lines, a change's intent on the
 * device before it is sent and its outcome before its result returns, with
 * secrets redacted; refusals logged; a log that cannot be opened stops the
 * start, one that cannot be written stops each change unsent while reads go
 * on; SIGHUP reopens, and the chain goes on in the new file; a server killed
 * while a change is sent leaves its intent, which `audit verify` names.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { connect, textOf } from "../support/HttpMcp.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import { until } from "../support/Wait.js"

/** A secret value as the audit records it: its keyed digest, never the value. */
const DIGEST = /^\[secret hmac-sha256:[\w-]{22}\]$/

const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })
const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-audit-"))
const allLinesOf = (path: string): Array<Record<string, unknown>> =>
  Fs.readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l))
/** The lines a call ends with, as the log had them before intents and checkpoints. */
const linesOf = (path: string) => allLinesOf(path).filter((l) => l.phase !== "intent" && l.phase !== "checkpoint")
const verify = (files: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Spawn.run(env, ["audit", "verify", ...files])

describe("the audit log", () => {
  it.scopedLive("has one line per write or execute call, in the file before its result returns, secrets redacted", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
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
        params: {
          account: { domain: "git.example.com", username: "[redacted]", token: expect.stringMatching(DIGEST) },
        },
        outcome: "ok",
      })
      expect(typeof first?.durationMs).toBe("number")
      expect(Date.parse(String(first?.time))).toBeGreaterThan(Date.now() - 60_000)
      // Its intent came first, with who, what and the params' digest; the outcome names it.
      const [intent, outcome] = allLinesOf(path)
      expect(intent).toMatchObject({
        audit: 1,
        seq: 0,
        prev: "",
        phase: "intent",
        caller: "server",
        who: "server",
        tool: "svc_create",
        selector: "git_provider_account",
        endpoint: "write/CreateGitProviderAccount",
        params: {
          account: { domain: "git.example.com", username: "[redacted]", token: expect.stringMatching(DIGEST) },
        },
      })
      expect(String(intent?.paramsDigest)).toMatch(/^sha256:[\w-]{43}$/)
      expect(outcome).toMatchObject({ seq: 1, prev: intent?.hash, phase: "outcome", intent: 0, outcome: "ok" })
      expect(outcome?.writer).toBe(intent?.writer)

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
        sent: false,
        kind: "denied",
        reason: "denied by SVC_DENY (svc_delete:*)",
      })
      yield* call("svc_create", { resource_type: "tag", params: "not an object" })
      expect(linesOf(path)[4]).toMatchObject({
        tool: "svc_create",
        outcome: "refused",
        sent: false,
        kind: "invalid_arguments",
      })
      // Schema lookups send nothing and change nothing: no line.
      yield* call("svc_create", { resource_type: "tag", schema: true })
      yield* call("svc_execute", { operation: "run_server_prune_images", schema: true })
      expect(linesOf(path)).toHaveLength(5)
      // Three changes were sent, each with its intent; the refusal and the undecoded call sent nothing.
      expect(
        allLinesOf(path)
          .filter((l) => l.phase === "intent")
          .map((l) => l.tool),
      ).toEqual(["svc_create", "svc_execute", "svc_update"])
      const file = Fs.readFileSync(path, "utf8")
      expect(file).not.toContain(Layers.SECRET)
      expect(file).not.toContain("ghp_tokenvalue123")
      // While the server runs, its chain holds but is open: no clean stop has closed it.
      const running = yield* verify([path])
      expect(running.stderr).toContain("the chains hold up to their last checkpoints")
      expect(running.code).toBe(3)
    }),
  )

  it.scopedLive(
    "reopens the file on SIGHUP, as logrotate needs, and the chain goes on across the two files",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const path = Path.join(tempDir(), "audit.log")
        const keyFile = Path.join(Path.dirname(path), "audit.key")
        Fs.writeFileSync(keyFile, "a key of at least thirty-two bytes, for tests\n")
        const server = yield* Spawn.serveHttp({
          ...keyEnv(double.url),
          SVC_AUDIT_LOG: path,
          SVC_AUDIT_KEY_FILE: keyFile,
        })
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
        // The new file's first line follows the old file's last.
        const [firstAfter] = allLinesOf(path)
        const lastBefore = allLinesOf(`${path}.1`).at(-1)
        expect(firstAfter).toMatchObject({ seq: 4, prev: lastBefore?.hash, writer: lastBefore?.writer })
        // A clean stop closes the chain with a signed checkpoint.
        server.child.kill("SIGTERM")
        yield* Effect.promise(() => server.exited)
        expect(allLinesOf(path).at(-1)).toMatchObject({ phase: "checkpoint", final: true, mac: expect.any(String) })
        const verified = yield* verify([path, `${path}.1`], { SVC_AUDIT_KEY_FILE: keyFile })
        expect(verified.stderr).toContain("checkpoints signed and verified with SVC_AUDIT_KEY: 1")
        expect(verified.stderr).toContain("; closed at a clean stop\n")
        expect(verified.stderr).toMatch(/\nthe chains hold\n$/)
        expect(verified.code).toBe(0)
        // Without the older file, the start of the chain is missing.
        const partial = yield* verify([path])
        expect(partial.code).toBe(1)
        expect(partial.stderr).toContain(`first broken line: ${path}:1: the chain of writer`)
        // Edited after the fact: verify names the line.
        const text = Fs.readFileSync(`${path}.1`, "utf8")
        Fs.writeFileSync(`${path}.1`, text.replace('"target":"rotated"', '"target":"rotaTed"'))
        const edited = yield* verify([path, `${path}.1`], { SVC_AUDIT_KEY_FILE: keyFile })
        expect(edited.code).toBe(1)
        expect(edited.stderr).toContain(`first broken line: ${path}.1:3: its hash does not match its content`)
        // A file that cannot be read is said, with exit code 2.
        const missing = yield* verify([`${path}.2`])
        expect(missing.stderr).toBe(`svc-mcp: audit verify: ${path}.2 cannot be read (ENOENT)\n`)
        expect(missing.code).toBe(2)
      }),
    // Five runs of verify after the server's: a busy machine takes its time.
    60_000,
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

  it.scopedLive(
    "a log that cannot be written stops each change unsent, in words an assistant relays; reads go on",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        // Every write to /dev/full fails with ENOSPC, as on a full disk.
        const server = yield* Spawn.serveHttp({ ...keyEnv(double.url), SVC_AUDIT_LOG: "/dev/full" })
        const client = yield* connect(server.url)
        const create = () =>
          Effect.promise(() =>
            client.callTool({ name: "svc_create", arguments: { resource_type: "tag", params: { name: "x" } } }),
          )
        const changes = () => double.calls().filter((call) => !call.path.startsWith("/read/"))
        const first = yield* create()
        expect(first.isError).toBe(true)
        expect(textOf(first)).toMatch(
          /^the change was not made: the audit log \/dev\/full cannot be written \(ENOSPC\)\. Nothing was sent to the service/,
        )
        expect(changes()).toEqual([])
        const second = yield* create()
        expect(second.isError).toBe(true)
        expect(textOf(second)).toContain("the change was not made")
        expect(changes()).toEqual([])
        // Reads are not audited, so they go on.
        const read = yield* Effect.promise(() =>
          client.callTool({ name: "svc_list", arguments: { resource_type: "tag" } }),
        )
        expect(read.isError).toBeFalsy()
        expect(double.calls().filter((call) => call.path === "/read/ListTags")).toHaveLength(1)
      }),
  )

  it.scopedLive("a server killed while a change is sent leaves its intent, which verify lists as outcome unknown", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const path = Path.join(tempDir(), "audit.log")
      const server = yield* Spawn.serveHttp({ ...keyEnv(double.url), SVC_AUDIT_LOG: path })
      const client = yield* connect(server.url)
      // The service takes its time to answer the deletion: the server is killed meanwhile.
      double.next("/write/DeleteStack", { delayMs: 30_000 })
      const call = yield* Effect.promise(() =>
        client.callTool({ name: "svc_delete", arguments: { resource_type: "stack", params: { id: "web" } } }),
      ).pipe(Effect.fork)
      yield* until(() => double.calls().some((c) => c.path === "/write/DeleteStack"))
      server.child.kill("SIGKILL")
      yield* Effect.promise(() => server.exited)
      yield* Fiber.interrupt(call)
      expect(allLinesOf(path)).toEqual([
        expect.objectContaining({ phase: "intent", tool: "svc_delete", selector: "stack", target: "web" }),
      ])
      const verified = yield* verify([path])
      expect(verified.code).toBe(3)
      expect(verified.stderr).toMatch(
        new RegExp(
          `outcome unknown \\(an intent with no outcome[^\\n]*: 1\\n  ${path}:1: \\S+ server svc_delete stack web`,
        ),
      )
    }),
  )
})
