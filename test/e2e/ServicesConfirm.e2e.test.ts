/**
 * Confirmation among several services, against the built server: a write under
 * staging's SVC_STAGING_CONFIRM is asked about by that name, confirmed and sent
 * to staging alone, in both protocol eras (2026-07-28 over HTTP with
 * input_required, 2025 over stdio with elicitation/create); and the state of a
 * question about a call on one service, echoed back by a client (2026-07-28),
 * never sends the same call to the other.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import * as TwoServices from "../support/TwoServices.js"

type Era = Clients.Era

const { PROD, STAGING } = TwoServices

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

/** The two services, staging's deletes under confirmation. */
const env = (prod: string, staging: string): Record<string, string> => ({
  ...TwoServices.env(prod, staging),
  SVC_STAGING_CONFIRM: "svc_delete:*",
})

const writes = (double: Double.ServiceDouble) =>
  double
    .calls()
    .filter((r) => !r.path.startsWith("/read/"))
    .map((r) => [r.path, r.body])

const deleteTag = (service: string) => ({
  name: "svc_delete",
  arguments: { resource_type: "tag", params: { id: "production" }, service },
})

const NAME = "svc-mcp-services-confirm"

/** The 2026-07-28 era over HTTP (input_required), the earlier one over stdio (elicitation/create); the user accepts. */
const connect = (era: Era, environment: Record<string, string>) =>
  Effect.gen(function* () {
    const { client, asked } =
      era === "modern"
        ? yield* Clients.overHttp((yield* Spawn.serveHttp(environment)).url, { name: NAME, era, answering: "accept" })
        : yield* Clients.overStdio({ name: NAME, era, env: environment, answering: "accept" })
    expect(client.getProtocolEra()).toBe(era)
    return { client, asked }
  })

describe.each(["modern", "legacy"] as const)("confirmation among several services, the %s era", (era) => {
  it.scopedLive("a write under SVC_STAGING_CONFIRM is asked by that name, confirmed and sent to staging alone", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ apiKey: PROD })
      const staging = yield* Double.scoped({ apiKey: STAGING })
      const { client, asked } = yield* connect(era, env(prod.url, staging.url))

      const result = yield* Effect.promise(() => client.callTool(deleteTag("staging")))
      expect(result.isError).toBeFalsy()
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatch(
        /^staging: svc_delete resource_type "tag" will call write\/DeleteTag on id="production"\./,
      )
      expect(asked[0]).toMatch(
        /\(asked because of SVC_STAGING_CONFIRM svc_delete:\*; nothing is sent unless you accept\)$/,
      )
      expect(writes(staging)).toEqual([["/write/DeleteTag", { id: "production" }]])
      expect(prod.calls()).toEqual([])

      // prod has no confirm policy: its delete is sent without a question.
      yield* Effect.promise(() => client.callTool(deleteTag("prod")))
      expect(asked).toHaveLength(1)
      expect(writes(prod)).toEqual([["/write/DeleteTag", { id: "production" }]])
      expect(writes(staging)).toHaveLength(1)
    }),
  )
})

/** One 2026-07-28 tools/call as the wire carries it: what a client echoes is its own to choose. */
const call = (url: string, params: Record<string, unknown>) =>
  Effect.map(
    HttpMcp.modern(url, "tools/call", params, { meta: HttpMcp.modernMeta("raw", { elicitation: {} }) }),
    (answer): Any => answer.body,
  )

const question = (answer: Any): { message: string; state: string } => {
  expect(answer.result.resultType).toBe("input_required")
  return { message: answer.result.inputRequests.confirm.params.message, state: answer.result.requestState }
}

const accept = (state: string) => ({ inputResponses: { confirm: { action: "accept" } }, requestState: state })

describe("a confirmation is sealed for its service (2026-07-28, HTTP)", () => {
  it.scopedLive("the state of a question about one service's call, echoed with the other service, sends nothing", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ apiKey: PROD })
      const staging = yield* Double.scoped({ apiKey: STAGING })
      const audit = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-confirm-")), "audit.log")
      // Both ask, and both run with the server's own credentials: the same tool, args and principal.
      const server = yield* Spawn.serveHttp({
        ...env(prod.url, staging.url),
        SVC_PROD_CONFIRM: "svc_delete:*",
        SVC_AUDIT_LOG: audit,
      })

      const onStaging = question(yield* call(server.url, deleteTag("staging")))
      expect(onStaging.message).toMatch(/^staging: /)
      // Staging's state, echoed to make the same call on prod: asked about again, nothing sent.
      const replayed = question(yield* call(server.url, { ...deleteTag("prod"), ...accept(onStaging.state) }))
      expect(replayed.message).toMatch(/^prod: .*\n[\s\S]*SVC_PROD_CONFIRM/)
      // And prod's state echoed to staging.
      question(yield* call(server.url, { ...deleteTag("staging"), ...accept(replayed.state) }))
      expect(writes(prod)).toEqual([])
      expect(writes(staging)).toEqual([])

      // The honest path: staging's state, to staging, sends to staging alone (the replays did not use it up).
      const sent = yield* call(server.url, { ...deleteTag("staging"), ...accept(onStaging.state) })
      expect(sent.result.resultType).toBe("complete")
      expect(sent.result.isError).toBeFalsy()
      expect(writes(staging)).toEqual([["/write/DeleteTag", { id: "production" }]])
      expect(writes(prod)).toEqual([])

      // The lines calls end with: a change's intent before it (test/e2e/Audit.e2e.test.ts) is left out.
      const lines = Fs.readFileSync(audit, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line))
        .filter((line) => line.phase !== "intent")
      expect(lines.map((l) => [l.service, l.outcome])).toEqual([
        ["staging", "asked"],
        ["prod", "asked"],
        ["staging", "asked"],
        ["staging", "ok"],
      ])
      expect(lines[1].reason).toMatch(/SVC_PROD_CONFIRM/)
    }),
  )
})
