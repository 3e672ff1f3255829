/**
 * "May have more pages" only where the service pages (service-notes.md, "Lists
 * and pages"), with the service's own default page read once from GetCoreInfo.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { SvcClient, type SvcClientShape } from "../../../src/SvcClient.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Pages from "../../../src/Tools/Lists/Pages.js"
import * as Examples from "../../support/Examples.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `${i}`, type: "Stack", name: `s${i}` }))

const NOTE =
  /\n\[svc-mcp: (\d+) items, the service's default page: more may exist\. Pass params\.limit \(0 for all\) or params\.page to see more\]$/

const coreInfo = (limit: number) => ({ title: "svc", default_pagination_limit: limit })

describe("pages", () => {
  it("the paginated endpoints are those whose definition takes both page and limit", () => {
    const reached = Definitions.all.flatMap((tool) => Object.values(tool.endpoints).map((e) => `${tool.group}/${e}`))
    const paged = reached.filter((endpoint) => {
      const properties = Examples.requestOf(endpoint)?.properties ?? {}
      return "page" in properties && "limit" in properties
    })
    expect([...Pages.PAGINATED].sort()).toEqual([...new Set(paged)].sort())
  })

  it.scoped(
    "a paginated list that fills the service's own default page says more may exist; GetCoreInfo is read once",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        double.next("/read/GetCoreInfo", { status: 200, body: coreInfo(20) })
        double.next("/read/ListStacks", { status: 200, body: items(20) })
        double.next("/read/ListFullStacks", { status: 200, body: items(20) })
        double.next("/read/ListStacks", { status: 200, body: items(19) })
        const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
        const list = (name: string, args: Record<string, unknown>) =>
          Effect.map(
            Effect.promise(() => client.callTool({ name, arguments: args })),
            Mcp.text,
          )
        expect((yield* list("svc_list", { resource_type: "stack" })).match(NOTE)?.[1]).toBe("20")
        expect((yield* list("svc_list_detail", { list_type: "full_stacks" })).match(NOTE)?.[1]).toBe("20")
        expect(yield* list("svc_list", { resource_type: "stack" })).not.toMatch(NOTE)
        expect(double.calls().filter((r) => r.path === "/read/GetCoreInfo")).toHaveLength(1)
      }),
  )

  it.scoped("50 when GetCoreInfo fails; no note for a list that is not paginated, or when a limit was given", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/read/GetCoreInfo", { status: 500, body: { error: "nope", trace: [] } })
      double.next("/read/ListBuilds", { status: 200, body: items(50) })
      double.next("/read/ListTags", { status: 200, body: items(50) })
      double.next("/read/ListStacks", { status: 200, body: items(50) })
      const { client, logs } = yield* Mcp.connect(Layers.apiKey(double.url))
      const list = (args: Record<string, unknown>) =>
        Effect.map(
          Effect.promise(() => client.callTool({ name: "svc_list", arguments: args })),
          Mcp.text,
        )
      expect((yield* list({ resource_type: "build" })).match(NOTE)?.[1]).toBe("50")
      expect(yield* list({ resource_type: "tag" })).not.toMatch(NOTE)
      expect(yield* list({ resource_type: "stack", params: { limit: 50 } })).not.toMatch(NOTE)
      // The read of the page is the server's own business: its failure is no warning to the user.
      expect(logs.filter((l) => l.level === "warning")).toEqual([])
    }),
  )

  it.effect("a call cancelled while the page is read ends at once, and the read goes on for the next", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      let reads = 0
      const client = {
        call: () =>
          Effect.zipRight(
            Effect.sync(() => reads++),
            Effect.as(Deferred.await(gate), coreInfo(20)),
          ),
        answer: () => Effect.die("not read"),
      } as unknown as SvcClientShape
      const pages = yield* Effect.provideService(Pages.make, SvcClient, client)
      const first = yield* Effect.fork(pages.size)
      while (reads === 0) yield* Effect.yieldNow()
      // Interrupting the first reader does not wait for the read it started.
      yield* Fiber.interrupt(first)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* pages.size).toBe(20)
      expect(yield* pages.size).toBe(20)
      expect(reads).toBe(1)
    }),
  )
})
