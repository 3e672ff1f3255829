/**
 * What is read beside an answer is one table keyed by endpoint (Tools/Records/ReadsBeside.ts):
 * every key an endpoint of the service's definitions (spec/service-api-all.schema.json: SVC_REACH=all
 * reaches past the default's) that a tool reaches, every entry naming a
 * read, the names' renewal after a change as each change's selector says, and an endpoint not in
 * the table reads nothing beside its answer.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Tool from "../../../src/Tools/Catalog/Tool.js"
import { kindsChangedBy } from "../../../src/Tools/Names/Names.js"
import * as Reach from "../../../src/Tools/Policy/Reach.js"
import { READS_BESIDE, readsBeside } from "../../../src/Tools/Records/ReadsBeside.js"
import * as Definitions from "../../support/Definitions.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

const offered = new Set(Reach.all.flatMap((tool) => tool.selectors.map((selector) => Tool.pathOf(tool, selector))))

const CHANGES = new Set(["svc_create", "svc_update", "svc_delete", "svc_rename", "svc_copy"])

describe("the table of reads beside an answer", () => {
  it("keys only endpoints of the service's definitions that a tool reaches, at either reach", () => {
    const keys = Object.keys(READS_BESIDE)
    expect(keys.length).toBeGreaterThan(50)
    expect(keys.filter((endpoint) => Definitions.document.endpoints[endpoint] === undefined)).toEqual([])
    expect(keys.filter((endpoint) => !offered.has(endpoint))).toEqual([])
  })

  it("holds a read in every entry, and none for an endpoint it does not name", () => {
    const empty = Object.entries(READS_BESIDE).filter(
      ([, reads]) => Object.values(reads).filter((read) => read !== undefined).length === 0,
    )
    expect(empty).toEqual([])
    expect(readsBeside("read/GetAlerter")).toEqual({})
    expect(readsBeside("read/NoSuchEndpoint")).toEqual({})
    // A key of Object's prototype is no entry.
    expect(readsBeside("constructor")).toEqual({})
  })

  it("says what a stack's record reads: its drift, its server's reach, its list's state", () => {
    const stack = readsBeside("read/GetStack")
    expect(stack.drift).toBe(true)
    expect(stack.stale).toEqual({ path: "config", list: false })
    expect(stack.listed?.list).toBe("ListStacks")
    expect(readsBeside("read/ListStacks")).toEqual({ stale: { path: "info", list: true }, paged: true })
    expect(readsBeside("write/CloseAlert").readBack).toBeDefined()
    expect(readsBeside("read/GetStackLog").emptyLog).toBeDefined()
    expect(readsBeside("write/CheckStackForUpdate").executed).toBeDefined()
  })

  it("renews after each change, at either reach, the names its selector may change, and after nothing else", () => {
    const changes = Reach.all.filter((tool) => CHANGES.has(tool.name))
    expect(changes.map((tool) => tool.name).sort()).toEqual([...CHANGES].sort())
    for (const tool of changes)
      for (const selector of tool.selectors) {
        const endpoint = Tool.pathOf(tool, selector)
        expect(readsBeside(endpoint).renews ?? [], `${tool.name} ${selector}`).toEqual(kindsChangedBy(selector))
      }
    const renewing = Object.keys(READS_BESIDE).filter((endpoint) => readsBeside(endpoint).renews !== undefined)
    const changed = new Set(changes.flatMap((tool) => tool.selectors.map((selector) => Tool.pathOf(tool, selector))))
    expect(renewing.filter((endpoint) => !changed.has(endpoint))).toEqual([])
    // No other tool reaches an endpoint that renews: the renewal stays the changes' alone.
    const others = Reach.all.filter((tool) => !CHANGES.has(tool.name))
    const reachedByOthers = others.flatMap((tool) => tool.selectors.map((selector) => Tool.pathOf(tool, selector)))
    expect(reachedByOthers.filter((endpoint) => readsBeside(endpoint).renews !== undefined)).toEqual([])
    expect(readsBeside("write/DeleteUser").renews).toEqual(["user"])
  })
})

describe("an answer's reads, as its entry says", () => {
  /** The paths the service was asked for, a call after a first that learned what is learned once. */
  const asked = (path: string, body: unknown, call: { name: string; arguments: Record<string, unknown> }) =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next(path, { status: 200, body }, { sticky: true })
      const { client } = yield* Mcp.connectV2(Layers.apiKey(double.url))
      yield* Effect.promise(() => client.callTool(call))
      const before = double.calls().length
      const result = yield* Effect.promise(() => client.callTool(call))
      expect(result.isError).toBeFalsy()
      return double
        .calls()
        .slice(before)
        .map((request) => request.path)
    })

  it.scopedLive("an endpoint not in the table reads nothing beside its answer", () =>
    Effect.gen(function* () {
      const alerter = { _id: { $oid: "a1" }, name: "pager", config: { enabled: true } }
      const paths = yield* asked("/read/GetAlerter", alerter, {
        name: "svc_get",
        arguments: { resource_type: "alerter", params: { alerter: "pager" } },
      })
      expect(paths).toEqual(["/read/GetAlerter"])
    }),
  )

  it.scopedLive("a stack's record reads its list's item beside it, as its entry says", () =>
    Effect.gen(function* () {
      // Sent in more than a glance's floor: a smaller record is shown whole, and its state is not asked.
      const stack = { _id: { $oid: "s1" }, name: "web", config: { file_contents: "x".repeat(4000) }, info: {} }
      const paths = yield* asked("/read/GetStack", stack, {
        name: "svc_get",
        arguments: { resource_type: "stack", params: { stack: "web" } },
      })
      expect(paths[0]).toBe("/read/GetStack")
      expect(paths).toContain("/read/ListStacks")
    }),
  )
})
