/**
 * Records at a glance (src/Tools/RecordGlance.ts, RecordViews.ts): the table
 * against the service's definitions; for any record the definitions allow,
 * the default answer holds only fields of the record (plus names), never a
 * secret, and no untrusted text unfenced; on the sandbox, svc_get's and
 * svc_inspect's answers at a glance, each whole with `fields: ["*"]` exactly
 * as it was answered before the glance came (a snapshot), `schema: true`
 * listing the labels.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { REDACTED } from "../../../src/Shared/Secrets.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import * as TablesAll from "../../../src/Tools/Catalog/TablesAll.js"
import type * as Names from "../../../src/Tools/Names/Names.js"
import * as RecordGlance from "../../../src/Tools/RecordGlance.js"
import { type Question, readOf } from "../../../src/Tools/Records/Questions.js"
import { RECORD_VIEWS } from "../../../src/Tools/Records/RecordViews.js"
import type * as Render from "../../../src/Tools/Render.js"
import { PATHS } from "../../../src/Untrusted/Paths.js"
import type { Made as ToolSuccess } from "../../support/Answers.js"
import * as Answers from "../../support/Answers.js"
import * as Mcp from "../../support/Mcp.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"
import * as Sandboxes from "../../support/Sandbox.js"
import { answerSchema, arbitrary, ID, schemaAt, valuesAt } from "../../support/SchemaValues.js"

/** Field names that hold a credential (as Tools/Bounds/AnswerBounds.ts redacts them). */
const CREDENTIAL = /secret|passw(or)?d|passphrase|token|private_?key|jwt|credential|passkey/i
const SECRET = "PLANTED-SECRET-7f3a"
const UNTRUSTED = "PLANTED-UNTRUSTED-9c1e"

/** The record with every credential-named string set to SECRET. */
const plantSecrets = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(plantSecrets)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      typeof field === "string" && CREDENTIAL.test(key) ? SECRET : plantSecrets(field),
    ]),
  )
}

/** Every string at or below `path` (a pattern of Untrusted/Paths.ts) set to UNTRUSTED. */
const plantUntrusted = (value: unknown, path: ReadonlyArray<string>): unknown => {
  if (path.length === 0) return everyString(value)
  const [first, ...rest] = path
  if (Array.isArray(value)) return first === "[]" ? value.map((item) => plantUntrusted(item, rest)) : value
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      first === "*" || key === first ? plantUntrusted(field, rest) : field,
    ]),
  )
}
const everyString = (value: unknown): unknown =>
  typeof value === "string"
    ? `${UNTRUSTED} ${value}`
    : Array.isArray(value)
      ? value.map(everyString)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([key, field]) => [key, everyString(field)]))
        : value

const NAMES: Names.NameMaps = {
  server: new Map([[ID, "prod-01"]]),
  tag: new Map([[ID, "production"]]),
  builder: new Map([[ID, "local-builder"]]),
  swarm: new Map([[ID, "edge-swarm"]]),
  build: new Map([[ID, "api-image"]]),
}
const ALL_NAMES = new Set(["prod-01", "production", "local-builder", "edge-swarm", "api-image"])

/** The tool and selector that reach `endpoint`. */
const reaching = (endpoint: string): readonly [typeof Definitions.svc_get, string] => {
  const name = endpoint.replace("read/", "")
  const get = Object.entries(Tables.get).find(([, e]) => e === name)?.[0]
  if (get !== undefined) return [Definitions.svc_get, get]
  const inspect = Object.entries(Tables.inspect).find(([, e]) => e === name)?.[0]
  if (inspect !== undefined) return [Definitions.svc_inspect, inspect]
  const all = Object.entries(TablesAll.get).find(([, e]) => e === endpoint)?.[0]
  return [Definitions.svc_get, all ?? ""]
}

/** The default answer to a call of `endpoint` that the service answered `record`. */
const rendered = (endpoint: string, record: unknown): Render.Rendered => {
  const [tool, selector] = reaching(endpoint)
  const outcome: ToolSuccess = {
    tool: tool.name,
    wait: false,
    schema: false,
    selectorKey: tool.selectorKey,
    selector,
    endpoint,
    body: {},
    data: record,
    text: JSON.stringify(record),
    names: NAMES,
  }
  return Answers.success(tool, outcome, { maxOutputChars: 50_000, revealSecrets: false })
}

/** The text outside every fence: what the answer shows as its own. */
const outsideFences = (text: string): string => text.replace(/<u:[0-9a-f]{16}>[\s\S]*?<\/u>/g, "")

/** Whether `cell`, a question's answer, is made of what the record holds at the question's paths, as its reader says. */
const madeOf = (question: Question, record: unknown, cell: unknown): boolean => {
  const at = (path: string) => valuesAt(record, path.split("."))
  switch (question.reads) {
    case "url": {
      const [url] = at("config.endpoint.params.url") as Array<string>
      if (cell === REDACTED) return true
      const parsed = URL.canParse(url ?? "") ? new URL(url ?? "") : undefined
      return parsed !== undefined && (cell as string).startsWith(`${parsed.protocol}//${parsed.host}`)
    }
    case "keys": {
      const [env] = at("config.environment") as Array<string>
      const lines = (env ?? "").split("\n").map((line) => line.trim())
      return (cell as Array<string>).every((key) =>
        lines.some((line) => line.startsWith(key) && line.slice(key.length).trim().startsWith("=")),
      )
    }
    case "runs": {
      const names = at("config.stages.name")
      return (cell as Array<string>).every((run) =>
        names.some((name) => run.startsWith(`${name}: `) || run.startsWith(`${name} (off): `)),
      )
    }
    case "numbers":
      return Object.entries(cell as object).every(([key, value]) => at(`data.data.${key}`).includes(value))
    case "files_at":
      return ["server", "repo", "ui"].includes(cell as string)
    default:
      return false
  }
}

type Sandbox = Effect.Effect.Success<ReturnType<typeof Sandboxes.scoped>>

/** One record an assistant asks for, on the sandbox's small estate. */
interface Asked {
  readonly tool: string
  readonly key: string
  readonly selector: string
  readonly params: (sandbox: Sandbox) => Record<string, unknown>
}

const given =
  (params: Record<string, unknown>) =>
  (_: Sandbox): Record<string, unknown> =>
    params
const byId =
  (kind: "image_registry_account" | "git_provider_account", name: string) =>
  (sandbox: Sandbox): Record<string, unknown> => ({ id: sandbox.world.store.find(kind, name).id })

const get = (selector: string, params: Asked["params"]): Asked => ({
  tool: "svc_get",
  key: "resource_type",
  selector,
  params,
})
const inspect = (selector: string, params: Record<string, unknown>): Asked => ({
  tool: "svc_inspect",
  key: "inspect_type",
  selector,
  params: given(params),
})

/** A record of each type svc_get reaches, and of each svc_inspect answers on the sandbox. */
const ASKED: ReadonlyArray<Asked> = [
  get("stack", given({ stack: "web" })),
  get("build", given({ build: "api-image" })),
  get("server", given({ server: "prod-01" })),
  get("procedure", given({ procedure: "release" })),
  get("deployment", given({ deployment: "api" })),
  get("alerter", given({ alerter: "ops-slack" })),
  get("image_registry_account", byId("image_registry_account", "ghcr.io:acme-bot")),
  get("sync_resource", given({ sync: "estate-sync" })),
  get("tag", given({ tag: "production" })),
  get("action", given({ action: "rotate-logs" })),
  get("repo", given({ repo: "infra" })),
  get("builder", given({ builder: "local-builder" })),
  get("swarm", given({ swarm: "edge-swarm" })),
  get("variable", given({ name: "DB_PASSWORD" })),
  get("user_group", given({ user_group: "operators" })),
  get("git_provider_account", byId("git_provider_account", "github.com:acme-bot")),
  inspect("container", { server: "prod-01", container: "web-web-1" }),
  inspect("image", { server: "prod-01", image: "nginx:1.27" }),
  inspect("network", { server: "prod-01", network: "bridge" }),
  inspect("volume", { server: "prod-01", volume: "redis-data" }),
  inspect("deployment_container", { deployment: "api" }),
  inspect("stack_container", { stack: "web", service: "web" }),
  inspect("swarm", { swarm: "edge-swarm" }),
  inspect("swarm_service", { swarm: "edge-swarm", service: "edge-proxy" }),
]

/**
 * What differs from one sandbox to the next: the fences' token, the ids' leading
 * seconds, the times on the calm day's clock (which starts when the sandbox does).
 */
const steady = (text: string): string =>
  text
    .replace(/<u:[0-9a-f]{16}>/g, "<u:TOKEN>")
    .replace(/\b[0-9a-f]{8}(0{10}[0-9a-f]{6})\b/g, "OID-$1")
    .replace(/"(\w+_at|\w+_ts)":\d+/g, '"$1":0')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "TIME")

describe('fields: ["*"]', () => {
  it.scopedLive("answers each record as it was answered before records came at a glance, byte for byte", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const answers: Record<string, string> = {}
      for (const { tool, key, selector, params } of ASKED) {
        const result = yield* Effect.promise(() =>
          client.callTool({ name: tool, arguments: { [key]: selector, params: params(sandbox), fields: ["*"] } }),
        )
        expect(result.isError, `${tool} ${selector}`).toBeFalsy()
        answers[`${tool} ${selector}`] = steady(Mcp.text(result))
      }
      yield* Effect.promise(() =>
        expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot("../snapshots/records-whole.json"),
      )
    }),
  )
})

describe("the records' views", () => {
  const endpoints = Object.keys(RECORD_VIEWS)

  it("has a view for every record svc_get reaches but the small ones, the sync its plan, and for svc_inspect's Docker objects", () => {
    const whole = ["GetTag", "GetVariable", "GetImageRegistryAccount", "GetGitProviderAccount"]
    for (const endpoint of Object.values(Tables.get)) {
      expect(RecordGlance.of(Definitions.svc_get.shows, `read/${endpoint}`) === undefined, endpoint).toBe(
        whole.includes(endpoint),
      )
    }
    // The sync's glance is the plan of its pending changes (test/unit/Tools/SyncPlan.test.ts), its refresh's too.
    expect(RECORD_VIEWS["read/GetResourceSync"]).toBeUndefined()
    expect(RecordGlance.of(Definitions.svc_execute.shows, "write/RefreshResourceSyncPending")).toBe(
      RecordGlance.of(Definitions.svc_get.shows, "read/GetResourceSync"),
    )
    // A volume, a swarm's config or secret are a few fields; a stack's swarm info is not in the definitions.
    const small = ["InspectVolume", "InspectSwarmConfig", "InspectSwarmSecret", "InspectStackSwarmInfo"]
    for (const endpoint of Object.values(Tables.inspect)) {
      expect(RecordGlance.of(Definitions.svc_inspect.shows, `read/${endpoint}`) === undefined, endpoint).toBe(
        small.includes(endpoint),
      )
    }
    // Other tools' answers are not records at a glance.
    expect(RecordGlance.of(Definitions.svc_list.shows, "read/GetStack")).toBeUndefined()
  })

  it("each label reads a field the definitions give, never a credential nor untrusted text; `more` one no label reads", () => {
    for (const endpoint of endpoints) {
      const view = RECORD_VIEWS[endpoint]
      if (view === undefined) continue
      const schema = answerSchema(endpoint)
      const untrusted = (PATHS[endpoint] ?? []).map(([path]) => path.replaceAll(".[]", ""))
      if (view.more !== undefined) {
        expect(schemaAt(schema, view.more.split(".")), `${endpoint} more ${view.more}`).toBeDefined()
        expect(view.columns.map((column) => column.path)).not.toContain(view.more)
      }
      for (const column of view.columns) {
        expect(schemaAt(schema, column.path.split(".")), `${endpoint} ${column.path}`).toBeDefined()
        expect(CREDENTIAL.test(column.path), `${endpoint} ${column.path}`).toBe(false)
        // A label of the table's own words shows none of the text it reads.
        if (column.of !== undefined) continue
        for (const path of untrusted) expect(column.path.startsWith(path), `${endpoint} ${column.path}`).toBe(false)
      }
    }
  })

  for (const endpoint of endpoints) {
    const view = RECORD_VIEWS[endpoint]
    if (view === undefined) continue
    const planted = arbitrary(answerSchema(endpoint))
      .map(plantSecrets)
      .map((record) => (PATHS[endpoint] ?? []).reduce((r, [path]) => plantUntrusted(r, path.split(".")), record))
    property(
      `${endpoint}: the default answer holds only fields of the record (plus names), no secret, no untrusted text unfenced`,
      { record: planted },
      ({ record }) => {
        const answer = rendered(endpoint, record)
        expect(answer.isError).toBe(false)
        expect(answer.text).not.toContain(SECRET)
        expect(outsideFences(answer.text)).not.toContain(UNTRUSTED)
        const of = RecordGlance.of(reaching(endpoint)[0].shows, endpoint)
        const glance = of?.glance(record as never, NAMES, {})
        // No glance is written in fewer characters than its floor, below which a record is shown whole unglanced.
        if (glance !== undefined) {
          expect(`${glance.line}${JSON.stringify(glance.value)}`.length).toBeGreaterThanOrEqual(of?.floor ?? 0)
        }
        // The answer is the glance, unless the glance would not be shorter than the record (or the record has none of its fields).
        const shown = glance?.line !== undefined && answer.text.includes(glance.line)
        if (shown) expect(answer.structuredData).toEqual(glance?.value)
        // Else the record whole: each of its fields, in its order, and no label of the glance's.
        else expect(Object.keys(answer.structuredData ?? {})).toEqual(Object.keys(record as object))
        for (const [label, cell] of Object.entries((glance?.value ?? {}) as Record<string, unknown>)) {
          if (endpoint === "read/GetStack" && label === "drift") {
            // A stack's drift: its commits, and paths of its files, deployed or in the repository.
            const drift = cell as { deployed_commit: unknown; repository_commit: unknown; files: Array<unknown> }
            expect([...valuesAt(record, ["info", "deployed_hash"]), null]).toContain(drift.deployed_commit)
            expect([...valuesAt(record, ["info", "latest_hash"]), null]).toContain(drift.repository_commit)
            const paths = [
              ...valuesAt(record, ["info", "deployed_contents", "path"]),
              ...valuesAt(record, ["info", "remote_contents", "path"]),
            ]
            for (const path of drift.files) expect(paths).toContain(path)
            continue
          }
          const question = readOf(endpoint).find((q) => q.label === label)
          if (question !== undefined) {
            // An answer made of its question's paths (Questions.ts), never of a list item here: none was read.
            expect(question.reads, label).not.toBe("listed")
            expect(madeOf(question, record, cell), `${label}: ${JSON.stringify(cell)}`).toBe(true)
            continue
          }
          const column = view.columns.find((c) => c.label === label)
          expect(column, label).toBeDefined()
          const found = valuesAt(record, (column?.path ?? "").split("."))
          if (column?.of !== undefined) {
            // Only the table's words, and only those the record holds.
            expect(column.of.includes(cell as string) && found.includes(cell)).toBe(true)
            continue
          }
          if (column?.target === true) {
            // The target's type, then the name of its id (or the id where no name is known).
            const [target] = found as Array<{ type?: unknown; id?: unknown }>
            const [type, ...rest] = (cell as string).split(" ")
            expect(type).toBe(target?.type)
            const shown = rest.join(" ")
            if (shown !== "") expect(shown === target?.id || ALL_NAMES.has(shown)).toBe(true)
            continue
          }
          const flat = found.flatMap((value) => (Array.isArray(value) ? value : [value]))
          const same = (a: unknown) => (b: unknown) => JSON.stringify(a) === JSON.stringify(b)
          // A name stands for an id the record holds.
          const kept = (value: unknown) =>
            (column?.name !== undefined && ALL_NAMES.has(value as string) && flat.includes(ID)) ||
            flat.some(same(value))
          if (found.some(same(cell)) || kept(cell)) continue
          expect(Array.isArray(cell), `${label}: ${JSON.stringify(cell)}`).toBe(true)
          for (const value of cell as Array<unknown>)
            expect(kept(value), `${label}: ${JSON.stringify(value)}`).toBe(true)
        }
      },
      { fastCheck: { numRuns: runs(20) } },
    )
  }
})

describe("a record smaller than any glance of it", () => {
  it("is shown whole as the service sent it, no glance made, whatever it holds", () => {
    const stack = RecordGlance.of(Definitions.svc_get.shows, "read/GetStack")
    const floor = stack?.floor ?? 0
    expect(floor).toBeGreaterThan(60)
    // A stack as the service could send it in just the floor's characters, with an id to name.
    const base = { name: "web", config: { server_id: ID, branch: "" } }
    const pad = "x".repeat(floor - JSON.stringify(base).length)
    const record = { ...base, config: { ...base.config, branch: pad } }
    expect(JSON.stringify(record).length).toBe(floor)
    expect(RecordGlance.glanceOf(Definitions.svc_get.shows, "read/GetStack", record, NAMES, {}, floor)).toBeUndefined()
    const answer = rendered("read/GetStack", record)
    expect(answer.text).toBe(JSON.stringify(record))
    // One character more and it is glanced at; the glance is then longer than the record, so still shown whole.
    expect(
      RecordGlance.glanceOf(Definitions.svc_get.shows, "read/GetStack", record, NAMES, {}, floor + 1),
    ).toBeDefined()
  })
})

describe("svc_get and svc_inspect at a glance, on the sandbox", () => {
  it.scopedLive("stack web: the fields an operator reads first, ids as names, at most 40% of the whole record", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const get = (args: Record<string, unknown>) =>
        Effect.promise(() =>
          client.callTool({
            name: "svc_get",
            arguments: { resource_type: "stack", params: { stack: "web" }, ...args },
          }),
        )
      const glance = yield* get({})
      const whole = Mcp.text(yield* get({ fields: ["*"] }))
      const text = Mcp.text(glance)
      expect(text.length).toBeLessThanOrEqual(whole.length * 0.4)
      const [head, json] = text.split("\n")
      expect(head).toBe('[svc-mcp: stack web at a glance; fields: ["*"] for all, or ["files"] for its files]')
      const id = sandbox.world.store.find("stack", "web").id
      expect(JSON.parse(json ?? "")).toEqual({
        name: "web",
        id,
        // Its state from its list item; where its files are; its switches that are off left out.
        state: "running",
        server: "prod-01",
        tags: ["production"],
        repo: "acme/web",
        branch: "main",
        files: ["compose.yaml"],
        files_at: "repo",
      })
      expect(glance.structuredContent).toEqual(JSON.parse(json ?? ""))
      // A label is taken as `fields` for the path it reads, the id's name beside it.
      const server = JSON.parse(Mcp.text(yield* get({ fields: ["server", "name"] })))
      expect(server).toEqual({ name: "web", config: { server_id: expect.any(String), server_name: "prod-01" } })
      // schema: true lists the labels with the paths they read.
      const schema = JSON.parse(Mcp.text(yield* get({ schema: true }))) as {
        columns: ReadonlyArray<string>
        paths: Record<string, string>
      }
      expect(schema.columns).toContain("files")
      expect(schema.paths).toMatchObject({ id: "_id.$oid", server: "config.server_id", files: "config.file_paths" })
      // A container inspected: its state and image, by its name.
      const inspected = Mcp.text(
        yield* Effect.promise(() =>
          client.callTool({
            name: "svc_inspect",
            arguments: { inspect_type: "stack_container", params: { stack: "web", service: "web" } },
          }),
        ),
      )
      expect(inspected.split("\n")[0]).toMatch(/^\[svc-mcp: container \/web-web-1 at a glance; /)
      expect(JSON.parse(inspected.split("\n")[1] ?? "")).toMatchObject({
        image: "library/web:latest",
        state: "running",
      })
    }),
  )
})

describe("a repo at a glance, on the sandbox", () => {
  it.scopedLive("says whether its last pull or build held (its list item's state) and when it last pulled", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const get = () =>
        Effect.promise(() =>
          client.callTool({ name: "svc_get", arguments: { resource_type: "repo", params: { repo: "infra" } } }),
        )
      const pulled = sandbox.world.store.find("repo", "infra").info.last_pulled_at
      expect((yield* get()).structuredContent).toMatchObject({ name: "infra", state: "Ok", last_pulled_at: pulled })
      sandbox.world.store.find("repo", "infra").info.state = "Failed"
      expect((yield* get()).structuredContent).toMatchObject({ state: "Failed" })
    }),
  )
})

describe("with SVC_REACH=all, on the sandbox", () => {
  it.scopedLive("an update is an execution's result at a glance, its output fenced; a user record at a glance", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      // A deployment's deploy: its one stage's output (docker run's container id) is shown, and fenced.
      const deployed = yield* call("svc_execute", {
        operation: "deploy",
        params: { deployment: "api" },
        wait: true,
      })
      const id = (deployed.structuredContent as { update: string }).update
      const update = yield* call("svc_get", { resource_type: "update", params: { id } })
      const [fences, head, json] = Mcp.text(update).split("\n")
      expect(fences).toMatch(/^\[svc-mcp: untrusted text at stages\[\]\.out /)
      expect(head).toBe(
        `[svc-mcp: update ${id} at a glance; fields: ["*"] for the whole record, or paths such as ["logs"]]`,
      )
      expect(JSON.parse(json ?? "")).toMatchObject({
        operation: "Deploy",
        target: "Deployment api",
        status: "Complete",
        success: true,
        update: id,
        stages: [{ stage: "Docker Run", out: expect.stringMatching(/^<u:[0-9a-f]{16}>[0-9a-f]{64}<\/u>$/) }],
      })
      expect(update._meta?.["svc-mcp/untrusted"]).toEqual(["/stages/0/out"])
      const whole = yield* call("svc_get", { resource_type: "update", params: { id }, fields: ["*"] })
      expect(whole.structuredContent).toMatchObject({ operation: "Deploy", logs: [expect.any(Object)] })

      // The sandbox's user record at a glance: shorter than the record, its password's field never shown.
      const user = Mcp.text(yield* call("svc_get", { resource_type: "user", params: { user: "alice" } }))
      const [userLine, userJson] = user.split("\n")
      expect(userLine).toBe('[svc-mcp: user alice at a glance; fields: ["*"] for all, or e.g. ["all"]]')
      expect(JSON.parse(userJson ?? "")).toMatchObject({ username: "alice", enabled: true, type: "Local" })
      expect(user).not.toContain("password")
    }),
  )
})
