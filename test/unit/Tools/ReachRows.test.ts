/**
 * The lists of who may do what, and those SVC_REACH=all adds, at a glance on
 * the sandbox: a permission's user and resource by name, a key's user by name
 * and never its secret, a server's stats over time with the server by name;
 * each column's name works as `fields`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

const connect = (revealSecrets = false) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped()
    const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all", revealSecrets })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }))
    const lines = (name: string, args: Record<string, unknown>) =>
      Effect.map(call(name, args), (answer) => {
        const [first, rows] = Mcp.text(answer).split("\n")
        return { first, rows: JSON.parse(rows ?? "null") as Array<Array<unknown>>, text: Mcp.text(answer) }
      })
    return { sandbox, call, lines }
  })

describe("lists of who may do what, at a glance", () => {
  it.scopedLive("a permission: who, on what, at which level, by name; for one user too", () =>
    Effect.gen(function* () {
      const { sandbox, call, lines } = yield* connect()
      const alice = sandbox.world.users.find((u) => u.username === "alice")?._id.$oid as string
      const web = sandbox.world.store.find("stack", "web").id
      const given = yield* call("svc_update", {
        resource_type: "permission_on_target",
        params: {
          user_target: { type: "User", id: alice },
          resource_target: { type: "Stack", id: web },
          permission: "Write",
        },
      })
      expect(given.isError, Mcp.text(given)).toBeFalsy()
      const operators = sandbox.world.store.find("user_group", "operators").id
      const deploy = yield* call("svc_update", {
        resource_type: "permission_on_target",
        params: {
          user_target: { type: "UserGroup", id: operators },
          resource_target: { type: "Server", id: sandbox.world.store.find("server", "prod-01").id },
          permission: { level: "Execute", specific: ["Logs"] },
        },
      })
      expect(deploy.isError, Mcp.text(deploy)).toBeFalsy()
      const hers = yield* lines("svc_list_detail", {
        list_type: "user_target_permissions",
        params: { user_target: { type: "User", id: alice } },
      })
      expect(hers.first).toBe(
        '[svc-mcp: 1 permission as rows of ["who","on","level","specific"]; for more, fields: ["*"] or ["user_target","_id.$oid"]]',
      )
      expect(hers.rows).toEqual([["User alice", "Stack web", "Write", []]])
      const theirs = yield* lines("svc_list_detail", {
        list_type: "user_target_permissions",
        params: { user_target: { type: "UserGroup", id: operators } },
      })
      expect(theirs.rows).toEqual([["UserGroup operators", "Server prod-01", "Execute", ["Logs"]]])
      // The caller's own: the admin's one, given before they were made an admin (SeedAccess.ts), alice's not.
      expect((yield* lines("svc_list_detail", { list_type: "permissions" })).rows).toEqual([
        ["User admin", "Stack web", "Write", ["Terminal"]],
      ])
      // A column's name is a field: `on` is the resource_target.
      const on = yield* call("svc_list_detail", {
        list_type: "user_target_permissions",
        params: { user_target: { type: "User", id: alice } },
        fields: ["on", "level"],
      })
      expect(on.structuredContent).toEqual({
        result: [{ resource_target: { type: "Stack", id: web }, level: "Write" }],
      })
    }),
  )

  it.scopedLive("a service user's keys: name and user by name, never the secret", () =>
    Effect.gen(function* () {
      // As an operator may run it: the new key's secret is in the answer to its making, never in a row.
      const { sandbox, call, lines } = yield* connect(true)
      const ci = sandbox.world.users.find((u) => u.username === "ci-deployer")?._id.$oid as string
      const made = yield* call("svc_create", {
        resource_type: "api_key_for_service_user",
        params: { user_id: ci, name: "ci-key" },
      })
      expect(made.isError, Mcp.text(made)).toBeFalsy()
      const keys = yield* lines("svc_list_detail", { list_type: "api_keys_for_service_user", params: { user: ci } })
      expect(keys.first).toBe(
        '[svc-mcp: 2 keys as rows of ["name","key","user","created_at","expires"]; for more, fields: ["*"] or ["name","key"]]',
      )
      // Beside the key CI already logs in with (the estate's), the new one.
      const key = sandbox.world.apiKeys.find((k) => k.name === "ci-key")
      const seeded = sandbox.world.apiKeys.find((k) => k.name === "deploy-on-merge")
      expect(keys.rows.map((row) => [row[0], row[1], row[2]])).toEqual([
        ["deploy-on-merge", seeded?.key, "ci-deployer"],
        ["ci-key", key?.key, "ci-deployer"],
      ])
      for (const secret of [key?.secret, seeded?.secret]) expect(keys.text).not.toContain(secret)
      const mine = yield* lines("svc_list_detail", { list_type: "api_keys" })
      expect(mine.rows.map((row) => [row[0], row[2]])).toEqual([["admin-key", "admin"]])
    }),
  )
})

describe("the lists SVC_REACH=all adds, at a glance", () => {
  it.scopedLive("a server's stats over time: when, CPU, memory, disk, not the server named; the next page said", () =>
    Effect.gen(function* () {
      const { call, lines } = yield* connect()
      const params = { server: "prod-02", granularity: "5-min" }
      const stats = yield* lines("svc_list_detail", { list_type: "historical_server_stats", params })
      // The totals, the same in every sample, and the times, one granularity apart, are said once.
      const said = stats.first?.match(
        /^\[svc-mcp: 100 samples as rows of \["cpu_perc","mem_used_gb","disk_used_gb"\], in each mem_total_gb 16, disk_total_gb 500, ts (\d+) in the first, 300000 less in each next; for more, fields: \["\*"\] or \["stats\.ts","stats\.load_average"\]\]$/,
      )
      expect(said, stats.first).not.toBeNull()
      expect(stats.rows.every((row) => row.length === 3 && !row.includes("prod-02"))).toBe(true)
      expect(stats.text).toMatch(/\[svc-mcp: more samples: params\.page \d+\]$/)
      // Each row as the service answered its sample, the values said once put back.
      const fields = ["ts", "cpu_perc", "mem_used_gb", "mem_total_gb", "disk_used_gb", "disk_total_gb"]
      const whole = yield* call("svc_list_detail", { list_type: "historical_server_stats", params, fields })
      const kept = (whole.structuredContent as { stats: Array<Record<string, unknown>> }).stats
      const first = Number(said?.[1])
      expect(
        stats.rows.map(([cpu, mem, disk], i) => ({
          ts: first - 300000 * i,
          cpu_perc: cpu,
          mem_used_gb: mem,
          mem_total_gb: 16,
          disk_used_gb: disk,
          disk_total_gb: 500,
        })),
      ).toEqual(kept)
      const folded = yield* call("svc_list_detail", { list_type: "historical_server_stats", params })
      expect(folded.structuredContent).toMatchObject({
        columns: ["cpu_perc", "mem_used_gb", "disk_used_gb"],
        same: { mem_total_gb: 16, disk_total_gb: 500 },
        steps: { ts: { first, by: -300000 } },
      })
    }),
  )

  it.scopedLive("a stack's services, as every stack's", () =>
    Effect.gen(function* () {
      const { call } = yield* connect()
      // A compose file's service names are anyone's with write access: records, their names fenced.
      const services = yield* call("svc_list_detail", { list_type: "stack_services", params: { stack: "web" } })
      const text = (services.content as Array<{ text: string }>)[0]?.text ?? ""
      expect(text).toMatch(/^\[svc-mcp: untrusted text at \[\]\.service \(stack web\), /)
      const records = (services.structuredContent as { result: Array<Record<string, unknown>> }).result
      expect(records.map((r) => [r.stack_name, r.service])).toEqual([
        ["web", "web"],
        ["web", "worker"],
        ["web", "redis"],
      ])
    }),
  )
})
