/**
 * The sandbox's estates hold a value for every field the tools show at a glance: each column of
 * every list's rows (src/Tools/Lists/Projections.ts) and each label of every record's glance
 * (src/Tools/Records/RecordViews.ts, Questions.ts) is shown, not empty, in at least one row or
 * record of at least one scenario, asked through the tools as an assistant asks. An answer leaves
 * an empty field out (or shows it null), so a test that compares whole answers with the sandbox's
 * could not see a column added, dropped or read from a wrong path where every value is empty.
 * The endpoints are the tables' own; where to ask (which server, swarm, stack...) is read from the
 * answers of the lists before, each param as the definitions name it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Scenario } from "../../../src/Sandbox/Estates/Scenarios.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import * as TablesAll from "../../../src/Tools/Catalog/TablesAll.js"
import { PROJECTIONS } from "../../../src/Tools/Lists/Projections.js"
import { QUESTIONS } from "../../../src/Tools/Records/Questions.js"
import { RECORD_VIEWS } from "../../../src/Tools/Records/RecordViews.js"
import { document } from "../../support/Definitions.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"
import { readAt } from "../../support/SchemaValues.js"

/**
 * The labels no estate shows, each with why: a field the service itself leaves empty, so that no
 * estate made as the service makes them could hold it. Kept as short as the service allows.
 */
const EXEMPT: Readonly<Record<string, Readonly<Record<string, string>>>> = {}

/**
 * The labels the estates hold no value for yet: each is a field to fill in an estate (Seed.ts for
 * the calm one), then to take out of this table. The test fails on a label missing that is not
 * here, and on one here that an estate now shows, so that the table only ever shrinks.
 */
const UNFILLED: Readonly<Record<string, ReadonlyArray<string>>> = {
  // Docker keeps a secret in the swarm's own store unless a secret-store plugin holds it; the
  // swarm's nodes have none (their inspects list their plugins).
  "read/ListSwarmSecrets": ["driver"],
  // A stack service's container docker could not start: no stack of the estates has one yet.
  "read/InspectStackContainer": ["error"],
}

type Params = Readonly<Record<string, unknown>>
type Json = Readonly<Record<string, unknown>>
type Client = Effect.Effect.Success<ReturnType<typeof Mcp.connectV2>>["client"]

/** The tool, its selector key and selector that reach each endpoint, from the tools' tables. */
const routes = (): ReadonlyMap<string, readonly [string, string, string]> => {
  const of = (tool: string, key: string, table: Readonly<Record<string, string>>) =>
    Object.entries(table).map(
      ([selector, endpoint]) =>
        [endpoint.includes("/") ? endpoint : `read/${endpoint}`, [tool, key, selector] as const] as const,
    )
  return new Map([
    ...of("svc_list", "resource_type", Tables.list),
    ...of("svc_list", "resource_type", TablesAll.list),
    ...of("svc_list_detail", "list_type", Tables.list_detail),
    ...of("svc_list_detail", "list_type", TablesAll.list_detail),
    ...of("svc_get", "resource_type", Tables.get),
    ...of("svc_get", "resource_type", TablesAll.get),
    ...of("svc_inspect", "inspect_type", Tables.inspect),
  ])
}
const ROUTES = routes()

/** A row of a list at a glance, by its columns' labels, with the params it was listed by. */
interface Row {
  readonly of: Params
  readonly cells: Json
}

/** What the estate answered so far: the rows of each list, by endpoint. */
type Seen = Map<string, Array<Row>>

const rowsOf = (seen: Seen, endpoint: string): ReadonlyArray<Row> => seen.get(endpoint) ?? []
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)
/** A value of `label` in each row of `endpoint`'s list, with a param made of it. */
const each = (seen: Seen, endpoint: string, label: string, make: (value: string, row: Row) => Params) =>
  rowsOf(seen, endpoint).flatMap((row) => {
    const value = text(row.cells[label])
    return value === undefined ? [] : [make(value, row)]
  })

/** The request's params that name where to ask, each filled from the lists already answered. */
const NAMED_BY: Readonly<Record<string, (seen: Seen) => ReadonlyArray<Params>>> = {
  server: (seen) => each(seen, "read/ListServers", "name", (server) => ({ server })),
  swarm: (seen) => each(seen, "read/ListSwarms", "name", (swarm) => ({ swarm })),
  stack: (seen) => each(seen, "read/ListStacks", "name", (stack) => ({ stack })),
  user: (seen) => each(seen, "read/ListUsers", "username", (user) => ({ user })),
  user_target: (seen) => each(seen, "read/ListUsers", "id", (id) => ({ user_target: { type: "User", id } })),
}

/** The params a list requires besides where to ask: a server's stats, one sample each five minutes. */
const REQUIRED: Readonly<Record<string, Params>> = { "read/GetHistoricalServerStats": { granularity: "5-min" } }

/** A list's params: one set for each value of the one param of its request that names where to ask. */
const listParams = (endpoint: string, seen: Seen): ReadonlyArray<Params> => {
  const request = document.endpoints[endpoint]?.request
  const properties = Object.keys((request && document.definitions[request]?.properties) ?? {})
  const named = properties.find((property) => NAMED_BY[property] !== undefined)
  const all = properties.includes("limit") ? { limit: 0 } : {}
  const given = { ...all, ...REQUIRED[endpoint] }
  return named === undefined ? [given] : (NAMED_BY[named]?.(seen) ?? []).map((params) => ({ ...given, ...params }))
}

/** A record's params, read from the rows of the list that names each: the selector's own. */
const recordParams = (selector: string, seen: Seen): ReadonlyArray<Params> => {
  const on = (endpoint: string, label: string, key: string) =>
    each(seen, endpoint, label, (value, row) => ({ ...row.of, [key]: value }))
  const byName = (list: string, key: string) => each(seen, list, "name", (value) => ({ [key]: value }))
  // Of the stacks and deployments whose glance names a swarm (or none), each service or each one.
  const onSwarm = (get: string) =>
    new Set(rowsOf(seen, get).flatMap(({ cells }) => (isShown(cells.swarm) ? [cells.id, cells.name] : [])))
  const services = (swarm: boolean) =>
    rowsOf(seen, "read/ListAllStackServices").flatMap(({ cells }) =>
      onSwarm("read/GetStack").has(cells.stack) === swarm ? [{ stack: cells.stack, service: cells.service }] : [],
    )
  // An image or a network of the same name on several servers is asked of once.
  const once = (params: ReadonlyArray<Params>, key: string) => [...new Map(params.map((p) => [p[key], p])).values()]
  switch (selector) {
    case "container":
      return rowsOf(seen, "read/ListAllContainers").map(({ cells }) => ({
        server: cells.server,
        container: cells.name,
      }))
    case "image":
      return once(on("read/ListImages", "name", "image"), "image")
    case "network":
      return once(on("read/ListNetworks", "name", "network"), "network")
    case "deployment_container":
      return byName("read/ListDeployments", "deployment")
    case "deployment_swarm_service":
      return [...onSwarm("read/GetDeployment")]
        .filter((name) => typeof name === "string" && !/^[0-9a-f]{24}$/.test(name))
        .map((deployment) => ({ deployment }))
    case "stack_container":
      return services(false)
    case "stack_swarm_service":
      return services(true)
    case "swarm_service":
      return on("read/ListSwarmServices", "id", "service")
    case "swarm_stack":
      return on("read/ListSwarmStacks", "name", "stack")
    case "swarm_node":
      return on("read/ListSwarmNodes", "id", "node")
    case "swarm_task":
      return on("read/ListSwarmTasks", "id", "task")
    case "alert":
      return each(seen, "read/ListAlerts", "id", (id) => ({ id }))
    case "user":
      return each(seen, "read/ListUsers", "username", (user) => ({ user }))
    default:
      return byName(`read/${(Tables.list as Readonly<Record<string, string>>)[selector]}`, selector)
  }
}

const call = (client: Client, name: string, args: Json) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

/** A value shown: not null, not an empty text, list or object. */
const isShown = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  value !== "" &&
  !(Array.isArray(value) && !value.some(isShown)) &&
  !(typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0)

/** The labels shown, by endpoint, across every answer of every scenario. */
type Shown = Map<string, Set<string>>
const show = (shown: Shown, endpoint: string, labels: Iterable<string>) => {
  const set = shown.get(endpoint) ?? new Set<string>()
  for (const label of labels) set.add(label)
  shown.set(endpoint, set)
}

interface Answer {
  readonly columns?: ReadonlyArray<string>
  readonly result?: ReadonlyArray<unknown>
}

/**
 * A list's rows by label: of its rows at a glance, or of its records shaped to its columns' paths,
 * as a list whose column may hold untrusted text is shown (Render.ts).
 */
const rowsIn = (endpoint: string, of: Params, answer: Answer | undefined): ReadonlyArray<Row> => {
  const { columns = [], result = [] } = answer ?? {}
  const declared = PROJECTIONS[endpoint]?.columns ?? []
  return result.map((item) => ({
    of,
    cells: Array.isArray(item)
      ? Object.fromEntries(columns.map((label, i) => [label, item[i]]))
      : Object.fromEntries(
          declared.map((column) => [
            column.label,
            readAt(item, column.path.split(".")) ?? readAt(item, (column.given ?? "").split(".")),
          ]),
        ),
  }))
}

/** The columns a list's first line says once, with the value each row has or the first and its step. */
const saidOnce = (endpoint: string, text: string): ReadonlyArray<string> => {
  const { once = [], step } = PROJECTIONS[endpoint] ?? {}
  const first = text.split("\n")[0] ?? ""
  return [...once, ...(step === undefined ? [] : [step])].filter((label) =>
    new RegExp(`[ ,]${label} (?!null)[^ ,]`).test(first),
  )
}

/** Whether every label `endpoint`'s table declares has been shown, in this scenario or one before. */
const allShown = (labels: ReadonlyMap<string, ReadonlyArray<string>>, shown: Shown, endpoint: string) =>
  (labels.get(endpoint) ?? []).every((label) => shown.get(endpoint)?.has(label))

/**
 * The lists whose rows an ask still to make reads: where to ask each list with a label not yet
 * shown, and each record so far (GetStack and GetDeployment always), and in turn where to ask those
 * lists. Found by the asks' own readers (listParams, recordParams) reading a `seen` that notes what
 * they read.
 */
const readBy = (shown: Shown): ReadonlySet<string> => {
  const labels = new Map(declared())
  const read = new Set<string>()
  const noting: Seen = new (class extends Map<string, Array<Row>> {
    override get(endpoint: string) {
      read.add(endpoint)
      return super.get(endpoint)
    }
  })()
  for (const endpoint of Object.keys(RECORD_VIEWS)) {
    const selector = ROUTES.get(endpoint)?.[2]
    if (selector !== undefined && (NAMING.has(endpoint) || !allShown(labels, shown, endpoint)))
      recordParams(selector, noting)
  }
  for (const endpoint of Object.keys(PROJECTIONS)) if (!allShown(labels, shown, endpoint)) listParams(endpoint, noting)
  for (let before = -1; before !== read.size; ) {
    before = read.size
    for (const endpoint of [...read]) listParams(endpoint, noting)
  }
  return read
}

/**
 * Each list's rows at a glance, each of its params, its labels shown noted and its rows kept for the
 * asks after. A list whose labels have all been shown is asked only where an ask after it reads its
 * rows (readBy): asked again, it would change nothing the test holds.
 */
const askLists = (client: Client, seen: Seen, shown: Shown) =>
  Effect.gen(function* () {
    const labels = new Map(declared())
    const read = readBy(shown)
    // The lists that name where to ask the others come first: servers, swarms, stacks, users.
    const order = Object.keys(PROJECTIONS).sort((a, b) => listParams(b, seen).length - listParams(a, seen).length)
    for (const endpoint of order) {
      const [tool, key, selector] = ROUTES.get(endpoint) ?? []
      if (tool === undefined || key === undefined) continue
      if (allShown(labels, shown, endpoint) && !read.has(endpoint)) continue
      for (const params of listParams(endpoint, seen)) {
        const answer = yield* call(client, tool, { [key]: selector, params })
        const rows = rowsIn(endpoint, params, answer.structuredContent as Answer | undefined)
        seen.set(endpoint, [...rowsOf(seen, endpoint), ...rows])
        for (const row of rows)
          show(
            shown,
            endpoint,
            Object.keys(row.cells).filter((l) => isShown(row.cells[l])),
          )
        show(shown, endpoint, saidOnce(endpoint, Mcp.text(answer)))
      }
    }
  })

/** The records whose glances name what is asked after them (which stacks and deployments are on a swarm): each asked. */
const NAMING: ReadonlySet<string> = new Set(["read/GetStack", "read/GetDeployment"])

/**
 * Each record's glance, of every record the lists named, its labels shown noted: asked until every
 * label its table declares has been shown, in this scenario or one before (what is shown only
 * grows, so asking on would change nothing the test holds).
 */
const askRecords = (client: Client, seen: Seen, shown: Shown) =>
  Effect.gen(function* () {
    const labels = new Map(declared())
    for (const endpoint of Object.keys(RECORD_VIEWS)) {
      const [tool, key, selector] = ROUTES.get(endpoint) ?? []
      if (tool === undefined || key === undefined || selector === undefined) continue
      for (const params of recordParams(selector, seen)) {
        const named = NAMING.has(endpoint)
        if (!named && allShown(labels, shown, endpoint)) break
        const answer = yield* call(client, tool, { [key]: selector, params })
        const value = (answer.isError ? {} : (answer.structuredContent ?? {})) as Json
        seen.set(endpoint, [...rowsOf(seen, endpoint), { of: params, cells: value }])
        show(
          shown,
          endpoint,
          Object.keys(value).filter((label) => isShown(value[label])),
        )
      }
    }
  })

/** What each table declares, by endpoint: a list's columns, a record's labels and its questions'. */
const declared = (): ReadonlyArray<readonly [string, ReadonlyArray<string>]> => [
  ...Object.entries(PROJECTIONS).map(([endpoint, { columns }]) => [endpoint, columns.map((c) => c.label)] as const),
  ...Object.entries(RECORD_VIEWS).map(
    ([endpoint, { columns }]) =>
      [
        endpoint,
        [...new Set([...columns.map((c) => c.label), ...(QUESTIONS[endpoint]?.questions ?? []).map((q) => q.label)])],
      ] as const,
  ),
]

describe("every field the tools show at a glance is shown by some estate", () => {
  it("every list and record of the tables is reached by a tool", () => {
    for (const [endpoint] of declared()) expect(ROUTES.has(endpoint), endpoint).toBe(true)
  })

  it.scopedLive(
    "each label, not empty, in some row or record of some scenario",
    () =>
      Effect.gen(function* () {
        const shown: Shown = new Map()
        for (const scenario of ["calm", "incident", "drift"] as ReadonlyArray<Scenario>) {
          const sandbox = yield* Sandboxes.scoped({ scenario })
          const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), { reach: "all" })
          const seen: Seen = new Map()
          yield* askLists(client, seen, shown)
          yield* askRecords(client, seen, shown)
        }
        const missing = declared().flatMap(([endpoint, labels]) =>
          labels
            .filter((label) => !shown.get(endpoint)?.has(label) && EXEMPT[endpoint]?.[label] === undefined)
            .map((label) => `${endpoint} ${label}`),
        )
        const unfilled = Object.entries(UNFILLED).flatMap(([endpoint, labels]) => labels.map((l) => `${endpoint} ${l}`))
        expect(missing.sort()).toEqual(unfilled.sort())
      }),
    // Three scenarios' every list and record, each through the tools: longer than one test's usual bound on a loaded machine.
    60_000,
  )
})
