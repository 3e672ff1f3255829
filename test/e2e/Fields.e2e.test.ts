/**
 * `fields` and the answer's schema, end to end: the built server with
 * `--sandbox`, spoken to over stdio as an assistant would.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

interface Result {
  readonly isError?: boolean
  readonly content: Array<{ readonly text: string }>
  readonly structuredContent?: Record<string, unknown>
}

/** The answer's JSON, and the notes after it. */
const split = (result: Result) => {
  // Untrusted values are fenced in the text (src/Untrusted/Fence.ts), its first line saying so: the JSON without them.
  const text = (result.content[0]?.text ?? "")
    .replace(/^\[svc-mcp: untrusted text at [^\n]*\n/, "")
    .replace(/<u:[0-9a-f]{16}>|<\/u>/g, "")
  const end = text.indexOf("\n")
  return end === -1
    ? { json: JSON.parse(text), notes: "" }
    : { json: JSON.parse(text.slice(0, end)), notes: text.slice(end + 1) }
}

describe("fields, end to end", () => {
  it.scopedLive(
    "each of the five tools keeps the paths asked, in their order, in the text and structuredContent alike",
    () =>
      Effect.gen(function* () {
        const { client } = yield* Spawn.connect({}, ["--sandbox"])
        const call = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)

        const stacks = yield* call("svc_list", {
          resource_type: "stack",
          fields: ["name", "info.state", "info.server_name"],
        })
        const listed = split(stacks)
        expect(listed.json).toEqual([
          { name: "web", info: { state: "running", server_name: "prod-01" } },
          { name: "monitoring", info: { state: "running", server_name: "prod-02" } },
          { name: "staging-web", info: { state: "stopped", server_name: "staging-01" } },
        ])
        expect(listed.notes).toBe("")
        expect(stacks.structuredContent).toEqual({ result: listed.json })

        // The whole list, for comparison: every field of every item.
        const whole = split(yield* call("svc_list", { resource_type: "stack", fields: ["*"] })).json as Array<
          Record<string, unknown>
        >
        expect(whole.map((s) => s.name)).toEqual(["web", "monitoring", "staging-web"])
        expect(Object.keys(whole[0] ?? {}).length).toBeGreaterThan(2)

        const got = yield* call("svc_get", {
          resource_type: "stack",
          params: { stack: "web" },
          fields: ["config.repo", "name", "config.file_paths"],
        })
        expect(split(got).json).toEqual({ config: { repo: "acme/web", file_paths: ["compose.yaml"] }, name: "web" })
        expect(got.structuredContent).toEqual(split(got).json)
        expect(Object.keys(got.structuredContent ?? {})).toEqual(["config", "name"])

        const summary = yield* call("svc_summary", { resource_type: "stack", fields: ["stopped", "running"] })
        expect(summary.content[0]?.text).toBe('{"stopped":1,"running":2}')

        const inspected = yield* call("svc_inspect", {
          inspect_type: "container",
          params: { server: "prod-01", container: "web-web-1" },
          fields: ["Name", "State.Status", "Config.Labels"],
        })
        expect(split(inspected).json).toEqual({
          Name: "/web-web-1",
          State: { Status: "running" },
          Config: { Labels: { "com.docker.compose.service": "web" } },
        })

        const containers = yield* call("svc_list_detail", {
          list_type: "all_containers",
          fields: ["name", "state", "server_name"],
        })
        const rows = split(containers).json as Array<Record<string, unknown>>
        expect(rows.length).toBeGreaterThan(3)
        for (const row of rows) expect(Object.keys(row)).toEqual(["name", "state", "server_name"])
        expect(rows[0]).toEqual({ name: "web-web-1", state: "running", server_name: "prod-01" })
        expect(containers.structuredContent).toEqual({ result: rows })
      }),
  )

  it.scopedLive(
    "a path no item has is named in a note, with the fields the items have; bad fields are refused, the server serving on",
    () =>
      Effect.gen(function* () {
        const { client } = yield* Spawn.connect({}, ["--sandbox"])
        const call = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)

        const missing = split(
          yield* call("svc_list", { resource_type: "deployment", fields: ["name", "info.stat", "status"] }),
        )
        expect(missing.json).toEqual([
          { name: "api" },
          { name: "docs" },
          { name: "legacy-cron" },
          { name: "status-page" },
          { name: "docs-preview" },
          { name: "docs-next" },
        ])
        expect(missing.notes).toBe(
          '[svc-mcp: no item has fields "info.stat", "status"; the items\' fields: id, info, name, tags, template, type (schema: true lists them all)]',
        )
        const none = split(
          yield* call("svc_get", { resource_type: "stack", params: { stack: "web" }, fields: ["nope"] }),
        )
        expect(none.json).toEqual({})
        expect(none.notes).toMatch(/^\[svc-mcp: the answer has no field "nope"; its fields: _id, .*config.*name/)

        const refused = yield* call("svc_list", { resource_type: "stack", fields: ["info..state"] })
        expect(refused.isError).toBe(true)
        expect(refused.structuredContent).toEqual({
          error: {
            kind: "invalid_arguments",
            tool: "svc_list",
            message: expect.any(String),
            problems: ['fields[0] "info..state" is not a dotted path: names joined by single dots, e.g. "info.state"'],
          },
        })
        const unknown = yield* call("svc_logs", { resource_type: "stack", params: { stack: "web" }, fields: ["x"] })
        expect(unknown.structuredContent).toMatchObject({
          error: { kind: "invalid_arguments", problems: [expect.stringMatching(/^unknown argument "fields"/)] },
        })
        expect(split(yield* call("svc_summary", { resource_type: "stack", fields: ["total"] })).json).toEqual({
          total: 3,
        })
      }),
  )

  it.scopedLive("schema: true shows the answer's type from the service's definitions, to choose fields from", () =>
    Effect.gen(function* () {
      const { client } = yield* Spawn.connect({}, ["--sandbox"])
      const schema = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: { ...args, schema: true } }) as Promise<Result>).pipe(
          Effect.map((result) => split(result).json as Record<string, string>),
        )

      const stacks = yield* schema("svc_list", { resource_type: "stack", fields: ["name"] })
      expect(stacks.endpoint).toBe("read/ListStacks")
      // A list of items, each with its info and the info's state and server name.
      expect(stacks.answer).toMatch(/^\{id: string, info: \{.*server_name\?: string.*state: "deploying" \| "running"/)
      expect(stacks.answer?.endsWith("}[]")).toBe(true)
      expect(stacks.fields).toMatch(/dotted paths/)

      const summary = yield* schema("svc_summary", { resource_type: "stack" })
      expect(summary.answer).toBe(
        "{down: number, running: number, stopped: number, total: number, unhealthy: number, unknown: number}",
      )
      const updates = yield* schema("svc_list_detail", { list_type: "updates" })
      // A shape nested deeper is named, and `schema: "Name"` answers it.
      expect(updates.answer).toBe("{next_page?: number, updates: UpdateListItem[]}")
      expect(updates.shapes).toEqual(["UpdateListItem"])
      const inspect = yield* schema("svc_inspect", { inspect_type: "container" })
      expect(inspect.answer).toMatch(/State\?: ContainerState[,}]/)
      expect(inspect.shapes).toContain("ContainerState")
      // A tool that does not take fields shows its params alone.
      const logs = yield* schema("svc_logs", { resource_type: "stack" })
      expect(logs.answer).toBeUndefined()
    }),
  )
})
