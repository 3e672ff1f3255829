/**
 * The built server on the large estate (`--sandbox --estate large`), spoken to
 * by the SDK v2 Client in both eras over stdio: the whole list of 300 stacks
 * fits the output budget uncut, as rows, and so do their full configs; a list
 * of one is rows too; a secret variable's value is not shown; untrusted text
 * that a read keeps is still fenced and its credentials masked; the mended
 * seed (enabled stages, a service user) answers as the service does.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { DEFAULT_SETTINGS } from "../../src/Settings/ToolSettings.js"
import type * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

type Era = Clients.Era

const ERAS: ReadonlyArray<Era> = ["modern", "legacy"]

// The guard off: this client cannot be asked (test/e2e/Untrusted.e2e.test.ts has the guard).
const large = (era: Era) =>
  Effect.map(
    Spawn.v2({
      name: "svc-mcp-glance",
      era,
      args: ["--sandbox", "--estate", "large"],
      env: { SVC_GUARD: "off" },
    }),
    ({ client }) => client,
  )

interface Result {
  readonly content: ReadonlyArray<{ readonly text?: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly _meta?: Record<string, unknown>
}

describe.each(ERAS)("the large estate, the %s era", (era) => {
  it.scopedLive("svc_list of all 300 stacks (limit 0) is whole and uncut, within the output budget", () =>
    Effect.gen(function* () {
      const client = yield* large(era)
      expect(client.getProtocolEra()).toBe(era)
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)

      const stacks = yield* call("svc_list", { resource_type: "stack", params: { limit: 0 } })
      const text = stacks.content[0]?.text ?? ""
      expect(text.length).toBeLessThanOrEqual(DEFAULT_SETTINGS.maxOutputChars)
      expect(text).not.toContain("output cut")
      // Its servers that cannot be reached (every 17th) are said in one line: the stacks on them are stale.
      const all = text.split("\n")
      const stale = all.filter((line) => line.startsWith("[svc-mcp: stale since"))
      expect(stale).toHaveLength(1)
      expect(stale[0]).toMatch(/the server \S+ cannot be reached \(NotOk\); the state shown of /)
      const lines = all.filter((line) => !line.startsWith("[svc-mcp: stale since"))
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^\[svc-mcp: 300 stacks as rows of \["name","id","state","server","tags",/)
      const rows = JSON.parse(lines[1] ?? "") as Array<Array<unknown>>
      expect(rows).toHaveLength(300)
      expect(new Set(rows.map((row) => row[0])).size).toBe(300)
      // Where each runs, by name: the 50 servers are all used.
      expect(new Set(rows.map((row) => row[3])).size).toBe(50)
      expect(rows.every((row) => typeof row[3] === "string" && /^(prod|stage|staging)-\d\d$/.test(row[3]))).toBe(true)
      expect(stacks.structuredContent).toEqual({
        columns: ["name", "id", "state", "server", "tags", "repo", "branch", "services", "updates"],
        result: rows,
      })

      // svc_list_detail's full lists too: all 300 stacks' configs as rows, uncut; a short list is rows as well.
      const full = yield* call("svc_list_detail", { list_type: "full_stacks", params: { limit: 0 } })
      const fullText = full.content[0]?.text ?? ""
      expect(fullText).not.toContain("output cut")
      expect(fullText.split("\n")[0]).toMatch(/^\[svc-mcp: 300 stacks as rows of \["name","id","server",/)
      expect(full.structuredContent?.result).toHaveLength(300)
      expect(full._meta?.["svc-mcp/untrusted"]).toBeUndefined()
      const alerters = yield* call("svc_list", { resource_type: "alerter" })
      expect(alerters.structuredContent).toEqual({
        columns: ["name", "id", "enabled", "endpoint", "tags"],
        result: [["ops-slack", expect.stringMatching(/^[0-9a-f]{24}$/), true, "Slack", ["monitoring"]]],
      })
      const variables = yield* call("svc_list", { resource_type: "variable" })
      expect(variables.content[0]?.text).toContain('["DB_PASSWORD","[redacted]"]')

      // The same hostile text as the small estate: a kept untrusted value is fenced, its credentials masked.
      const logs = yield* call("svc_logs", { resource_type: "stack", params: { stack: "web", services: ["worker"] } })
      const log = logs.content[0]?.text ?? ""
      expect(log).toMatch(/^\[svc-mcp: untrusted text at command, stdout \(stack web\), which anyone may have written/)
      expect(log).toContain("[masked: aws access key]")
      expect(log).not.toContain("AKIAIOSFODNN7EXAMPLE")
      const repo = yield* call("svc_get", {
        resource_type: "repo",
        params: { repo: "infra" },
        fields: ["name", "info.latest_message"],
      })
      expect(repo.content[0]?.text).toMatch(/"latest_message":"<u:[0-9a-f]{16}>/)
      expect(repo._meta?.["svc-mcp/untrusted"]).toEqual(["/info/latest_message"])
      // A list at a glance keeps no untrusted field: no fences, nothing for the guard.
      const repos = yield* call("svc_list", { resource_type: "repo" })
      expect(repos.content[0]?.text).toMatch(/^\[svc-mcp: 20 repos as rows of/)
      expect(repos._meta?.["svc-mcp/untrusted"]).toBeUndefined()

      // The mended seed: the release procedure's stages and executions are enabled; service users filter.
      const release = yield* call("svc_get", {
        resource_type: "procedure",
        params: { procedure: "release" },
        fields: ["config.stages.enabled", "config.stages.executions.enabled"],
      })
      expect(release.structuredContent).toEqual({
        config: {
          stages: [
            { enabled: true, executions: [{ enabled: true }] },
            { enabled: true, executions: [{ enabled: true }] },
          ],
        },
      })
      const service = yield* call("svc_list", {
        resource_type: "user",
        params: { service_users: "Only" },
        fields: ["username", "config.type"],
      })
      expect(service.structuredContent).toEqual({
        result: [
          { username: "ci-deployer", config: { type: "Service" } },
          { username: "release-bot", config: { type: "Service" } },
        ],
      })
      const people = yield* call("svc_list", { resource_type: "user", params: { service_users: "Exclude" } })
      const peopleRows = (people.structuredContent?.result ?? []) as Array<Array<unknown>>
      expect(peopleRows.map((row) => row[2])).toEqual(peopleRows.map(() => "Local"))
      expect(peopleRows).toHaveLength(15)
    }),
  )
})
