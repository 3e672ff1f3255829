/**
 * SVC_REACH=all end to end: the built server over the sandbox, in both protocol
 * eras (2026-07-28 over HTTP, 2025-11-25 over stdio), doing what the interface
 * alone cannot: a tag put on a deployment by name, alerts listed and closed, a
 * stack checked for a newer image, its compose file written then deployed, a
 * service user's key made without its secret reaching the answer, and a user's
 * deletion after hostile logs held as the guard holds the interface's changes.
 * The audit log records each change with its selector, endpoint and target.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

type Era = Clients.Era
type Action = "accept" | "decline"

const NAME = "svc-mcp-reach"
const ALL = { SVC_REACH: "all" }

/** A fresh audit log's path, and its lines as JSON. */
const auditLog = () => {
  const file = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-reach-")), "audit.log")
  const read = () => (Fs.existsSync(file) ? Fs.readFileSync(file, "utf8") : "")
  const lines = () =>
    read()
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  /** The lines of one selector's calls, but the checkpoints. */
  const of = (selector: string) => lines().filter((line) => line.selector === selector)
  return { file, read, of }
}

const connect = (era: Era, action: Action | undefined, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const audit = auditLog()
    const settings = { ...ALL, SVC_AUDIT_LOG: audit.file, ...env }
    const { client, asked } =
      era === "modern"
        ? yield* Clients.overHttp((yield* Spawn.serveHttp(settings, ["--sandbox"])).url, {
            name: NAME,
            era,
            answering: action,
          })
        : yield* Spawn.v2({ name: NAME, era, env: settings, args: ["--sandbox"], answering: action })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)
    return { asked, call, audit }
  })

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

const textOf = (result: Result) => result.content[0]?.text ?? ""

/** The `$oid`s in an answer's text, in order. */
const oids = (text: string) => [...text.matchAll(/"\$oid":\s*"([0-9a-f]+)"/g)].map((m) => m[1] as string)

for (const era of ["modern", "legacy"] as const) {
  describe(`SVC_REACH=all, ${era}`, () => {
    it.scopedLive("a deployment tagged by name with a tag the call creates; the tag deleted leaves it", () =>
      Effect.gen(function* () {
        const { call, audit } = yield* connect(era, "accept")
        const tagged = yield* call("svc_update", {
          resource_type: "resource_meta",
          params: { target: { type: "Deployment", id: "docs" }, tags: ["production", "canary"] },
        })
        expect(tagged.isError, textOf(tagged)).toBeFalsy()
        const tag = yield* call("svc_get", { resource_type: "tag", params: { tag: "canary" }, fields: ["*"] })
        expect(tag.isError, textOf(tag)).toBeFalsy()
        const [canary] = oids(textOf(tag))
        expect(canary).toBeDefined()
        const docs = yield* call("svc_get", {
          resource_type: "deployment",
          params: { deployment: "docs" },
          fields: ["tags"],
        })
        expect(textOf(docs)).toContain(canary as string)
        const deleted = yield* call("svc_delete", { resource_type: "tag", params: { id: "canary" } })
        expect(deleted.isError, textOf(deleted)).toBeFalsy()
        const after = yield* call("svc_list_detail", {
          list_type: "full_deployments",
          params: { limit: 0 },
          fields: ["*"],
        })
        expect(after.isError, textOf(after)).toBeFalsy()
        expect(textOf(after)).not.toContain(canary as string)
        expect(audit.of("resource_meta").map((l) => [l.phase, l.endpoint, l.target, l.outcome])).toEqual([
          ["intent", "write/UpdateResourceMeta", "Deployment:docs", undefined],
          ["outcome", "write/UpdateResourceMeta", "Deployment:docs", "ok"],
        ])
        expect(audit.of("resource_meta")[0]?.params).toEqual({
          target: { type: "Deployment", id: "docs" },
          tags: ["production", "canary"],
        })
        expect(audit.of("tag").map((l) => [l.tool, l.phase, l.endpoint, l.target, l.outcome])).toEqual([
          ["svc_delete", "intent", "write/DeleteTag", "canary", undefined],
          ["svc_delete", "outcome", "write/DeleteTag", "canary", "ok"],
        ])
      }),
    )

    it.scopedLive("the open alerts listed, one closed", () =>
      Effect.gen(function* () {
        const { call } = yield* connect(era, "accept")
        const open = yield* call("svc_list", { resource_type: "alert", params: { query: { resolved: false } } })
        expect(open.isError, textOf(open)).toBeFalsy()
        // Rows: time, level, the target by name, the alert's variant, resolved, id; its text one field away, fenced.
        expect(textOf(open)).toMatch(
          /^\[svc-mcp: \d+ alerts? as rows of \["ts","level","target","what","resolved","id"\]/,
        )
        expect(textOf(open)).toContain('"Server prod-02","ServerMem",false')
        const whole = yield* call("svc_list", {
          resource_type: "alert",
          params: { query: { resolved: false } },
          fields: ["*"],
        })
        expect(textOf(whole)).toContain('"alerts":')
        expect(textOf(whole)).toMatch(/untrusted/i)
        // Only the alert's text is fenced: its kind and its ids keep the service's types.
        expect(textOf(whole)).toContain('"type":"ServerMem"')
        expect(textOf(whole)).not.toMatch(/"id":"<u:/)
        const rows = JSON.parse(textOf(open).split("\n")[1] ?? "[]") as Array<Array<unknown>>
        const id = rows.find((row) => row[3] === "ServerMem")?.[5] as string | undefined
        expect(id, textOf(open).slice(0, 500)).toBeDefined()
        const closed = yield* call("svc_execute", { operation: "close_alert", params: { id } })
        expect(closed.isError, textOf(closed)).toBeFalsy()
        const alert = yield* call("svc_get", { resource_type: "alert", params: { id }, fields: ["resolved"] })
        expect(textOf(alert)).toMatch(/"resolved":\s*true/)
        const still = yield* call("svc_list", { resource_type: "alert", params: { query: { resolved: false } } })
        expect(textOf(still)).not.toContain(id)
      }),
    )

    it.scopedLive("a stack checked for a newer image; its compose file written, then deployed", () =>
      Effect.gen(function* () {
        const { call, audit } = yield* connect(era, "accept")
        const checked = yield* call("svc_execute", {
          operation: "check_stack_for_update",
          params: { stack: "monitoring" },
        })
        expect(checked.isError, textOf(checked)).toBeFalsy()
        expect(textOf(checked)).toMatch(/"update_available":\s*true/)
        const compose = "services:\n  web:\n    image: nginx:1.27\n"
        const written = yield* call("svc_update", {
          resource_type: "stack_file",
          params: { stack: "web", file_path: "compose.yaml", contents: compose },
        })
        expect(written.isError, textOf(written)).toBeFalsy()
        const deployed = yield* call("svc_execute", { operation: "deploy_stack", params: { stack: "web" }, wait: true })
        expect(deployed.isError, textOf(deployed)).toBeFalsy()
        // Each change recorded with what was sent: the check, the file and its contents, the deploy.
        const file = audit.of("stack_file")
        expect(file.map((l) => [l.tool, l.phase, l.endpoint, l.target, l.outcome])).toEqual([
          ["svc_update", "intent", "write/WriteStackFileContents", "web", undefined],
          ["svc_update", "outcome", "write/WriteStackFileContents", "web", "ok"],
        ])
        expect(file[0]?.params).toEqual({ stack: "web", file_path: "compose.yaml", contents: compose })
        expect(audit.of("check_stack_for_update").map((l) => [l.endpoint, l.target, l.outcome])).toEqual([
          ["write/CheckStackForUpdate", "monitoring", undefined],
          ["write/CheckStackForUpdate", "monitoring", "ok"],
        ])
        expect(audit.of("deploy_stack").at(-1)).toMatchObject({
          endpoint: "execute/DeployStack",
          target: "web",
          outcome: "ok",
        })
      }),
    )

    it.scopedLive("a service user's API key made, the user told first, its secret kept from the answer", () =>
      Effect.gen(function* () {
        const { call, asked, audit } = yield* connect(era, "accept")
        const made = yield* call("svc_create", {
          resource_type: "api_key_for_service_user",
          params: { user_id: "ci-deployer", name: "deploys" },
        })
        expect(made.isError, textOf(made)).toBeFalsy()
        expect(asked).toHaveLength(1)
        expect(asked[0]).toMatch(/it will not be shown/)
        const text = JSON.stringify(made)
        expect(text).toMatch(/"key":\s*\\?"K-[0-9a-f]+/)
        expect(text).toContain("[redacted]")
        expect(text).not.toMatch(/S-[0-9a-f]{48}/)
        // The question named whose key it is; the audit holds the call, asked first, and no secret.
        expect(asked[0]).toMatch(/This makes the API key "deploys" for the service user "ci-deployer"\./)
        const key = text.match(/K-[0-9a-f]+/)?.[0]
        // The question's line (what asked, nothing sent, the endpoint it would call), then the change's intent and outcome.
        expect(
          audit.of("api_key_for_service_user").map((l) => [l.phase ?? l.outcome, l.endpoint, l.target, l.sent]),
        ).toEqual([
          ["asked", "write/CreateApiKeyForServiceUser", "deploys", false],
          ["intent", "write/CreateApiKeyForServiceUser", "deploys", undefined],
          ["outcome", "write/CreateApiKeyForServiceUser", "deploys", undefined],
        ])
        expect(audit.of("api_key_for_service_user")[1]?.confirmation).toMatch(/SVC_REVEAL_SECRETS/)
        expect(audit.read()).not.toMatch(/S-[0-9a-f]{48}/)
        expect(audit.read()).not.toContain(key)
      }),
    )

    it.scopedLive("after the hostile logs, deleting a user is asked of a client that can be asked", () =>
      Effect.gen(function* () {
        const { call, asked, audit } = yield* connect(era, "accept")
        yield* call("svc_logs", { resource_type: "stack", params: { stack: "web", services: ["worker"] } })
        const deleted = yield* call("svc_delete", { resource_type: "user", params: { user: "bob" } })
        expect(deleted.isError, textOf(deleted)).toBeFalsy()
        expect(asked).toHaveLength(1)
        expect(asked[0]).toMatch(/write\/DeleteUser/)
        // The plan names what the delete removes, read from the service before asking.
        expect(asked[0]).toMatch(/This deletes the user "bob"\./)
        const gone = yield* call("svc_get", { resource_type: "user", params: { user: "bob" } })
        expect(gone.isError).toBe(true)
        const lines = audit.of("user").filter((l) => l.tool === "svc_delete")
        expect(lines.map((l) => [l.phase ?? l.outcome, l.endpoint, l.target, l.sent])).toEqual([
          ["asked", "write/DeleteUser", "bob", false],
          ["intent", "write/DeleteUser", "bob", undefined],
          ["outcome", "write/DeleteUser", "bob", undefined],
        ])
        expect(lines[2]?.outcome).toBe("ok")
        expect(lines[1]?.guarded).toMatch(/stack web/)
      }),
    )
  })
}

describe("SVC_REACH=all, a client that cannot be asked", () => {
  it.scopedLive("after the hostile logs, deleting a user is refused, nothing sent", () =>
    Effect.gen(function* () {
      // The SDK v1 client, declaring no elicitation, as older clients do.
      const audit = auditLog()
      const { client } = yield* Spawn.connect({ ...ALL, SVC_AUDIT_LOG: audit.file }, ["--sandbox"])
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)
      yield* call("svc_logs", { resource_type: "stack", params: { stack: "web", services: ["worker"] } })
      const refused = yield* call("svc_delete", { resource_type: "user", params: { user: "bob" } })
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toMatchObject({ error: { kind: "denied" } })
      expect(textOf(refused)).toMatch(/touches credentials or permissions, so it is held because it follows reading/)
      const still = yield* call("svc_get", { resource_type: "user", params: { user: "bob" } })
      expect(still.isError, textOf(still)).toBeFalsy()
      // One line, nothing sent: no intent.
      const lines = audit.of("user").filter((l) => l.tool === "svc_delete")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ tool: "svc_delete", target: "bob", sent: false, outcome: "refused" })
      expect(lines[0]?.reason).toMatch(/touches credentials or permissions/)
      expect(lines[0]?.phase).toBeUndefined()
    }),
  )

  it.scopedLive("read-only offers none of the new changes", () =>
    Effect.gen(function* () {
      const { client } = yield* Spawn.connect({ ...ALL, SVC_MODE: "read-only" }, ["--sandbox"])
      const listed = yield* Effect.promise(() => client.listTools())
      const names = listed.tools.map((tool) => tool.name)
      expect(names).not.toContain("svc_update")
      expect(names).not.toContain("svc_execute")
      const get = listed.tools.find((tool) => tool.name === "svc_get")
      expect(JSON.stringify(get?.inputSchema)).toContain('"alert"')
    }),
  )
})
