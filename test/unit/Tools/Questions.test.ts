/**
 * The tables of questions (src/Tools/Records/Questions.ts): every type a glance covers has its
 * rows, every path they name is one of the definitions, and, on the sandbox in each of its three
 * scenarios, every glance holds the answer to each question its record (or its list item) holds,
 * each answer valid against the definitions' schema of the field it answers, or of its own shape
 * where it is made of several (a URL masked, an environment's keys, a stage's runs, an alert's numbers).
 */
import { describe, expect, it } from "@effect/vitest"
import { Ajv, type ValidateFunction } from "ajv"
import * as Effect from "effect/Effect"
import { KINDS } from "../../../src/Kinds/Kinds.js"
import type { Scenario } from "../../../src/Sandbox/Estates/Scenarios.js"
import { REDACTED } from "../../../src/Shared/Secrets.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { QUESTIONS, type Question } from "../../../src/Tools/Records/Questions.js"
import { RECORD_VIEWS } from "../../../src/Tools/Records/RecordViews.js"
import { document } from "../../support/Definitions.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"
import { answerSchema, readAt, resolve, type Schema, schemaAt } from "../../support/SchemaValues.js"

const ajv = new Ajv({ strict: false, allErrors: false })
// The definitions added once, under a name of their own: each validator refers to them there, not in a copy of its own.
const DEFINITIONS = "definitions"
ajv.addSchema({ definitions: document.definitions }, DEFINITIONS)

const choicesOf = (schema: Schema): ReadonlyArray<Schema> => [
  ...((schema.anyOf as Array<Schema>) ?? []),
  ...((schema.oneOf as Array<Schema>) ?? []),
]

/** Every schema at a dotted path, through arrays and each of its choices: what a value there may be. */
const schemasAt = (schema: Schema, names: ReadonlyArray<string>): ReadonlyArray<Schema> => {
  const here = resolve(schema)
  if (names.length === 0) return [here]
  if (here.type === "array") return schemasAt((here.items as Schema) ?? {}, names)
  const choices = choicesOf(here)
  if (choices.length > 0) return choices.flatMap((choice) => schemasAt(choice, names))
  const [first, ...rest] = names
  const property = (here.properties as Record<string, Schema> | undefined)?.[first as string]
  return property === undefined ? [] : schemasAt(property, rest)
}

/** Each validator compiled once, by what it checks: a question is asked of many records in each scenario. */
const compiled = new Map<string, ValidateFunction>()
const once = (key: string, make: () => ValidateFunction): ValidateFunction => {
  let found = compiled.get(key)
  if (found === undefined) {
    found = make()
    compiled.set(key, found)
  }
  return found
}

/** A validator of the definitions' schemas at `path` of `endpoint`'s answer, references resolved in the document. */
const validatorAt = (endpoint: string, path: string) =>
  once(`${endpoint} ${path}`, () =>
    ajv.compile(
      JSON.parse(
        JSON.stringify({ anyOf: schemasAt(answerSchema(endpoint), path.split(".")) }).replaceAll(
          '"#/definitions/',
          `"${DEFINITIONS}#/definitions/`,
        ),
      ),
    ),
  )

/** The shapes of the answers made of several fields: none of them the field as it is. */
const SHAPES: Readonly<Record<string, object>> = {
  url: { type: "string", pattern: `^([a-z][a-z0-9+.-]*://[^/@]+(/[^/?#]+)?(/\\[redacted\\])?|\\[redacted\\])$` },
  keys: { type: "array", items: { type: "string", pattern: "^[^=\\s]+$" } },
  runs: { type: "array", items: { type: "string", pattern: "^.*: .*$" } },
  numbers: {
    type: "object",
    additionalProperties: false,
    properties: {
      percentage: { type: "number" },
      used_gb: { type: "number" },
      total_gb: { type: "number" },
      from: { type: "string" },
      to: { type: "string" },
    },
  },
  files_at: { enum: ["server", "repo", "ui"] },
}

describe("the tables of questions", () => {
  it("every type the glance covers has its rows, and none other", () => {
    expect(Object.keys(QUESTIONS).sort()).toEqual(Object.keys(RECORD_VIEWS).sort())
    for (const [endpoint, { questions }] of Object.entries(QUESTIONS))
      expect(questions.length, endpoint).toBeGreaterThan(0)
    // The questions the issue names, each answered.
    const labels = (endpoint: string) => QUESTIONS[endpoint]?.questions.map((q) => q.label)
    expect(labels("read/GetStack")).toEqual(expect.arrayContaining(["state", "files_at", "files"]))
    expect(labels("read/GetDeployment")).toEqual(expect.arrayContaining(["state", "env"]))
    expect(labels("read/GetBuild")).toContain("state")
    expect(labels("read/GetServer")).toContain("state")
    expect(labels("read/GetAlerter")).toContain("url")
    expect(labels("read/GetProcedure")).toContain("stages")
    expect(labels("read/GetAlert")).toContain("values")
  })

  it("every path is a field of the definitions, of the record or of the list that holds it; a label of the view reads its path", () => {
    for (const [endpoint, { questions, quiet = [] }] of Object.entries(QUESTIONS)) {
      const view = RECORD_VIEWS[endpoint]
      for (const question of questions) {
        const of = question.from ?? endpoint
        for (const path of [...question.paths, ...(question.fields ?? [])]) {
          expect(
            schemaAt(answerSchema(of), path.split(".")),
            `${endpoint} ${question.label}: ${of} ${path}`,
          ).toBeDefined()
        }
        if (question.reads === undefined) {
          const column = view?.columns.find((c) => c.label === question.label)
          expect(column?.path, `${endpoint} ${question.label}`).toBe(question.paths[0])
        }
        if (question.reads === "listed") {
          // Its list and the path in its item are the table of kinds': the kind whose get the record is.
          const kind = Object.values(KINDS).find((k) => "get" in k && `read/${k.get.endpoint}` === endpoint)
          expect(kind && "state" in kind ? [`read/${kind.list}`, [kind.state]] : undefined, endpoint).toEqual([
            question.from,
            question.paths,
          ])
        }
      }
      // A quiet label is a switch of the view: a boolean of the definitions.
      for (const label of quiet) {
        const column = view?.columns.find((c) => c.label === label)
        expect(column, `${endpoint} ${label}`).toBeDefined()
        expect(schemaAt(answerSchema(endpoint), (column?.path ?? "").split("."))?.type, `${endpoint} ${label}`).toBe(
          "boolean",
        )
      }
    }
  })
})

type Client = Effect.Effect.Success<ReturnType<typeof Mcp.connectV2>>["client"]

/** A record of each type the sandbox holds, as an assistant asks for it: tool, selector key, selector, params. */
const ASKED: ReadonlyArray<readonly [string, string, string, Record<string, unknown>]> = [
  ["svc_get", "resource_type", "stack", { stack: "web" }],
  ["svc_get", "resource_type", "stack", { stack: "staging-web" }],
  ["svc_get", "resource_type", "deployment", { deployment: "api" }],
  ["svc_get", "resource_type", "deployment", { deployment: "docs" }],
  ["svc_get", "resource_type", "build", { build: "api-image" }],
  ["svc_get", "resource_type", "server", { server: "prod-01" }],
  ["svc_get", "resource_type", "procedure", { procedure: "release" }],
  ["svc_get", "resource_type", "action", { action: "rotate-logs" }],
  ["svc_get", "resource_type", "alerter", { alerter: "ops-slack" }],
  ["svc_get", "resource_type", "repo", { repo: "infra" }],
  ["svc_get", "resource_type", "builder", { builder: "local-builder" }],
  ["svc_get", "resource_type", "swarm", { swarm: "edge-swarm" }],
  ["svc_get", "resource_type", "user_group", { user_group: "operators" }],
  ["svc_get", "resource_type", "user", { user: "alice" }],
  ["svc_inspect", "inspect_type", "container", { server: "prod-01", container: "web-web-1" }],
  ["svc_inspect", "inspect_type", "image", { server: "prod-01", image: "nginx:1.27" }],
  ["svc_inspect", "inspect_type", "network", { server: "prod-01", network: "bridge" }],
  ["svc_inspect", "inspect_type", "deployment_container", { deployment: "api" }],
  ["svc_inspect", "inspect_type", "stack_container", { stack: "web", service: "web" }],
  ["svc_inspect", "inspect_type", "swarm", { swarm: "edge-swarm" }],
  ["svc_inspect", "inspect_type", "swarm_service", { swarm: "edge-swarm", service: "edge-proxy" }],
]

/** The endpoint a call reaches, by its tool's tables. */
const endpointOf = (tool: string, selector: string): string => {
  const table = tool === "svc_get" ? Definitions.svc_get.endpoints : Definitions.svc_inspect.endpoints
  const found = (table as Readonly<Record<string, string>>)[selector]
  if (found !== undefined) return `read/${found}`
  return selector === "alert" ? "read/GetAlert" : "read/FindUser"
}

/** svc_list's resource_type by its list endpoint, from the one table of kinds. */
const LISTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(KINDS).map(([name, kind]) => [`read/${kind.list}`, name]),
)

const isHeld = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  value !== "" &&
  !(Array.isArray(value) && (value.length === 0 || value.every((v) => !isHeld(v))))

/** Whether the record (or its list item) holds what `question` asks. */
const holds = (question: Question, record: unknown, item: unknown): boolean => {
  if (question.reads === "files_at") return true
  const source = question.from === undefined ? record : item
  const values = question.paths.map((path) => readAt(source, path.split(".")))
  if (question.reads === "keys") return typeof values[0] === "string" && /^\s*[^#\s][^=]*=/m.test(values[0])
  if (question.reads === "numbers") return values.some((v) => typeof v === "number" || typeof v === "string")
  return values.some(isHeld)
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

/** Each glance against its table: the label of every question its record holds, its answer valid. */
const holdToTables = (scenario: Scenario, client: Client) =>
  Effect.gen(function* () {
    const alerts = (yield* call(client, "svc_list", { resource_type: "alert", fields: ["*"] })).structuredContent as {
      result?: Array<{ _id?: { $oid?: string } }>
    }
    const alert = alerts.result?.[0]?._id?.$oid
    const asked =
      alert === undefined ? ASKED : [...ASKED, ["svc_get", "resource_type", "alert", { id: alert }] as const]
    let checked = 0
    for (const [tool, key, selector, params] of asked) {
      const endpoint = endpointOf(tool, selector)
      const questions = QUESTIONS[endpoint]?.questions ?? []
      const args = { [key]: selector, params }
      const glanced = yield* call(client, tool, args)
      expect(glanced.isError, `${selector} ${JSON.stringify(params)}`).toBeFalsy()
      const value = glanced.structuredContent as Record<string, unknown>
      const record = (yield* call(client, tool, { ...args, fields: ["*"] })).structuredContent
      // A record shown whole (shorter than any glance of it) answers every question as it is.
      if (Mcp.text(glanced).startsWith("{")) continue
      const list = questions.find((q) => q.from !== undefined)?.from
      const items =
        list === undefined
          ? []
          : (
              (yield* call(client, "svc_list", { resource_type: LISTS[list], params: { limit: 0 }, fields: ["*"] }))
                .structuredContent as { result: Array<{ name?: string }> }
            ).result
      const item = items.find((i) => i.name === (record as { name?: string }).name)
      for (const question of questions) {
        const where = `${scenario} ${selector} ${JSON.stringify(params)} ${question.label}`
        if (!holds(question, record, item)) {
          expect(value[question.label], where).toBeUndefined()
          continue
        }
        expect(value, where).toHaveProperty([question.label])
        const answer = value[question.label]
        const validate =
          question.reads !== undefined && question.reads !== "listed"
            ? ajv.compile(SHAPES[question.reads] ?? {})
            : validatorAt(question.from ?? endpoint, question.paths[0] ?? "")
        // A label that shows ids as names, or a target by type and name, is not the field as it is.
        const column = RECORD_VIEWS[endpoint]?.columns.find((c) => c.label === question.label)
        if (column?.name === undefined && column?.target === undefined) {
          // A path read through a list (a network's `IPAM.Config.Subnet`) answers each item's field, as a list.
          const items: ReadonlyArray<unknown> | undefined = Array.isArray(answer) ? answer : undefined
          const valid = validate(answer) || (items?.every((item) => validate(item)) ?? false)
          expect(valid, `${where}: ${JSON.stringify(answer)} ${JSON.stringify(validate.errors)}`).toBe(true)
        }
        checked++
      }
    }
    return checked
  })

describe("every glance holds its table, on the sandbox", () => {
  for (const scenario of ["calm", "incident", "drift"] as ReadonlyArray<Scenario>) {
    it.scopedLive(`in the ${scenario} scenario`, () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped({ scenario })
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
        const checked = yield* holdToTables(scenario, client)
        expect(checked).toBeGreaterThan(60)
      }),
    )
  }

  it.scopedLive(
    "a stack's state, files and where they are; a deployment's keys never its values; an alerter's URL masked",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
        const get = (type: string, params: Record<string, unknown>, more: Record<string, unknown> = {}) =>
          call(client, "svc_get", { resource_type: type, params, ...more })
        const stack = yield* get("stack", { stack: "web" })
        expect(Mcp.text(stack).split("\n")[0]).toBe(
          '[svc-mcp: stack web at a glance; fields: ["*"] for all, or ["files"] for its files]',
        )
        expect(stack.structuredContent).toMatchObject({ state: "running", files_at: "repo", files: ["compose.yaml"] })
        // `fields: ["files"]`: the paths and what they hold, in one call, as the service's cache last read them.
        yield* call(client, "svc_execute", { operation: "refresh_stack_cache", params: { stack: "web" } })
        const files = JSON.parse(
          Mcp.text(yield* get("stack", { stack: "web" }, { fields: ["files"] }))
            .split("\n")
            .filter((line) => line.startsWith("{"))
            .join("")
            .replace(/<u:[0-9a-f]{16}>|<\/u>/g, ""),
        )
        expect(files.config.file_paths).toEqual(["compose.yaml"])
        expect(files.info.remote_contents).toEqual([
          expect.objectContaining({ path: "compose.yaml", contents: expect.stringContaining("services:") }),
        ])
        // Files on the server, or written in the service: said so.
        const staging = sandbox.world.store.find("stack", "staging-web")
        staging.config = { ...staging.config, files_on_host: true }
        expect((yield* get("stack", { stack: "staging-web" })).structuredContent).toMatchObject({ files_at: "server" })
        staging.config = { ...staging.config, files_on_host: false, repo: "", file_contents: "services: {}" }
        expect((yield* get("stack", { stack: "staging-web" })).structuredContent).toMatchObject({ files_at: "ui" })
        // The planted secret value of a deployment's environment never shows; its key does.
        sandbox.world.store.find("deployment", "api").config.environment =
          "API_TOKEN=planted-value-7f3a\n# NOTE=x\nLOG=info"
        const api = yield* get("deployment", { deployment: "api" })
        expect(api.structuredContent).toMatchObject({ state: "running", env: ["API_TOKEN", "LOG"] })
        expect(Mcp.text(api)).not.toContain("planted-value-7f3a")
        // A webhook's token, in its path and query, is masked; its host and first segment kept.
        sandbox.world.store.find("alerter", "ops-slack").config.endpoint = {
          type: "Discord",
          params: { url: "https://discord.com/api/webhooks/123/planted-token-9c1e?wait=true" },
        }
        const alerter = yield* get("alerter", { alerter: "ops-slack" })
        expect(alerter.structuredContent).toMatchObject({ url: `https://discord.com/api/${REDACTED}` })
        expect(Mcp.text(alerter)).not.toContain("planted-token")
        // A procedure's stages say what they run, by type and target.
        const procedure = yield* get("procedure", { procedure: "release" })
        expect(procedure.structuredContent).toMatchObject({
          stages: ["build: RunBuild api-image", "deploy: Deploy api"],
        })
      }),
  )

  it.scopedLive("a server's state: whether the service reaches it, read from its list item", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped({ scenario: "incident" })
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const get = (server: string) => call(client, "svc_get", { resource_type: "server", params: { server } })
      expect((yield* get("prod-01")).structuredContent).toMatchObject({ name: "prod-01", state: "Ok" })
      const staging = yield* get("staging-01")
      expect(staging.structuredContent).toMatchObject({ name: "staging-01", state: "NotOk" })
    }),
  )
})
