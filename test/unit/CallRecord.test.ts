/**
 * The audit lines of calls that do not end in an answer: cancelled (after its
 * intent), declined by the user; and a per-request caller named by its key,
 * its secret scrubbed.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Auth from "../../src/Auth.js"
import * as Audit from "../../src/Operations/Audit.js"
import * as CallRecord from "../../src/Operations/CallRecord.js"
import * as CallerCredentials from "../../src/Service/CallerCredentials.js"
import { DEFAULT_SETTINGS } from "../../src/Settings/Policy.js"
import * as Definitions from "../../src/Tools/Definitions.js"
import { resolveCall } from "../../src/Tools/Invoke.js"
import * as Policy from "../../src/Tools/Policy.js"
import { ToolDeniedError } from "../../src/Tools/ToolError.js"

const auditTo = (path: string) =>
  Layer.mergeAll(
    Layer.scoped(Audit.Audit, Effect.map(Audit.open(path), Option.some)),
    Layer.succeed(Auth.Auth, Auth.perRequest),
    Layer.effect(Policy.Policy, Policy.make(DEFAULT_SETTINGS)).pipe(Layer.orDie),
  )

const linesOf = (path: string) =>
  Fs.readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe("the call record with an audit log", () => {
  it.scoped("logs a cancelled call as cancelled, and a declined one as declined, as its caller", () =>
    Effect.gen(function* () {
      const path = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-callrecord-")), "audit.log")
      const context = yield* Layer.build(auditTo(path))
      const record = yield* CallRecord.make.pipe(Effect.provide(context))
      const caller = { key: "viewer-key", secret: Redacted.make("viewer-secret") }
      const args = { operation: "deploy_stack", params: { stack: "web", note: "viewer-secret" } }

      const running = yield* Effect.never.pipe(
        record.call(resolveCall(Definitions.svc_execute, args)),
        CallerCredentials.as(caller),
        Effect.fork,
      )
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(running)
      yield* record
        .refused(
          new ToolDeniedError({ tool: "svc_execute", selector: "deploy_stack", reason: "the user declined it" }),
          args,
          "declined",
        )
        .pipe(CallerCredentials.as(caller))

      const [intent, cancelled, refused] = linesOf(path)
      // The change's intent came first: named by its caller key's fingerprint, never its secret.
      expect(intent).toMatchObject({
        phase: "intent",
        caller: "viewer-key",
        who: expect.stringMatching(/^key:sha256:[\w-]{16}$/),
        tool: "svc_execute",
        target: "web",
      })
      expect(cancelled).toMatchObject({ phase: "outcome", intent: intent?.seq })
      expect(cancelled).toMatchObject({
        caller: "viewer-key",
        tool: "svc_execute",
        endpoint: "execute/DeployStack",
        target: "web",
        outcome: "cancelled",
        params: { stack: "web", note: "[redacted]" },
      })
      expect(refused).toMatchObject({
        caller: "viewer-key",
        selector: "deploy_stack",
        target: "web",
        outcome: "declined",
        reason: "the user declined it",
        params: { stack: "web", note: "[redacted]" },
      })
      expect(Fs.readFileSync(path, "utf8")).not.toContain("viewer-secret")
    }),
  )
})
