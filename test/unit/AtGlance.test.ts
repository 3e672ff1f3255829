/**
 * Records and results at a glance: a row's column names taken as `fields`
 * (each names the paths its column reads, and `schema: true` lists them), and
 * an execution's result at a glance against the sandbox: its target by name,
 * its output fenced, under 500 characters followed to its end, and
 * `fields: ["*"]` the whole Update.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Definitions from "../../src/Tools/Definitions.js"
import { resolve } from "../../src/Tools/Invoke.js"
import { PROJECTIONS } from "../../src/Tools/Projections.js"
import * as Tables from "../../src/Tools/Tables.js"
import * as Mcp from "../support/Mcp.js"
import * as Sandboxes from "../support/Sandbox.js"

const selectorOf = (table: Readonly<Record<string, string>>, endpoint: string) =>
  Object.entries(table).find(([, name]) => `read/${name}` === endpoint)?.[0]

describe("a row's column names as fields", () => {
  it("each column's name is taken for the paths it reads, on every list with rows", () => {
    let checked = 0
    for (const [endpoint, projection] of Object.entries(PROJECTIONS)) {
      const list = selectorOf(Tables.list, endpoint)
      const detail = selectorOf(Tables.list_detail, endpoint)
      const [tool, args] =
        list !== undefined
          ? [Definitions.svc_list, { resource_type: list }]
          : [Definitions.svc_list_detail, { list_type: detail }]
      if (list === undefined && detail === undefined) continue
      for (const column of projection.columns) {
        const resolved = resolve(tool, { ...args, fields: [column.label, "description"] })
        expect(Either.isRight(resolved), `${endpoint} ${column.label}`).toBe(true)
        if (Either.isLeft(resolved)) continue
        const paths = column.given === undefined ? [column.path] : [column.path, column.given]
        expect(resolved.right.fields, `${endpoint} ${column.label}`).toEqual([...paths, "description"])
        checked++
      }
    }
    expect(checked).toBeGreaterThan(100)
  })

  it.scopedLive('svc_list stack with fields ["state", "server"] answers each stack\'s state and server by name', () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const call = (args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name: "svc_list", arguments: { resource_type: "stack", ...args } }))
      const shaped = Mcp.text(yield* call({ fields: ["name", "state", "server"] }))
      expect(shaped).not.toContain("no item has")
      const items = JSON.parse(shaped) as Array<{ name: string; info: Record<string, unknown> }>
      expect(items.map((item) => [item.name, item.info.state, item.info.server_name])).toEqual([
        ["web", "running", "prod-01"],
        ["monitoring", "running", "prod-02"],
        ["staging-web", "stopped", "staging-01"],
      ])
      // schema: true lists the columns with the paths they read, beside the answer's type.
      const schema = JSON.parse(Mcp.text(yield* call({ schema: true }))) as { columns: Record<string, string> }
      expect(schema.columns).toMatchObject({ state: "info.state", server: "info.server_id", updates: "info.services" })
    }),
  )
})

describe("an execution's result at a glance", () => {
  it.scopedLive(
    'followed to its end: the target by name, its output fenced, under 500 characters; fields ["*"] the whole Update',
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
        const deploy = (args: Record<string, unknown>) =>
          Effect.promise(() =>
            client.callTool({
              name: "svc_execute",
              arguments: { operation: "deploy_stack", params: { stack: "staging-web" }, wait: true, ...args },
            }),
          )
        const glance = yield* deploy({})
        const text = Mcp.text(glance)
        expect(text.length).toBeLessThan(500)
        const [head, summary, json] = text.split("\n")
        expect(head).toMatch(
          /^\[svc-mcp: untrusted text at stages\[\]\.out \(stack staging-web\), which anyone may have written, stands between <u:[0-9a-f]{16}> and <\/u>/,
        )
        expect(summary).toBe("DeployStack succeeded.")
        const id = /<u:([0-9a-f]{16})>/.exec(head ?? "")?.[1]
        expect(JSON.parse(json ?? "")).toEqual({
          operation: "DeployStack",
          target: "Stack staging-web",
          status: "Complete",
          success: true,
          seconds: expect.any(Number),
          update: expect.stringMatching(/^[0-9a-f]{24}$/),
          stages: [
            {
              stage: "DeployStack",
              ok: true,
              out: `<u:${id}>stack staging-web is now running</u>`,
              lines_before: expect.any(Number),
            },
          ],
        })
        expect(glance._meta?.["svc-mcp/untrusted"]).toEqual(["/stages/0/out"])
        // A field of the glance holds only what the Update has: its values, its target's name.
        const whole = yield* deploy({ fields: ["*"] })
        const [, first, update] = Mcp.text(whole).split("\n")
        expect(first).toMatch(/^DeployStack \(update [0-9a-f]{24}\) succeeded\.$/)
        const record = JSON.parse((update ?? "").replace(/<u:[0-9a-f]{16}>|<\/u>/g, "")) as Record<string, unknown>
        expect(record).toMatchObject({ operation: "DeployStack", status: "Complete", success: true })
        expect(record.logs).toEqual([
          expect.objectContaining({ stdout: expect.stringMatching(/\nstack staging-web is now running$/) }),
        ])
        expect(whole.structuredContent).toEqual(record)
      }),
  )
})
