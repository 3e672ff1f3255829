/**
 * Names where a resource is meant: an update check's answer, single or batched, shows its stack or
 * deployment by name, and an action state says whose it is; no resource id appears where the
 * definitions put one, unless `fields` asks for the answer as sent.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import type { Tool } from "../../../src/Tools/Catalog/Tool.js"
import type { NameMaps } from "../../../src/Tools/Names/Names.js"
import { ABOUT } from "../../../src/Tools/Records/About.js"
import type { Made as ToolSuccess } from "../../support/Answers.js"
import * as Answers from "../../support/Answers.js"
import { document } from "../../support/Definitions.js"
import { runs } from "../../support/Runs.js"
import { arbitrary, resolve } from "../../support/SchemaValues.js"

const IDS = ["6b0741480000000000000008", "6b0741480000000000000009", "6b074148000000000000000a"]
const NAMES = ["web", "monitoring", "staging-web"]
const map = new Map(IDS.map((id, i) => [id, NAMES[i] as string]))
const names: NameMaps = {
  stack: map,
  deployment: map,
  build: map,
  repo: map,
  server: map,
  sync: map,
  procedure: map,
  action: map,
  swarm: map,
}

const SETTINGS = { maxOutputChars: 100_000, revealSecrets: false }

const outcomeOf = (tool: Tool, endpoint: string, data: unknown, body: Record<string, unknown>): ToolSuccess => ({
  tool: tool.name,
  wait: false,
  schema: false,
  selectorKey: tool.selectorKey,
  selector: "",
  endpoint,
  body,
  data,
  text: JSON.stringify(data),
  names,
})

describe("names where a resource is meant", () => {
  it("no update check shows a resource's id where it names one, unless asked for the answer as sent", () => {
    const checks = Object.entries(ABOUT).filter(([, about]) => about.id !== undefined)
    expect(checks.map(([endpoint]) => endpoint).sort()).toEqual([
      "write/BatchCheckDeploymentForUpdate",
      "write/BatchCheckStackForUpdate",
      "write/CheckDeploymentForUpdate",
      "write/CheckStackForUpdate",
    ])
    const answers = FastCheck.constantFrom(...checks).chain(([endpoint]) =>
      arbitrary(resolve({ $ref: `#/definitions/${document.endpoints[endpoint]?.response}` }), {
        strings: FastCheck.constantFrom(...IDS),
        depth: 3,
      }).map((data) => [endpoint, data] as const),
    )
    FastCheck.assert(
      FastCheck.property(answers, ([endpoint, data]) => {
        const shown = Answers.success(
          Definitions.svc_execute,
          outcomeOf(Definitions.svc_execute, endpoint, data, {}),
          SETTINGS,
        )
        const items = Array.isArray(data) ? data : [data]
        const value = shown.structuredData as { result?: Array<Record<string, unknown>> } & Record<string, unknown>
        const rendered = Array.isArray(data) ? (value.result ?? []) : [value]
        const field = endpoint.includes("Stack") ? "stack" : "deployment"
        rendered.forEach((item, i) => {
          expect(IDS).not.toContain(item[field])
          expect(item[field]).toBe(map.get(String((items[i] as Record<string, unknown>)[field])))
        })
        // fields: ["*"], the answer as the service sent it.
        const whole = Answers.success(
          Definitions.svc_execute,
          { ...outcomeOf(Definitions.svc_execute, endpoint, data, {}), whole: true },
          SETTINGS,
        )
        expect(whole.text).toBe(JSON.stringify(data))
      }),
      { numRuns: runs(100) },
    )
  })

  it("an action state says whose it is, by name where the params gave an id", () => {
    for (const [endpoint, about] of Object.entries(ABOUT)) {
      if (about.subject === undefined) continue
      const [field] = about.subject
      const state = { deploying: false }
      const byId = Answers.success(
        Definitions.svc_get,
        outcomeOf(Definitions.svc_get, endpoint, state, { [field]: IDS[0] }),
        SETTINGS,
      )
      expect(byId.text, endpoint).toBe(
        `[svc-mcp: the action state of ${field} web; fields: ["*"] for the answer as sent]\n{"deploying":false}`,
      )
      expect(byId.text).not.toContain(IDS[0])
    }
  })
})
