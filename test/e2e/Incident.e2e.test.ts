/**
 * The `incident` scenario mended by an operator through the tools alone, the
 * built server over the sandbox, in both protocol eras: the open alerts listed,
 * api's logs read, api redeployed with its previous tag, prod-02 pruned, the
 * failed build rerun; a deploy to unreachable staging-01 fails with the
 * service's error and its wait ends, and its stats over time stop when it was
 * last seen. At the end only staging-01's alert is open, and the audit log
 * holds each change.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

type Era = Clients.Era

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly isError?: boolean
  readonly structuredContent?: unknown
}

const textOf = (result: Result) => result.content[0]?.text ?? ""

/** An answer's JSON, its fences and notes left out. */
const jsonOf = (result: Result): unknown => {
  const text = textOf(result)
    .replace(/^\[svc-mcp: untrusted text at [^\n]*\n/, "")
    .replace(/<u:[0-9a-f]{16}>|<\/u>/g, "")
  const end = text.indexOf("\n")
  return JSON.parse(end === -1 ? text : text.slice(0, end))
}

const connect = (era: Era, audit: string) =>
  Effect.gen(function* () {
    const env = { SVC_REACH: "all", SVC_AUDIT_LOG: audit }
    const args = ["--sandbox", "--scenario", "incident"]
    const name = "svc-mcp-incident"
    const { client } =
      era === "modern"
        ? yield* Clients.overHttp((yield* Spawn.serveHttp(env, args)).url, { name, era, answering: "accept" })
        : yield* Spawn.v2({ name, era, env, args, answering: "accept" })
    return (tool: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name: tool, arguments: args }) as Promise<Result>)
  })

describe("svc-mcp sandbox --scenario list", () => {
  it.effect("prints each scenario on a line of its own", () =>
    Effect.gen(function* () {
      const listed = yield* Spawn.run({}, ["sandbox", "--scenario", "list"])
      expect(listed.code).toBe(0)
      const lines = listed.stderr.trim().split("\n")
      expect(lines.map((l) => l.split(" ")[0])).toEqual(["calm", "incident", "drift"])
    }),
  )
})

for (const era of ["modern", "legacy"] as const) {
  describe(`the incident scenario, ${era}`, () => {
    it.scopedLive(
      "is mended through the tools: alerts, logs, rollback, prune, rebuild; staging-01 still down",
      () =>
        Effect.gen(function* () {
          const audit = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-incident-")), "audit.log")
          const call = yield* connect(era, audit)
          const ok = (tool: string, args: Record<string, unknown>) =>
            Effect.tap(call(tool, args), (r) =>
              expect(r.isError, `${tool} ${JSON.stringify(args)}: ${textOf(r)}`).toBeFalsy(),
            )
          const openAlerts = { resource_type: "alert", params: { query: { resolved: false } } }

          const open = textOf(yield* ok("svc_list", openAlerts))
          expect(open).toContain("ServerDisk")
          expect(open).toContain("ServerUnreachable")
          expect(open).toContain("prod-02")

          const logs = textOf(yield* ok("svc_logs", { resource_type: "deployment", params: { deployment: "api" } }))
          expect(logs).toContain("missing required setting API_SIGNING_KEY")
          // The crash loop reads one way wherever it is read: restarting on 1.5.0, its last exit the logs' code 1.
          expect([...logs.matchAll(/exited with code (\d+)/g)].map((m) => m[1]).at(-1)).toBe("1")
          const inspected = yield* ok("svc_inspect", {
            inspect_type: "deployment_container",
            params: { deployment: "api" },
            fields: ["State.Status", "State.Restarting", "State.ExitCode", "RestartCount", "Config.Image"],
          })
          expect(jsonOf(inspected)).toEqual({
            State: { Status: "restarting", Restarting: true, ExitCode: 1 },
            RestartCount: 2,
            Config: { Image: "ghcr.io/acme/api:1.5.0" },
          })
          const containers = yield* ok("svc_list_detail", {
            list_type: "containers",
            params: { server: "prod-01" },
            fields: ["name", "state", "status", "image"],
          })
          expect(jsonOf(containers)).toContainEqual({
            name: "api",
            state: "restarting",
            status: "Restarting (1) 3 minutes ago",
            image: "ghcr.io/acme/api:1.5.0",
          })
          // The images its containers run are listed in use.
          const images = jsonOf(
            yield* ok("svc_list_detail", {
              list_type: "images",
              params: { server: "prod-01" },
              fields: ["name", "in_use"],
            }),
          )
          expect(images).toContainEqual({ name: "ghcr.io/acme/api:1.5.0", in_use: true })
          expect(images).toContainEqual({ name: "library/web:latest", in_use: true })

          yield* ok("svc_update", {
            resource_type: "deployment",
            params: { id: "api", config: { image: { type: "Image", params: { image: "ghcr.io/acme/api:1.4.2" } } } },
          })
          const rollback = textOf(
            yield* ok("svc_execute", { operation: "deploy", params: { deployment: "api" }, wait: true }),
          )
          // docker run's one stage, which answers the new container's id.
          expect(rollback).toMatch(/"stage":"Docker Run","out":"<u:[0-9a-f]{16}>[0-9a-f]{64}<\/u>"/)
          const api = textOf(yield* ok("svc_list", { resource_type: "deployment", params: {} }))
          expect(api).toMatch(/api[\s\S]*running/)
          expect(api).not.toContain("restarting")

          const pruned = yield* ok("svc_execute", {
            operation: "run_server_prune_images",
            params: { server: "prod-02" },
            wait: true,
          })
          expect(textOf(pruned)).toContain("Total reclaimed space")
          const volumes = yield* ok("svc_execute", {
            operation: "prune_volumes",
            params: { server: "prod-02" },
            wait: true,
          })
          expect(textOf(volumes)).toContain("Total reclaimed space: 88.1GB")

          yield* ok("svc_execute", { operation: "run_build", params: { build: "docs-image" }, wait: true })

          // staging-01 does not answer: the deploy fails with the service's error, and the wait ends.
          const down = yield* call("svc_execute", {
            operation: "deploy",
            params: { deployment: "legacy-cron" },
            wait: true,
          })
          expect(textOf(down)).toContain("Failed to reach the agent on server staging-01")
          expect(textOf(down)).toContain('"stage":"Deploy Container","ok":false')

          // Its stats over time stop when it was last seen, 07:05 on the sandbox's clock, as its alert says.
          const history = yield* ok("svc_list_detail", {
            list_type: "historical_server_stats",
            params: { server: "staging-01", granularity: "1-min" },
            fields: ["ts"],
          })
          const samples = (history.structuredContent as { stats: Array<{ ts: number }> }).stats
          expect(samples.length).toBeGreaterThan(0)
          expect(Math.max(...samples.map(({ ts }) => ts))).toBe(Date.UTC(2026, 2, 17, 7, 5, 0))

          const still = textOf(yield* ok("svc_list", openAlerts))
          expect(still).toContain("ServerUnreachable")
          expect(still).not.toContain("ServerDisk")
          expect(still).not.toContain("prod-02")

          const lines = Fs.readFileSync(audit, "utf8")
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l) as Record<string, unknown>)
          const changed = lines.filter((l) => l.phase === "outcome" || l.phase === "intent").map((l) => `${l.selector}`)
          for (const selector of ["deployment", "deploy", "run_server_prune_images", "prune_volumes", "run_build"]) {
            expect(changed, selector).toContain(selector)
          }
        }),
      60_000,
    )
  })
}
