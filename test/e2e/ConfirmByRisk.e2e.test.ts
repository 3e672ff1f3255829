/**
 * Questions by risk, against the built server over HTTP and its sandbox: SVC_CONFIRM patterns that
 * name what a call touches after `@`. A deploy and a restart of a stack tagged production are
 * asked, saying why; the same on a stack not so tagged is not; each match of a batch is resolved;
 * and the audit line of each asked call says why. SVC_DENY with `@` leaves the selector listed and
 * refuses the call that touches what it names. A prune's question lists what the sandbox then
 * removes, and the total its sizes sum to is what the sandbox says it reclaimed; a container
 * prune's, the containers the sandbox then removes. A deploy's question says the image running now
 * and the image it deploys, which runs once it has.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Mcp from "../support/Mcp.js"
import * as Spawn from "../support/Spawn.js"
import * as TempDir from "../support/TempDir.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const NAME = "svc-mcp-confirm-by-risk"

const textOf = (result: Any): string => result.content?.[0]?.text ?? ""

const auditOf = (file: string): Array<Record<string, unknown>> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : []

const execute = (operation: string, params: Record<string, unknown>) => ({
  name: "svc_execute",
  arguments: { operation, params },
})

describe("SVC_CONFIRM=*@tag:production over HTTP", () => {
  it.scopedLive("asks before a deploy and a restart of a stack tagged production, and says why; not of another", () =>
    Effect.gen(function* () {
      const dir = yield* TempDir.scoped("svc-mcp-by-risk-")
      const log = Path.join(dir, "audit.log")
      const server = yield* Spawn.serveHttp({ SVC_CONFIRM: "*@tag:production", SVC_AUDIT_LOG: log }, ["--sandbox"])
      const { client, asked } = yield* Clients.overHttp(server.url, { name: NAME, era: "modern", answering: "accept" })
      const call = (request: { name: string; arguments: Record<string, unknown> }) =>
        Effect.promise(() => client.callTool(request) as Promise<Any>)

      const deployed = yield* call(execute("deploy_stack", { stack: "web" }))
      expect(deployed.isError, textOf(deployed)).toBeFalsy()
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatch(
        /\(asked because of SVC_CONFIRM \*@tag:production: stack "web" carries the tag "production"; nothing is sent unless you accept\)$/,
      )
      const restarted = yield* call(execute("restart_stack", { stack: "web" }))
      expect(restarted.isError, textOf(restarted)).toBeFalsy()
      expect(asked).toHaveLength(2)
      expect(asked[1]).toContain('stack "web" carries the tag "production"')

      // Not tagged production: sent unasked.
      const staging = yield* call(execute("restart_stack", { stack: "staging-web" }))
      expect(staging.isError, textOf(staging)).toBeFalsy()
      expect(asked).toHaveLength(2)

      // A batch: each match read; the question names the one that carries the tag, not the one that does not.
      const batch = yield* call(execute("batch_deploy_stack", { pattern: "*web" }))
      expect(batch.isError, textOf(batch)).toBeFalsy()
      expect(asked).toHaveLength(3)
      expect(asked[2]).toContain('stack "web" carries the tag "production"')
      expect(asked[2]).not.toContain('stack "staging-web" carries')

      const lines = auditOf(log).filter((line) => line.tool === "svc_execute")
      const whyOf = (selector: string) =>
        lines
          .filter((line) => line.selector === selector)
          .map((line) => [line.phase ?? line.outcome, line.confirmation])
      const why = 'SVC_CONFIRM (*@tag:production: stack "web" carries the tag "production")'
      expect(whyOf("deploy_stack")).toEqual([
        ["asked", why],
        ["intent", why],
        ["outcome", why],
      ])
      // The unasked restart's lines say nothing of a confirmation.
      expect(lines.filter((line) => line.confirmation === undefined).map((line) => line.phase)).toEqual([
        "intent",
        "outcome",
      ])
    }),
  )
})

describe("SVC_DENY=svc_execute:*@server:prod-01 over HTTP", () => {
  it.scopedLive("keeps the selectors listed and refuses a call on prod-01's stack, naming why; not another's", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_DENY: "svc_execute:*@server:prod-01" }, ["--sandbox"])
      const { client } = yield* Clients.overHttp(server.url, { name: NAME, era: "modern" })
      const { tools } = yield* Effect.promise(() => client.listTools())
      const schema = JSON.stringify(tools.find((tool) => tool.name === "svc_execute")?.inputSchema)
      expect(schema).toContain("restart_stack")
      const refused = (yield* Effect.promise(() => client.callTool(execute("restart_stack", { stack: "web" })))) as Any
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toContain(
        'denied by SVC_DENY (svc_execute:*@server:prod-01: stack "web" is on the server "prod-01")',
      )
      const other = (yield* Effect.promise(() =>
        client.callTool(execute("restart_stack", { stack: "staging-web" })),
      )) as Any
      expect(other.isError, textOf(other)).toBeFalsy()
    }),
  )
})

describe("a prune's question over HTTP", () => {
  it.scopedLive("lists what the sandbox then removes, each with its size, the total that it reports", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_CONFIRM: "svc_execute:run_server_prune_images" }, ["--sandbox"])
      const { client, asked } = yield* Clients.overHttp(server.url, { name: NAME, era: "modern", answering: "accept" })
      const images = Effect.promise(async () => {
        const listed = (await client.callTool({
          name: "svc_list_detail",
          arguments: { list_type: "images", params: { server: "prod-02" }, fields: ["*"] },
        })) as Any
        return new Map<string, number>(
          (JSON.parse(Mcp.unfenced(textOf(listed))) as Array<Any>).map((i) => [i.name as string, i.size as number]),
        )
      })
      const before = yield* images
      const pruned = (yield* Effect.promise(() =>
        client.callTool({
          name: "svc_execute",
          arguments: { operation: "run_server_prune_images", params: { server: "prod-02" }, wait: true },
        }),
      )) as Any
      expect(pruned.isError, textOf(pruned)).toBeFalsy()
      const after = yield* images
      const removed = [...before.keys()].filter((name) => !after.has(name))
      expect(removed.length).toBeGreaterThan(0)

      expect(asked).toHaveLength(1)
      const question = asked[0] as string
      const head =
        /This removes (\d+) images on the server "prod-02", none of them in use, [^(]+ in all \((\d+) bytes\):/.exec(
          question,
        )
      expect(head, question).not.toBeNull()
      const named = [...question.matchAll(/^ {2}"([^"]+)" [\d.]+ [kMG]?B$/gm)].map((m) => m[1])
      expect([...named].sort()).toEqual([...removed].sort())
      // The sizes of what went, summed, are the question's total, and what the sandbox says it reclaimed.
      const total = removed.reduce((sum, name) => sum + (before.get(name) ?? 0), 0)
      expect(Number(head?.[2])).toBe(total)
      const docker = total >= 1e9 ? `${Math.round(total / 1e8) / 10}GB` : `${Math.round(total / 1e6)}MB`
      expect(textOf(pruned)).toContain(`Total reclaimed space: ${docker}`)
    }),
  )
})

describe("a delete's question over HTTP", () => {
  it.scopedLive("names the procedure whose stage, and the action whose script, refers to what it deletes", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_CONFIRM: "svc_delete:*" }, ["--sandbox"])
      const { client, asked } = yield* Clients.overHttp(server.url, { name: NAME, era: "modern", answering: "decline" })
      yield* Effect.promise(() =>
        client.callTool({ name: "svc_delete", arguments: { resource_type: "deployment", params: { id: "api" } } }),
      )
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain(
        'Referring to it, which would fail once it is gone: the procedure "release" (its stage "deploy").',
      )
      yield* Effect.promise(() =>
        client.callTool({ name: "svc_delete", arguments: { resource_type: "deployment", params: { id: "docs" } } }),
      )
      expect(asked[1]).toContain("No procedure's stage, action, alerter or sync refers to it.")
      // An action whose script names it.
      yield* Effect.promise(() =>
        client.callTool({ name: "svc_delete", arguments: { resource_type: "server", params: { id: "prod-01" } } }),
      )
      expect(asked[2]).toMatch(
        /Referring to it, which would fail once it is gone: .*the action "rotate-logs" \(its script names it\)/,
      )
    }),
  )
})

describe("a deploy's question over HTTP", () => {
  it.scopedLive("says the image the deployment runs now and the image it deploys, which it then runs", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_CONFIRM: "svc_execute:deploy" }, ["--sandbox"])
      const { client, asked } = yield* Clients.overHttp(server.url, { name: NAME, era: "modern", answering: "accept" })
      const call = (request: { name: string; arguments: Record<string, unknown> }) =>
        Effect.promise(() => client.callTool(request) as Promise<Any>)
      const image = { type: "Image", params: { image: "ghcr.io/acme/api:1.5.0" } }
      const updated = yield* call({
        name: "svc_update",
        arguments: { resource_type: "deployment", params: { id: "api", config: { image } } },
      })
      expect(updated.isError, textOf(updated)).toBeFalsy()
      expect(asked).toHaveLength(0)
      const deploy = {
        name: "svc_execute",
        arguments: { operation: "deploy", params: { deployment: "api" }, wait: true },
      }
      const deployed = yield* call(deploy)
      expect(deployed.isError, textOf(deployed)).toBeFalsy()
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain(
        '\nRuns now: "ghcr.io/acme/api:1.4.2" (running); this deploys "ghcr.io/acme/api:1.5.0".\n',
      )
      // What it said it deploys is what runs once it has.
      yield* call(deploy)
      expect(asked[1]).toContain(
        '\nRuns now: "ghcr.io/acme/api:1.5.0" (running); this deploys "ghcr.io/acme/api:1.5.0", the same image, pulled again.\n',
      )
    }),
  )
})

describe("a container prune's question over HTTP", () => {
  it.scopedLive("lists the stopped containers, exactly those the sandbox then removes", () =>
    Effect.gen(function* () {
      const server = yield* Spawn.serveHttp({ SVC_CONFIRM: "svc_execute:run_server_prune_containers" }, ["--sandbox"])
      const { client, asked } = yield* Clients.overHttp(server.url, { name: NAME, era: "modern", answering: "accept" })
      const containers = Effect.promise(async () => {
        const listed = (await client.callTool({
          name: "svc_list_detail",
          arguments: { list_type: "containers", params: { server: "staging-01" }, fields: ["*"] },
        })) as Any
        return (JSON.parse(Mcp.unfenced(textOf(listed))) as Array<Any>).map((c) => c.name as string)
      })
      const before = yield* containers
      const pruned = (yield* Effect.promise(() =>
        client.callTool({
          name: "svc_execute",
          arguments: { operation: "run_server_prune_containers", params: { server: "staging-01" }, wait: true },
        }),
      )) as Any
      expect(pruned.isError, textOf(pruned)).toBeFalsy()
      const after = yield* containers
      const removed = before.filter((name) => !after.includes(name))
      expect(removed.length).toBeGreaterThan(0)
      expect(asked).toHaveLength(1)
      const question = asked[0] as string
      expect(question).toContain(
        `\nThis removes ${removed.length} containers on the server "staging-01", none of them in use:\n`,
      )
      const named = [...question.matchAll(/^ {2}"([^"]+)"$/gm)].map((m) => m[1])
      expect([...named].sort()).toEqual([...removed].sort())
    }),
  )
})
