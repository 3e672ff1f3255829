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
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import { resolve } from "../../../src/Tools/Invoke.js"
import { PROJECTIONS } from "../../../src/Tools/Lists/Projections.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

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
      const schema = JSON.parse(Mcp.text(yield* call({ schema: true }))) as {
        columns: ReadonlyArray<string>
        paths: Record<string, string>
      }
      expect(schema.columns).toEqual(["name", "id", "state", "server", "tags", "repo", "branch", "services", "updates"])
      expect(schema.paths).toMatchObject({ state: "info.state", server: "info.server_id", updates: "info.services" })
      expect(schema.paths).not.toHaveProperty("name")
    }),
  )
})

describe("an execution's result at a glance", () => {
  it.scopedLive("of a repo's pull, says the repo's state after it, as its list says (its glance asks it)", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      sandbox.world.store.find("repo", "infra").info.state = "Failed"
      const pulled = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_execute",
          arguments: { operation: "pull_repo", params: { repo: "infra" }, wait: true },
        }),
      )
      expect(pulled.structuredContent).toMatchObject({
        operation: "PullRepo",
        target: "Repo infra",
        status: "Complete",
        state: sandbox.world.store.find("repo", "infra").info.state,
      })
    }),
  )

  it.scopedLive(
    'followed to its end: the target by name, each stage, under 500 characters; fields ["*"] the whole Update',
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
        // Of an Update that succeeded, each stage by name; compose's progress (its stderr) is left out,
        // so nothing here is untrusted text, and nothing is fenced.
        const [summary, json, ...rest] = text.split("\n")
        expect(rest).toEqual([])
        expect(summary).toBe("DeployStack succeeded.")
        expect(JSON.parse(json ?? "")).toEqual({
          operation: "DeployStack",
          target: "Stack staging-web",
          status: "Complete",
          success: true,
          seconds: expect.any(Number),
          update: expect.stringMatching(/^[0-9a-f]{24}$/),
          // What now holds: the stack's state, as its list says it after the deploy.
          state: "running",
          // The Update's success says once that each stage succeeded.
          stages: ["Set git remote", "Checkout branch", "Git pull", "Latest Commit", "Compose Pull", "Compose Up"].map(
            (stage) => ({ stage }),
          ),
        })
        expect(glance._meta?.["svc-mcp/untrusted"]).toBeUndefined()
        // A field of the glance holds only what the Update has: its values, its target's name.
        const whole = yield* deploy({ fields: ["*"] })
        const [, first, update] = Mcp.text(whole).split("\n")
        expect(first).toMatch(/^DeployStack \(update [0-9a-f]{24}\) succeeded\.$/)
        const record = JSON.parse((update ?? "").replace(/<u:[0-9a-f]{16}>|<\/u>/g, "")) as Record<string, unknown>
        expect(record).toMatchObject({ operation: "DeployStack", status: "Complete", success: true })
        expect(record.logs).toContainEqual(
          expect.objectContaining({
            stage: "Compose Up",
            command: "cd /etc/komodo/stacks/staging-web && docker compose -p staging-web -f compose.yaml up -d",
            stdout: "",
            // The second deploy of a stack that runs, unchanged: compose leaves its containers running.
            stderr: expect.stringMatching(
              /^ Container staging-web-web-1 {2}Running\n[\s\S]* Container staging-web-redis-1 {2}Running$/,
            ),
          }),
        )
        expect(whole.structuredContent).toEqual(record)
      }),
  )

  it.scopedLive("the last stage's output fenced where it has some; a failed step's stderr, fenced", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const execute = (operation: string, params: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name: "svc_execute", arguments: { operation, params, wait: true } }))
      const glanceOf = (result: Awaited<ReturnType<typeof client.callTool>>) => {
        const lines = Mcp.text(result).split("\n")
        const id = /<u:([0-9a-f]{16})>/.exec(lines[0] ?? "")?.[1]
        return { lines, id, json: JSON.parse(lines.at(-1) ?? "") }
      }
      // A deployment whose container someone removed by hand: docker's error, on stderr.
      const prod1 = sandbox.world.store.find("server", "prod-01")
      const containers = sandbox.world.containersOn(prod1)
      containers.splice(
        containers.findIndex((c) => c.name === "api"),
        1,
      )
      const failed = glanceOf(yield* execute("start_deployment", { deployment: "api" }))
      expect(failed.lines[0]).toMatch(/^\[svc-mcp: untrusted text at stages\[\]\.err \(deployment api\)/)
      expect(failed.lines[1]).toBe("StartDeployment FAILED: see its logs below.")
      expect(failed.json).toMatchObject({
        success: false,
        stages: [
          {
            stage: "Docker Start",
            ok: false,
            err: `<u:${failed.id}>Error response from daemon: No such container: api\nError: failed to start containers: api</u>`,
          },
        ],
      })
      // docker run answers the new container's id: the one the server's containers list.
      const run = glanceOf(yield* execute("deploy", { deployment: "api" }))
      expect(run.lines[1]).toBe("Deploy succeeded.")
      const container = sandbox.world.containersOn(prod1).find((c) => c.name === "api")
      expect(container?.id).toMatch(/^[0-9a-f]{64}$/)
      expect(run.json.stages).toEqual([{ stage: "Docker Run", out: `<u:${run.id}>${container?.id}</u>` }])
      expect(Mcp.text(yield* execute("deploy", { deployment: "api" })).length).toBeLessThan(500)
    }),
  )
})
