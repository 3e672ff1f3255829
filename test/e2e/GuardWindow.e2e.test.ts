/**
 * Whose window, and for how long, against the built server over HTTP with the
 * sandbox: the window is the person's, on every service (reading staging's
 * hostile logs holds a delete on prod for the keys that read them), and in a
 * session it lasts the session's life, not SVC_GUARD_WINDOW (which still ends
 * the window of a 2026-07-28 client that has no session). A refusal names the
 * ways forward and no time to wait for.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Legacy from "../support/LegacyHttp.js"
import * as Sandbox from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"
import * as TempDir from "../support/TempDir.js"
import * as TwoServices from "../support/TwoServices.js"
import { eventually } from "../support/Wait.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const { PROD, STAGING } = TwoServices

const readLogs = { resource_type: "stack", params: { stack: "web", services: ["worker"] } }
const deleteStack = (id: string) => ({ resource_type: "stack", params: { id } })
const deleteTag = (id: string) => ({ resource_type: "tag", params: { id } })

const auditFile = () => Effect.map(TempDir.scoped("svc-mcp-guard-window-"), (dir) => Path.join(dir, "audit.log"))

/** The lines calls end with (a change's intent before it is left out). */
const ended = (file: string): Array<Record<string, unknown>> =>
  Fs.readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.phase !== "intent")

const REFUSAL =
  /^prod: svc_delete "(stack|tag)" is refused: this change loses data, so it is held because it follows reading the logs of stack web \(service worker\), which may carry instructions \(SVC_GUARD\); this client can answer neither input_required nor elicitation requests\. To go on: use a client that can answer the confirmation, or the user makes this change themselves, or the operator changes SVC_GUARD_HOLD or SVC_GUARD/

describe("the window is the person's, on every service (SVC_SERVICES=prod,staging, per-request keys)", () => {
  it.scopedLive(
    "staging's hostile logs read, a delete on prod: refused to a client that cannot be asked, asked of one that can; audited as guarded",
    () =>
      Effect.gen(function* () {
        const prod = yield* Sandbox.scoped({ apiKey: PROD })
        const staging = yield* Sandbox.scoped({ apiKey: STAGING })
        const audit = yield* auditFile()
        const server = yield* Spawn.serveHttp({
          SVC_SERVICES: "prod,staging",
          SVC_PROD_URL: prod.url,
          SVC_STAGING_URL: staging.url,
          SVC_MCP_CREDENTIALS: "per-request",
          SVC_AUDIT_LOG: audit,
        })
        const keys = {
          "X-Svc-Prod-Api-Key": PROD.key,
          "X-Svc-Prod-Api-Secret": PROD.secret,
          "X-Svc-Staging-Api-Key": STAGING.key,
          "X-Svc-Staging-Api-Secret": STAGING.secret,
        }
        // 2026-07-28 clients: no session, so only the keys they bring tie the read to the change.
        const call = (capabilities: Record<string, unknown>, name: string, args: Record<string, unknown>) =>
          Effect.map(
            HttpMcp.modern(
              server.url,
              "tools/call",
              { name, arguments: args },
              { meta: HttpMcp.modernMeta("guard-window", capabilities), headers: keys },
            ),
            (answer): Any => answer.body.result,
          )
        const read = yield* call({}, "svc_logs", { ...readLogs, service: "staging" })
        expect(read.isError, JSON.stringify(read)).toBeFalsy()

        const refused = yield* call({}, "svc_delete", { ...deleteStack("monitoring"), service: "prod" })
        expect(refused.isError).toBe(true)
        expect(refused.structuredContent.error.kind).toBe("denied")
        expect(HttpMcp.textOf(refused)).toMatch(REFUSAL)
        const stillThere = yield* call({}, "svc_get", {
          resource_type: "stack",
          params: { stack: "monitoring" },
          service: "prod",
        })
        expect(stillThere.isError, JSON.stringify(stillThere)).toBeFalsy()

        const asked = yield* call({ elicitation: {} }, "svc_delete", { ...deleteTag("production"), service: "prod" })
        expect(asked.resultType).toBe("input_required")
        expect(asked.inputRequests.confirm.params.message).toMatch(
          /^prod: svc_delete resource_type "tag" will call write\/DeleteTag on id="production"\.[\s\S]*Send it\? \(asked because this follows reading the logs of stack web \(service worker\), which may carry instructions \(SVC_GUARD\); nothing is sent unless you accept\)$/,
        )
        const tags = yield* call({}, "svc_list", { resource_type: "tag", service: "prod" })
        expect(HttpMcp.textOf(tags)).toContain("production")

        // A 2025-era client with the same keys, which cannot be asked: refused too, on prod, in its own session.
        const legacy = yield* Effect.promise(() => Legacy.connect(server.url, { headers: keys }))
        const fromSession = yield* Effect.promise(() =>
          legacy.call(1, "svc_delete", { ...deleteTag("production"), service: "prod" }),
        )
        expect(HttpMcp.textOf(fromSession.result)).toMatch(REFUSAL)

        expect(
          ended(audit)
            .filter((line) => line.tool === "svc_delete")
            .map((line) => [line.service, line.selector, line.outcome, line.guarded]),
        ).toEqual([
          ["prod", "stack", "refused", "the logs of stack web (service worker)"],
          ["prod", "tag", "asked", "the logs of stack web (service worker)"],
          ["prod", "tag", "refused", "the logs of stack web (service worker)"],
        ])
      }),
  )
})

describe("in a session the window lasts the session's life; SVC_GUARD_WINDOW only where there is none", () => {
  it.scopedLive(
    "after the window's time, a session's delete is still refused, naming no time; a sessionless client's is sent",
    () =>
      Effect.gen(function* () {
        const server = yield* Spawn.serveHttp({ SVC_GUARD_WINDOW: "2s" }, ["--sandbox"])
        // A 2025-era client that declares no elicitation: it has a session.
        const inSession = yield* Effect.promise(() => Legacy.connect(server.url))
        expect(inSession.session).toMatch(/^s1\./)
        // A 2026-07-28 client with the same (shared) credentials: no session, known by its address.
        const sessionless = (name: string, args: Record<string, unknown>) =>
          Effect.map(
            HttpMcp.modern(server.url, "tools/call", { name, arguments: args }, { meta: HttpMcp.modernMeta("once") }),
            (answer): Any => answer.body.result,
          )
        yield* Effect.promise(() => inSession.call(1, "svc_logs", readLogs))
        yield* sessionless("svc_logs", readLogs)
        const first = yield* Effect.promise(() => inSession.call(2, "svc_delete", deleteTag("staging")))
        expect(first.result.isError).toBe(true)
        expect((yield* sessionless("svc_delete", deleteTag("monitoring"))).isError).toBe(true)

        // The sessionless client's window ends (refused until then, nothing sent): its delete is sent.
        const sent = yield* eventually(sessionless("svc_delete", deleteTag("monitoring")), (r) => !r.isError, 30_000)
        expect(sent.isError, JSON.stringify(sent)).toBeFalsy()
        const again = yield* Effect.promise(() => inSession.call(3, "svc_delete", deleteTag("staging")))
        expect(again.result.isError).toBe(true)
        const text = HttpMcp.textOf(again.result)
        expect(text).toMatch(/so it is held because it follows reading the logs of stack web/)
        expect(text).not.toMatch(/until|wait|UTC|\d\d:\d\d/)
        const tags = HttpMcp.textOf(yield* sessionless("svc_list", { resource_type: "tag" }))
        expect(tags).toContain("staging")
        expect(tags).not.toContain("monitoring")
      }),
  )
})
