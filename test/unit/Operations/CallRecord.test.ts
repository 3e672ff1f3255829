/**
 * The audit lines of calls that do not end in an answer: cancelled (after its
 * intent), declined by the user; and a per-request caller named by its key,
 * its secret scrubbed. What the audit records: a change sent (intent, then
 * outcome), a call refused before sending (one line, `sent: false`, never an
 * intent), a schema lookup (nothing); and no secret value in clear.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Verify from "../../../src/Audit/Verify.js"
import * as Auth from "../../../src/Auth.js"
import * as CallContext from "../../../src/Call/Context.js"
import * as Audit from "../../../src/Operations/Audit.js"
import * as CallRecord from "../../../src/Operations/CallRecord.js"
import * as CallerCredentials from "../../../src/Service/CallerCredentials.js"
import { DEFAULT_SETTINGS } from "../../../src/Settings/ToolSettings.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import type { Tool } from "../../../src/Tools/Catalog/Tool.js"
import { ToolDeniedError, ToolParamsError } from "../../../src/Tools/Catalog/ToolError.js"
import { type Call, resolveCall, type ToolSuccess } from "../../../src/Tools/Invoke.js"
import { PLACEHOLDER } from "../../../src/Tools/Params/FromPerson.js"
import * as ParamsCheck from "../../../src/Tools/Params/ParamsCheck.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"
import * as View from "../../../src/Tools/View.js"

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
      const args = { operation: "deploy_stack", params: { stack: "web", services: ["viewer-secret"] } }

      const running = yield* Effect.never.pipe(
        record.call(resolveCall(Definitions.svc_execute, args), yield* ParamsCheck.shipped),
        CallerCredentials.as(caller),
        Effect.fork,
      )
      // Interrupted once its intent is written (its params checked first): then it is cancelled.
      for (
        let waited = 0;
        waited < 500 && !(Fs.existsSync(path) && Fs.readFileSync(path, "utf8").includes('"phase":"intent"'));
        waited++
      )
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
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
        params: { stack: "web", services: ["[redacted]"] },
      })
      expect(refused).toMatchObject({
        caller: "viewer-key",
        selector: "deploy_stack",
        target: "web",
        outcome: "declined",
        reason: "the user declined it",
        params: { stack: "web", services: ["[redacted]"] },
      })
      expect(Fs.readFileSync(path, "utf8")).not.toContain("viewer-secret")
    }),
  )
})

const tempLog = () => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-callrecord-")), "audit.log")
const linesIn = (path: string) =>
  Fs.existsSync(path) && Fs.readFileSync(path, "utf8").trim() !== "" ? linesOf(path) : []
/** The lines but the checkpoints, which a clean stop writes. */
const callLines = (path: string) => linesIn(path).filter((line) => line.phase !== "checkpoint")

/** A program that answers as a sent call would, standing for the tool's: the record around it is under test. */
const answered = (call: Call): Effect.Effect<ToolSuccess> =>
  Effect.succeed({
    ...(call.invocation._tag === "Right" ? call.invocation.right : ({} as never)),
    data: { ok: true },
    view: View.View.Whole(),
  })

/** The program of a call refused before sending: it fails as `runWith` does, with nothing sent. */
const refusedBefore = (call: Call) =>
  Effect.flatMap(call.invocation, () => Effect.die("the params check should have refused this call"))

describe("what the audit records", () => {
  const SCHEMA_CALLS: ReadonlyArray<readonly [Tool, Record<string, unknown>]> = [
    [Definitions.svc_create, { resource_type: "tag" }],
    [Definitions.svc_create, { resource_type: "stack" }],
    [Definitions.svc_update, { resource_type: "variable" }],
    [Definitions.svc_update, { resource_type: "deployment" }],
    [Definitions.svc_delete, { resource_type: "stack" }],
    [Definitions.svc_execute, { operation: "run_server_prune_images" }],
    [Definitions.svc_execute, { operation: "deploy_stack" }],
    [Definitions.svc_copy, { resource_type: "stack" }],
    [Definitions.svc_rename, { resource_type: "tag" }],
    [Definitions.svc_delete, { resource_type: "tag" }],
  ]

  it.scoped("ten schema lookups across the changing tools add no line", () =>
    Effect.gen(function* () {
      const path = tempLog()
      const record = yield* CallRecord.make.pipe(Effect.provide(yield* Layer.build(auditTo(path))))
      const check = yield* ParamsCheck.shipped
      for (const [tool, args] of SCHEMA_CALLS) {
        const call = resolveCall(tool, { ...args, schema: true })
        expect(call.invocation._tag, tool.name).toBe("Right")
        yield* answered(call).pipe(record.call(call, check))
      }
      expect(callLines(path)).toEqual([])
    }),
  )

  it.scoped("schema: true with the selector alone, on every tool and selector, decodes and adds no line", () =>
    Effect.gen(function* () {
      const path = tempLog()
      const record = yield* CallRecord.make.pipe(Effect.provide(yield* Layer.build(auditTo(path))))
      const check = yield* ParamsCheck.shipped
      for (const tool of Definitions.all) {
        for (const selector of tool.selectors) {
          const call = resolveCall(tool, { [tool.selectorKey]: selector, schema: true })
          expect(call.invocation._tag, `${tool.name} ${selector}`).toBe("Right")
          yield* answered(call).pipe(record.call(call, check))
        }
      }
      expect(callLines(path)).toEqual([])
    }),
  )

  it.scoped("a call refused before sending adds one line that says so and why, never an intent; verify holds", () =>
    Effect.gen(function* () {
      const path = tempLog()
      const scope = yield* Scope.make()
      const record = yield* CallRecord.make.pipe(Effect.provide(yield* Layer.buildWithScope(auditTo(path), scope)))
      const check = yield* ParamsCheck.shipped
      // Params the endpoint's definition refuses: a field a deployment's update does not have.
      const badParams = resolveCall(Definitions.svc_update, {
        resource_type: "deployment",
        params: { id: "api", config: { no_such_field: 1 } },
      })
      yield* Effect.either(runInvalid(badParams, check).pipe(record.call(badParams, check)))
      // Arguments that do not decode.
      const badArgs = resolveCall(Definitions.svc_delete, { resource_type: "no_such_type", params: { id: "x" } })
      yield* Effect.either(refusedBefore(badArgs).pipe(record.call(badArgs, check)))
      yield* record.refused(
        new ToolDeniedError({ tool: "svc_delete", selector: "stack", reason: "SVC_DENY (svc_delete:*)" }),
        { resource_type: "stack", params: { id: "web" } },
      )
      const lines = callLines(path)
      expect(lines).toHaveLength(3)
      for (const line of lines) {
        expect(line.phase).toBeUndefined()
        expect(line).toMatchObject({ outcome: "refused", sent: false })
        expect(typeof line.reason).toBe("string")
      }
      expect(lines[0]).toMatchObject({ tool: "svc_update", endpoint: "write/UpdateDeployment", kind: "invalid_params" })
      expect(lines[1]).toMatchObject({ tool: "svc_delete", kind: "invalid_arguments" })
      expect(lines[2]).toMatchObject({ tool: "svc_delete", kind: "denied", reason: "SVC_DENY (svc_delete:*)" })
      yield* Scope.close(scope, Exit.void)
      const report = Verify.verify([
        {
          name: path,
          kind: "file",
          lines: Fs.readFileSync(path, "utf8")
            .trim()
            .split("\n")
            .map((line) => Buffer.from(line, "utf8")),
        },
      ])
      expect(report.problems).toEqual([])
      expect(report.unknown).toEqual([])
      expect(report.status).toBe("holds")
    }),
  )

  it.scoped("a secret variable's new value, sent without is_secret, is in no line in clear", () =>
    Effect.gen(function* () {
      const path = tempLog()
      const record = yield* CallRecord.make.pipe(Effect.provide(yield* Layer.build(auditTo(path))))
      const check = yield* ParamsCheck.shipped
      const value = "correct-horse-battery-staple"
      const update = resolveCall(Definitions.svc_update, {
        resource_type: "variable",
        params: { name: "DB_PASSWORD", value },
      })
      yield* answered(update).pipe(record.call(update, check))
      // Told it is not secret, the value is recorded as it is.
      const plain = resolveCall(Definitions.svc_create, {
        resource_type: "variable",
        params: { name: "REGION", value: "eu-west-1", is_secret: false },
      })
      yield* answered(plain).pipe(record.call(plain, check))
      // A credential the masking rules see, in any field.
      const flagged = resolveCall(Definitions.svc_execute, {
        operation: "deploy_stack_service",
        params: { stack: "web", service: "worker", command: ["sh", "-c", "migrate --password s3cret-pass"] },
      })
      yield* answered(flagged).pipe(record.call(flagged, check))
      const text = Fs.readFileSync(path, "utf8")
      expect(text).not.toContain(value)
      expect(text).not.toContain("s3cret-pass")
      const [intent, outcome, plainIntent] = callLines(path)
      const digest = /^\[secret hmac-sha256:[\w-]{22}\]$/
      expect(intent).toMatchObject({
        phase: "intent",
        params: { name: "DB_PASSWORD", value: expect.stringMatching(digest) },
      })
      expect(outcome).toMatchObject({
        phase: "outcome",
        params: { name: "DB_PASSWORD", value: expect.stringMatching(digest) },
      })
      // The same value, the same digest: a change can be compared without being read.
      expect(JSON.stringify(intent?.params)).toBe(JSON.stringify(outcome?.params))
      expect(plainIntent).toMatchObject({ params: { name: "REGION", value: "eu-west-1", is_secret: false } })
    }),
  )

  it.scoped("a secret that passed on a page of svc-mcp's is named in the intent and the outcome, never its value", () =>
    Effect.gen(function* () {
      const path = tempLog()
      const record = yield* CallRecord.make.pipe(Effect.provide(yield* Layer.build(auditTo(path))))
      const check = yield* ParamsCheck.shipped
      const taken = resolveCall(Definitions.svc_create, {
        resource_type: "variable",
        params: { name: "API_SIGNING_KEY", is_secret: true },
        from_person: ["value"],
      })
      yield* answered(taken).pipe(
        record.call(taken, check),
        CallContext.locallyWith((context) => ({ ...context, secret: { passed: "taken", params: ["value"] } })),
      )
      const plain = resolveCall(Definitions.svc_create, { resource_type: "tag", params: { name: "prod" } })
      yield* answered(plain).pipe(record.call(plain, check))
      const [intent, outcome, plainIntent, plainOutcome] = callLines(path)
      const secret = { passed: "taken", params: ["value"], person: "server" }
      expect(intent).toMatchObject({ phase: "intent", secret, params: { value: PLACEHOLDER } })
      expect(outcome).toMatchObject({ phase: "outcome", secret })
      expect(plainIntent?.secret).toBeUndefined()
      expect(plainOutcome?.secret).toBeUndefined()
    }),
  )
})

/** The program of a call whose params the endpoint refuses: fails as `runWith` does, before sending. */
const runInvalid = (call: Call, check: ParamsCheck.ParamsCheckShape) =>
  Effect.flatMap(call.invocation, (invocation) =>
    Effect.flatMap(check.check(invocation.endpoint, invocation.body), (checked) =>
      checked._tag === "Invalid"
        ? Effect.fail(
            new ToolParamsError({
              tool: call.tool.name,
              selectorKey: call.tool.selectorKey,
              selector: invocation.selector,
              endpoint: invocation.endpoint,
              problems: checked.problems,
              accepted: checked.accepted,
            }),
          )
        : Effect.die("the params check should have refused this call"),
    ),
  )
