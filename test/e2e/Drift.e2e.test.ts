/**
 * The `drift` scenario through the tools alone, the built server over the
 * sandbox, in both protocol eras: an operator refreshes the sync's pending
 * changes and reads them, runs the sync, and finds nothing pending after; sees
 * a stack whose files changed since its deploy, and deploys it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Clients from "../support/Clients.js"
import * as Spawn from "../support/Spawn.js"

type Era = Clients.Era

interface Result {
  readonly content: Array<{ type: string; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

const textOf = (result: Result) => result.content[0]?.text ?? ""

/** The answer's JSON: its untrusted values are fenced in the text, its first line saying so; read without them. */
const jsonOf = (result: Result): Any => {
  const text = textOf(result)
    .replace(/^\[svc-mcp: untrusted text at [^\n]*\n/, "")
    .replace(/<u:[0-9a-f]{16}>|<\/u>/g, "")
  const end = text.indexOf("\n")
  return JSON.parse(end === -1 ? text : text.slice(0, end))
}

const connect = (era: Era) =>
  Effect.gen(function* () {
    const env = { SVC_REACH: "all" }
    const args = ["--sandbox", "--scenario", "drift"]
    const name = "svc-mcp-drift"
    const { client } =
      era === "modern"
        ? yield* Clients.overHttp((yield* Spawn.serveHttp(env, args)).url, { name, era, answering: "accept" })
        : yield* Spawn.v2({ name, era, env, args, answering: "accept" })
    return (tool: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name: tool, arguments: args }) as Promise<Result>)
  })

for (const era of ["modern", "legacy"] as const) {
  describe(`the drift scenario, ${era}`, () => {
    it.scopedLive(
      "the sync's changes read, the sync run, nothing pending after; a drifted stack seen and deployed",
      () =>
        Effect.gen(function* () {
          const call = yield* connect(era)
          const ok = (tool: string, args: Record<string, unknown>) =>
            Effect.tap(call(tool, args), (r) =>
              expect(r.isError, `${tool} ${JSON.stringify(args)}: ${textOf(r)}`).toBeFalsy(),
            )
          /** A record whole, as the service sent it (`fields: ["*"]`). */
          const whole = (resource_type: string, params: Record<string, unknown>) =>
            Effect.map(ok("svc_get", { resource_type, params, fields: ["*"] }), jsonOf)
          const sync = { sync: "estate-sync" }

          // Its settings are what its plan shows: resources with their deletes, variables, user groups.
          const settings = (yield* whole("sync_resource", sync)).config
          expect([settings.include_resources, settings.delete, settings.include_variables]).toEqual([true, true, true])
          expect(settings.include_user_groups).toBe(true)
          yield* ok("svc_execute", { operation: "refresh_sync_pending", params: sync })
          const pending = (yield* whole("sync_resource", sync)).info
          expect(pending.pending_hash).toBe("e8a3f10")
          expect(pending.resource_updates.map((u: Any) => `${u.target.type} ${u.data.type}`)).toEqual([
            "Stack Create",
            "Stack Update",
            "Deployment Update",
            "Deployment Delete",
            "Build Update",
            "Procedure Delete",
            "Action Create",
          ])
          expect(pending.variable_updates.map((u: Any) => u.type)).toEqual(["Update", "Create"])
          expect(pending.user_group_updates.map((u: Any) => u.type)).toEqual(["Update"])

          const ran = yield* ok("svc_execute", { operation: "run_sync", params: sync, wait: true })
          expect(textOf(ran)).toContain("applied 10 changes from e8a3f10")
          const after = (yield* whole("sync_resource", sync)).info
          expect(after.last_sync_hash).toBe("e8a3f10")
          expect(after.pending_hash).toBe("")
          for (const field of ["resource_updates", "variable_updates", "user_group_updates", "pending_deploys"]) {
            expect(after[field], field).toEqual([])
          }
          // The estate changed: legacy-cron is gone, the cache stack is there.
          const gone = yield* call("svc_get", { resource_type: "deployment", params: { deployment: "legacy-cron" } })
          expect(gone.isError).toBe(true)
          expect((yield* whole("stack", { stack: "cache" })).name).toBe("cache")
          yield* ok("svc_execute", { operation: "refresh_sync_pending", params: sync })
          expect((yield* whole("sync_resource", sync)).info.resource_updates).toEqual([])

          // monitoring runs files its repository no longer holds.
          const drifted = (yield* whole("stack", { stack: "monitoring" })).info
          expect([drifted.deployed_hash, drifted.latest_hash]).toEqual(["0f3a9c1", "b8e2d47"])
          expect(drifted.deployed_contents[0].contents).not.toContain("node-exporter")
          expect(drifted.remote_contents[0].contents).toContain("node-exporter")
          yield* ok("svc_execute", { operation: "deploy_stack", params: { stack: "monitoring" }, wait: true })
          const deployed = (yield* whole("stack", { stack: "monitoring" })).info
          expect(deployed.deployed_hash).toBe("b8e2d47")
          // The new service runs, its container made by the deploy seconds ago, its image listed in use.
          const services = yield* ok("svc_list_detail", {
            list_type: "containers",
            params: { server: "prod-02" },
            fields: ["name", "state", "status", "image"],
          })
          const exporter = (jsonOf(services) as Array<Any>).find((c) => c.name === "monitoring-node-exporter-1")
          expect(exporter).toMatchObject({ state: "running", image: "library/node-exporter:latest" })
          expect(exporter.status).toMatch(/^Up (Less than a second|\d+ seconds?)$/)
          const images = jsonOf(
            yield* ok("svc_list_detail", {
              list_type: "images",
              params: { server: "prod-02" },
              fields: ["name", "in_use"],
            }),
          )
          expect(images).toContainEqual({ name: "library/node-exporter:latest", in_use: true })
          expect(deployed.deployed_contents).toEqual([
            { path: "compose.yaml", contents: drifted.remote_contents[0].contents },
          ])
        }),
      60_000,
    )
  })
}
