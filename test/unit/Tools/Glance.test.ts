/**
 * Lists at a glance (src/Tools/Lists/Glance.ts, Projections.ts): the table against
 * the service's definitions; for any record the definitions allow, a row is a
 * subset of the record plus names and holds no secret; `fields: ["*"]` is the
 * service's answer byte for byte; names are read once per caller and kind,
 * never shared between callers, and a rename shows once they are read anew.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as CallContext from "../../../src/Call/Context.js"
import * as Cli from "../../../src/Cli/CommandLine.js"
import * as CallerCredentials from "../../../src/Service/CallerCredentials.js"
import { SvcClient } from "../../../src/SvcClient.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import * as Glance from "../../../src/Tools/Lists/Glance.js"
import { PROJECTIONS } from "../../../src/Tools/Lists/Projections.js"
import * as Names from "../../../src/Tools/Names/Names.js"
import { WRITTEN } from "../../../src/Untrusted/Fields.js"
import { PATHS } from "../../../src/Untrusted/Paths.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"
import * as Sandboxes from "../../support/Sandbox.js"
import {
  answerSchema,
  arbitrary,
  ID,
  type Schema as JsonSchema,
  resolve,
  schemaAt,
  valuesAt,
} from "../../support/SchemaValues.js"

/** The schema of one item of a list endpoint's answer. */
const itemSchema = (endpoint: string): JsonSchema => {
  const answer = answerSchema(endpoint)
  // A list held in a field of the answer (`{alerts, next_page}`).
  const field = PROJECTIONS[endpoint]?.items
  const list = field === undefined ? answer : resolve((answer.properties as Record<string, JsonSchema>)[field] ?? {})
  return resolve((list.items as JsonSchema | undefined) ?? {})
}

/** Field names that hold a credential (as Tools/Bounds/AnswerBounds.ts redacts them). */
const CREDENTIAL = /secret|passw(or)?d|passphrase|token|private_?key|jwt|credential/i
const MARK = "PLANTED-SECRET-7f3a"

/** The record with every credential-named string, and a secret variable's value, set to MARK. */
const plant = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(plant)
  if (typeof value !== "object" || value === null) return value
  const record = value as Record<string, unknown>
  return Object.fromEntries(
    Object.entries(record).map(([key, field]) => [
      key,
      (typeof field === "string" && CREDENTIAL.test(key)) || (record.is_secret === true && key === "value")
        ? MARK
        : plant(field),
    ]),
  )
}

const NAMES: Names.NameMaps = {
  server: new Map([[ID, "prod-01"]]),
  tag: new Map([[ID, "production"]]),
  builder: new Map([[ID, "local-builder"]]),
}
const ALL_NAMES = new Set(["prod-01", "production", "local-builder"])

describe("the projections table", () => {
  const endpoints = Object.keys(PROJECTIONS)

  it("has a projection for every list of svc_list and every full list of svc_list_detail", () => {
    const full = Object.entries(Tables.list_detail).filter(([selector]) => selector.startsWith("full_"))
    expect(full).toHaveLength(11)
    for (const endpoint of [...Object.values(Tables.list), ...full.map(([, endpoint]) => endpoint)]) {
      expect(PROJECTIONS[`read/${endpoint}`], endpoint).toBeDefined()
    }
    // Other tools' answers are shown as they are.
    expect(Glance.projectionOf(Definitions.svc_get.shows, "read/ListStacks")).toBeUndefined()
    expect(Glance.projectionOf(Definitions.svc_list_detail.shows, "read/ListSystemProcesses")).toBeUndefined()
    expect(Glance.projectionOf(Definitions.svc_list_detail.shows, "read/ListAllContainers")).toBeDefined()
  })

  it("each column reads a field the definitions give; `more` names one no column reads", () => {
    for (const [endpoint, projection] of Object.entries(PROJECTIONS)) {
      const { more } = projection
      if (more !== undefined) {
        expect(schemaAt(itemSchema(endpoint), more.split(".")), `${endpoint} more ${more}`).toBeDefined()
        expect(Glance.compile(projection).paths, `${endpoint} more ${more}`).not.toContain(more)
        expect(CREDENTIAL.test(more), `${endpoint} more ${more}`).toBe(false)
      }
      const item = itemSchema(endpoint)
      for (const column of PROJECTIONS[endpoint]?.columns ?? []) {
        for (const path of [column.path, column.given, column.key && `${column.path}.${column.key}`]) {
          if (path === undefined || path === "") continue
          expect(schemaAt(item, path.split(".")), `${endpoint} ${path}`).toBeDefined()
        }
      }
    }
  })

  it("reads no untrusted field and no credential, but what a writer of the service set (shown as records, fenced)", () => {
    const written = new Set(WRITTEN.map((rule) => rule.definition))
    for (const endpoint of endpoints) {
      const items = PROJECTIONS[endpoint]?.items
      const untrusted = (PATHS[endpoint] ?? [])
        .filter(([, definition]) => !written.has(definition))
        .map(([path]) => path.replace(/^\[\]\./, "").replace(items === undefined ? /^$/ : `${items}.[].`, ""))
      for (const column of PROJECTIONS[endpoint]?.columns ?? []) {
        // A credential is a string under a credential's name (`is_secret`, a flag, is not one).
        const type = schemaAt(itemSchema(endpoint), column.path.split("."))?.type
        expect(CREDENTIAL.test(column.path) && type === "string", `${endpoint} ${column.path}`).toBe(false)
        // A column of the table's own words shows none of the text it reads.
        if (column.of !== undefined) continue
        for (const path of untrusted) expect(column.path.startsWith(path), `${endpoint} ${column.path}`).toBe(false)
      }
    }
  })

  for (const endpoint of endpoints) {
    const projection = PROJECTIONS[endpoint]
    if (projection === undefined) continue
    property(
      `${endpoint}: a row is a subset of the record plus names, and holds no secret`,
      { record: arbitrary(itemSchema(endpoint)).map(plant) },
      ({ record }) => {
        const { columns, rows } = Glance.rows(Glance.compile(projection), [record], NAMES)
        expect(columns).toEqual(projection.columns.map((column) => column.label))
        const [row] = rows
        expect(JSON.stringify(row)).not.toContain(MARK)
        projection.columns.forEach((column, i) => {
          const cell = row?.[i]
          // A value its record marks secret is never shown, whatever it is.
          if (column.hidden !== undefined && valuesAt(record, column.hidden.split(".")).includes(true)) {
            expect(cell).toBe("[redacted]")
            return
          }
          const found = valuesAt(record, column.path.split("."))
          if (column.of !== undefined) {
            // Only the table's words, and only those the record holds.
            if (cell !== null) expect(column.of.includes(cell as string) && found.includes(cell)).toBe(true)
            return
          }
          if (column.target) {
            // The target's type, then the name of its id (or the id where no name is known).
            const [target] = found as Array<{ type?: unknown; id?: unknown }>
            if (cell === null) return
            const [type, ...rest] = (cell as string).split(" ")
            expect(type).toBe(target?.type)
            const shown = rest.join(" ")
            if (shown !== "") expect(shown === target?.id || ALL_NAMES.has(shown)).toBe(true)
            return
          }
          if (cell === null) {
            expect(found.filter((v) => v !== null)).toEqual([])
            return
          }
          if (column.key !== undefined) {
            const keys = valuesAt(record, [...column.path.split("."), column.key])
            for (const value of cell as Array<unknown>) expect(keys).toContainEqual(value)
            return
          }
          const given = column.given === undefined ? [] : valuesAt(record, column.given.split("."))
          const flat = found.flatMap((value) => (Array.isArray(value) ? value : [value]))
          const same = (a: unknown) => (b: unknown) => JSON.stringify(a) === JSON.stringify(b)
          // A name stands for an id: one of the names the service gave, or the record's own name beside the id.
          const kept = (value: unknown) =>
            (column.name !== undefined && (ALL_NAMES.has(value as string) || given.includes(value))) ||
            flat.some(same(value))
          if (found.some(same(cell)) || kept(cell)) return
          expect(Array.isArray(cell), `${column.label}: ${JSON.stringify(cell)}`).toBe(true)
          for (const value of cell as Array<unknown>)
            expect(kept(value), `${column.label}: ${JSON.stringify(value)}`).toBe(true)
        })
      },
      { fastCheck: { numRuns: runs(20) } },
    )
  }
})

/** A client of the service that answers ListServers per caller: each key sees its own servers. */
const perCallerService = (calls: Array<string>) =>
  Layer.succeed(SvcClient, {
    call: (_group, endpoint) =>
      Effect.map(CallContext.get, (context) => {
        const key = Option.match(CallContext.callerOf(context), { onNone: () => "server", onSome: (c) => c.key })
        calls.push(`${key} ${endpoint}`)
        return key === "admin-key"
          ? [
              { id: "s1", name: "prod-01" },
              { id: "s2", name: "secret-lab" },
            ]
          : [{ id: "s1", name: "prod-01" }]
      }),
    answer: () => Effect.die("not used"),
  })

const caller = (key: string) => CallerCredentials.as({ key, secret: Redacted.make(`${key}-secret`) })

describe("names", () => {
  it.effect("are read once per caller and kind, and one caller's never reach another", () =>
    Effect.gen(function* () {
      const calls: Array<string> = []
      const names = yield* Names.make().pipe(Effect.provide(perCallerService(calls)))
      const admin = yield* names.lookup(["server"]).pipe(caller("admin-key"))
      const viewer = yield* names.lookup(["server"]).pipe(caller("viewer-key"))
      expect([...(admin.server ?? new Map()).values()]).toEqual(["prod-01", "secret-lab"])
      expect([...(viewer.server ?? new Map()).values()]).toEqual(["prod-01"])
      // A second look within the time names are kept reads nothing.
      yield* names.lookup(["server"]).pipe(caller("viewer-key"))
      yield* names.lookup(["server"]).pipe(caller("admin-key"))
      expect(calls).toEqual(["admin-key ListServers", "viewer-key ListServers"])
      // The same key with another secret is another caller.
      const other = CallerCredentials.as({ key: "admin-key", secret: Redacted.make("a guess") })
      yield* names.lookup(["server"]).pipe(other)
      expect(calls).toHaveLength(3)
      // A signed-in identity is its own caller too, even on the server's credentials.
      const identity = { issuer: "https://id.example", subject: "u1", name: "u1@example.com", scopes: [] }
      yield* names.lookup(["server"]).pipe(CallContext.locallyWith((c) => ({ ...c, identity: Option.some(identity) })))
      yield* names.lookup(["server"])
      expect(calls.slice(3)).toEqual(["server ListServers", "server ListServers"])
    }),
  )

  it.scoped(`a renamed server's new name shows once ${Names.TTL_MS / 1000} s have passed, and not a read sooner`, () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const client = yield* Effect.provide(SvcClient, Layers.client(Sandboxes.apiKeyConfig(sandbox)))
      const names = yield* Names.make().pipe(Effect.provideService(SvcClient, client))
      const before = yield* names.lookup(["server"])
      const id = sandbox.world.store.find("server", "prod-01").id
      expect(before.server?.get(id)).toBe("prod-01")
      yield* client.call("write", "RenameServer", { id: "prod-01", name: "prod-eu-01" })
      yield* TestClock.adjust(Names.TTL_MS - 1)
      expect((yield* names.lookup(["server"])).server?.get(id)).toBe("prod-01")
      yield* TestClock.adjust(1)
      expect((yield* names.lookup(["server"])).server?.get(id)).toBe("prod-eu-01")
    }),
  )
})

describe("svc_list at a glance, on the sandbox", () => {
  it.scopedLive("shows each stack's server and tags by name, and fields: [\"*\"] is the service's answer as sent", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const list = (args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name: "svc_list", arguments: { resource_type: "stack", ...args } }))
      const glance = yield* list({})
      const [first, rows] = Mcp.text(glance).split("\n")
      expect(first).toBe(
        '[svc-mcp: 3 stacks as rows of ["name","id","state","server","tags","repo","branch","services","updates"]; for more, fields: ["*"] or ["name","info.missing_files"]]',
      )
      const parsed = JSON.parse(rows ?? "") as Array<Array<unknown>>
      expect(parsed.map((row) => [row[0], row[3], row[4]])).toEqual([
        ["web", "prod-01", ["production"]],
        ["monitoring", "prod-02", ["production", "monitoring"]],
        ["staging-web", "staging-01", ["staging"]],
      ])
      expect(glance.structuredContent).toEqual({
        columns: ["name", "id", "state", "server", "tags", "repo", "branch", "services", "updates"],
        result: parsed,
      })
      const whole = yield* list({ fields: ["*"] })
      const sent = yield* Effect.promise(() =>
        fetch(`${sandbox.url}/read/ListStacks`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": sandbox.apiKey.key,
            "x-api-secret": sandbox.apiKey.secret,
          },
          body: "{}",
        }).then((response) => response.text()),
      )
      expect(Mcp.text(whole)).toBe(sent)
      expect(whole.structuredContent).toEqual({ result: JSON.parse(sent) })
    }),
  )

  it.scopedLive("a list of one item is rows too, and a secret variable's value is never shown in a row", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      // As an operator may run it: secrets shown where asked for, never at a glance.
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { revealSecrets: true })
      const list = (args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name: "svc_list", arguments: args }))
      const swarms = yield* list({ resource_type: "swarm" })
      expect(Mcp.text(swarms)).toBe(
        [
          '[svc-mcp: 1 swarm as rows of ["name","id","state","servers","tags"]; for more, fields: ["*"] or ["name","template"]]',
          JSON.stringify([
            [
              "edge-swarm",
              sandbox.world.store.find("swarm", "edge-swarm").id,
              "Healthy",
              ["prod-01", "prod-02"],
              ["production"],
            ],
          ]),
        ].join("\n"),
      )
      const variables = yield* list({ resource_type: "variable" })
      expect(variables.structuredContent).toEqual({
        columns: ["name", "value"],
        result: [
          ["REGISTRY", "ghcr.io/acme"],
          ["LOG_LEVEL", "info"],
          ["DB_PASSWORD", "[redacted]"],
        ],
      })
      const secret = sandbox.world.store.find("variable", "DB_PASSWORD").config.value as string
      expect(Mcp.text(variables)).not.toContain(secret)
      // Asked for by name, it is shown as the settings allow.
      const asked = yield* list({ resource_type: "variable", fields: ["name", "value"] })
      expect(Mcp.text(asked)).toContain(secret)
    }),
  )

  it.scopedLive("svc_list_detail's full lists are rows too, fields: [\"*\"] the service's answer, ids kept named", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const list = (args: Record<string, unknown>) =>
        Effect.promise(() =>
          client.callTool({ name: "svc_list_detail", arguments: { list_type: "full_stacks", ...args } }),
        )
      const glance = yield* list({})
      const [first, rows] = Mcp.text(glance).split("\n")
      expect(first).toBe(
        '[svc-mcp: 3 stacks as rows of ["name","id","server","tags","repo","branch","files"]; for more, fields: ["*"] or ["name","config.auto_update"]]',
      )
      const web = sandbox.world.store.find("stack", "web")
      expect((JSON.parse(rows ?? "") as Array<Array<unknown>>)[0]).toEqual([
        "web",
        web.id,
        "prod-01",
        ["production"],
        "acme/web",
        "main",
        ["compose.yaml"],
      ])
      expect(glance.structuredContent).toEqual({ columns: expect.any(Array), result: JSON.parse(rows ?? "") })
      const whole = yield* list({ fields: ["*"] })
      const sent = yield* Effect.promise(() =>
        fetch(`${sandbox.url}/read/ListFullStacks`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": sandbox.apiKey.key,
            "x-api-secret": sandbox.apiKey.secret,
          },
          body: "{}",
        }).then((response) => response.text()),
      )
      expect(JSON.parse(Mcp.text(whole))).toEqual(JSON.parse(sent))
      // A server id kept by fields comes with its name, as in svc_list.
      const kept = yield* list({ fields: ["name", "config.server_id"] })
      expect((JSON.parse(Mcp.text(kept)) as Array<unknown>)[0]).toEqual({
        name: "web",
        config: { server_id: web.config.server_id, server_name: "prod-01" },
      })
    }),
  )

  it.scopedLive("a build's builder id kept by fields comes with its name", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_list",
          arguments: { resource_type: "build", fields: ["name", "info.builder_id", "tags"] },
        }),
      )
      const builder = sandbox.world.store.find("builder", "local-builder").id
      const production = sandbox.world.store.find("tag", "production").id
      expect(JSON.parse(Mcp.text(result))).toEqual([
        {
          name: "api-image",
          info: { builder_id: builder, builder_name: "local-builder" },
          tags: [production],
          tag_names: ["production"],
        },
        { name: "docs-image", info: { builder_id: builder, builder_name: "local-builder" }, tags: [], tag_names: [] },
      ])
    }),
  )
})

describe("the command line's --estate", () => {
  it("goes with --sandbox and with the sandbox alone, small or large", () => {
    expect(Cli.parse(["--sandbox", "--estate", "large"])).toEqual({
      _tag: "Serve",
      sandbox: true,
      httpPort: undefined,
      estate: "large",
    })
    expect(Cli.parse(["--estate", "small", "--sandbox", "--services", "a,b"])).toMatchObject({
      _tag: "Serve",
      estate: "small",
      services: ["a", "b"],
    })
    expect(Cli.parse(["sandbox", "--estate", "large", "--port", "0"])).toEqual({
      _tag: "Sandbox",
      port: 0,
      estate: "large",
    })
    expect(Cli.parse(["sandbox"])).toEqual({ _tag: "Sandbox", port: 0 })
    for (const argv of [
      ["--estate", "large"],
      ["--sandbox", "--estate", "huge"],
      ["--sandbox", "--estate"],
      ["sandbox", "--estate", "medium"],
      ["sandbox", "--port", "0", "--port", "1"],
    ]) {
      expect(Cli.parse(argv), argv.join(" ")).toMatchObject({ _tag: "Invalid" })
    }
  })
})

describe("the sandbox's estates", () => {
  it.scoped("large: 50 servers, 300 stacks, 150 deployments, 40 builds, around the small one; small as it was", () =>
    Effect.gen(function* () {
      const count = (sandbox: { world: { store: { all: (kind: never) => ReadonlyArray<unknown> } } }) =>
        Object.fromEntries(
          ["server", "stack", "deployment", "build"].map((kind) => [
            kind,
            sandbox.world.store.all(kind as never).length,
          ]),
        )
      const small = yield* Sandboxes.scoped()
      expect(count(small)).toEqual({ server: 3, stack: 3, deployment: 6, build: 2 })
      const big = yield* Sandboxes.scoped({ estate: "large" })
      expect(count(big)).toEqual({ server: 50, stack: 300, deployment: 150, build: 40 })
      // The small estate's resources, its hostile text among them, are part of the large one.
      expect(big.world.store.find("stack", "web").config.server_id).toBe(big.world.store.find("server", "prod-01").id)
      expect(big.world.store.find("repo", "infra").info.latest_message).toBe(
        small.world.store.find("repo", "infra").info.latest_message,
      )
      expect(big.world.store.all("tag").length).toBeGreaterThan(small.world.store.all("tag").length)
      expect(big.world.users.length).toBeGreaterThan(small.world.users.length)
    }),
  )
})
