/**
 * What a question previews is one table keyed by endpoint: the words `schema: true` says
 * (Tools/Records/Previewed.ts, read through ReadsBeside.ts) and the reads the confirmation makes
 * before asking (Confirmation/Previews.ts, typed over the same keys). Every key an endpoint of the
 * service's definitions (spec/service-api-all.schema.json) that a tool reaches; every previewed
 * endpoint with both words and a plan; every change a question showed before still previewed; and
 * an endpoint not in the table previews nothing, reading nothing before its question.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Shown from "../../../src/Call/Shown.js"
import * as Previews from "../../../src/Confirmation/Previews.js"
import * as Kinds from "../../../src/Kinds/Kinds.js"
import * as Tool from "../../../src/Tools/Catalog/Tool.js"
import type { Invocation } from "../../../src/Tools/Invocation.js"
import * as Reach from "../../../src/Tools/Policy/Reach.js"
import { PREVIEWED } from "../../../src/Tools/Records/Previewed.js"
import { readsBeside } from "../../../src/Tools/Records/ReadsBeside.js"
import * as Definitions from "../../support/Definitions.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

/** Each endpoint a tool reaches at either reach, with the tool that reaches it. */
const reached = new Map(
  Reach.all.flatMap((tool) => tool.selectors.map((selector) => [Tool.pathOf(tool, selector), tool.name] as const)),
)

const endpointsOf = (name: string) => [...reached].flatMap(([endpoint, tool]) => (tool === name ? [endpoint] : []))

describe("the table of what a question previews", () => {
  it("keys only endpoints of the service's definitions that a tool reaches, at either reach", () => {
    const keys = Object.keys(PREVIEWED)
    expect(keys.length).toBeGreaterThan(70)
    expect(keys.filter((endpoint) => Definitions.document.endpoints[endpoint] === undefined)).toEqual([])
    expect(keys.filter((endpoint) => !reached.has(endpoint))).toEqual([])
  })

  it("gives every previewed endpoint both its words and its plan, and schema: true those words", () => {
    expect(Object.keys(Previews.PREVIEWS).sort()).toEqual(Object.keys(PREVIEWED).sort())
    for (const [endpoint, preview] of Object.entries(Previews.PREVIEWS)) {
      expect(preview.plan ?? preview.lines, endpoint).toBeDefined()
      const words = PREVIEWED[endpoint as keyof typeof PREVIEWED]
      expect(words, endpoint).toMatch(/read just before asking$/)
      expect(readsBeside(endpoint).preview, endpoint).toBe(words)
    }
  })

  it("previews every update and delete, every prune and deploy the question read before, and every batch of a kind", () => {
    const previewed = new Set(Object.keys(PREVIEWED))
    for (const endpoint of [...endpointsOf("svc_update"), ...endpointsOf("svc_delete")])
      expect(previewed.has(endpoint), endpoint).toBe(true)
    const batches = Object.values(Kinds.KINDS).flatMap((kind) =>
      "batches" in kind ? (kind.batches ?? []).map((batch) => `execute/${batch}`) : [],
    )
    expect(batches).toHaveLength(12)
    for (const endpoint of batches) expect(previewed.has(endpoint), endpoint).toBe(true)
    const executions = [...previewed].filter(
      (endpoint) => endpoint.startsWith("execute/") && !batches.includes(endpoint),
    )
    expect(executions.sort()).toEqual(
      [
        "execute/Deploy",
        "execute/DeployStack",
        "execute/DeployStackIfChanged",
        "execute/PruneContainers",
        "execute/PruneImages",
        "execute/PruneNetworks",
        "execute/PruneSystem",
        "execute/PruneVolumes",
        "execute/RunSync",
      ].sort(),
    )
    // A read, or a change no question previews, has no entry.
    expect(readsBeside("read/GetStack").preview).toBeUndefined()
    expect(readsBeside("execute/RestartStack").preview).toBeUndefined()
    expect(readsBeside("constructor").preview).toBeUndefined()
  })
})

describe("an endpoint not in the table", () => {
  const restart: Invocation = {
    shown: Shown.Shown.Glance(),
    tool: "svc_execute",
    wait: false,
    schema: false,
    selectorKey: "operation",
    selector: "restart_stack",
    endpoint: "execute/RestartStack",
    body: { stack: "web" },
  }

  it.scoped("previews nothing and reads nothing: no plan, no line", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const asking = { invocation: restart, revealSecrets: false }
      const [plan, lines] = yield* Effect.provide(
        Effect.all([Previews.planOf(asking), Previews.lines(asking)]),
        Layers.client(Layers.apiKey(double.url)),
      )
      expect(Option.isNone(plan)).toBe(true)
      expect(lines).toEqual([])
      expect(double.requests).toHaveLength(0)
    }),
  )

  it.scoped("says no preview in its schema: true, where a previewed one says its words", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
      const schema = (name: string, args: Record<string, unknown>) =>
        Effect.map(
          Effect.promise(() => client.callTool({ name, arguments: { ...args, schema: true } })),
          (answer) => JSON.parse(Mcp.text(answer)) as Record<string, unknown>,
        )
      expect(yield* schema("svc_execute", { operation: "restart_stack" })).not.toHaveProperty("preview")
      expect((yield* schema("svc_update", { resource_type: "stack" })).preview).toBe(
        `if asked (SVC_CONFIRM), the question shows ${PREVIEWED["write/UpdateStack"]}`,
      )
      expect((yield* schema("svc_execute", { operation: "run_sync" })).preview).toMatch(
        /^if asked \(SVC_CONFIRM\), the question shows the changes pending as of the sync's last refresh/,
      )
      expect(double.requests).toHaveLength(0)
    }),
  )
})
