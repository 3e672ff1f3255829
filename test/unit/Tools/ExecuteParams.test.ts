/**
 * svc_execute's description says each operation's params, briefly (`schema: true` says them whole):
 * the key of every resource an operation requires is named there, within a `{...}` of params.
 */
import { describe, expect, it } from "vitest"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import { document, type JsonSchema } from "../../support/Definitions.js"

const follow = (node: JsonSchema | undefined): JsonSchema | undefined => {
  let current = node
  while (current?.$ref !== undefined) current = document.definitions[current.$ref.split("/").pop() as string]
  return current
}

/** The keys that name what an operation acts on; the rest (a swarm config's data...) `schema: true` says. */
const TARGETS = new Set([
  "stack",
  "deployment",
  "build",
  "repo",
  "procedure",
  "action",
  "sync",
  "alerter",
  "server",
  "swarm",
  "container",
  "service",
  "pattern",
])

/** The params of each `{...}` in the description, each key without its `?`. */
const named = (description: string): ReadonlySet<string> =>
  new Set(
    [...description.matchAll(/\{([^{}]*)\}/g)].flatMap(([, inside]) =>
      (inside ?? "").split(/[,|:]/).map((key) => key.trim().replace(/\?$/, "")),
    ),
  )

describe("svc_execute's description", () => {
  it("names the key of every resource each operation requires, and says where the rest are", () => {
    expect(Definitions.svc_execute.description).toContain("others: schema: true")
    const said = named(Definitions.svc_execute.description)
    const unsaid: Array<string> = []
    for (const [operation, endpoint] of Object.entries(Tables.execute)) {
      const name = document.endpoints[`execute/${endpoint}`]?.request
      const request = follow(name === null || name === undefined ? undefined : document.definitions[name])
      for (const key of request?.required ?? []) {
        const field = follow(request?.properties?.[key])
        if (field?.type === "string" && TARGETS.has(key) && !said.has(key)) unsaid.push(`${operation}: ${key}`)
      }
    }
    expect(unsaid).toEqual([])
  })
})
