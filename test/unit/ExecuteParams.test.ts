/**
 * svc_execute's description says each operation's params, briefly (`schema: true` says them whole):
 * every string an operation requires is named there, within a `{...}` of params.
 */
import { describe, expect, it } from "vitest"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../src/Tools/Catalog/Tables.js"
import { document, type JsonSchema } from "../support/Definitions.js"

const follow = (node: JsonSchema | undefined): JsonSchema | undefined => {
  let current = node
  while (current?.$ref !== undefined) current = document.definitions[current.$ref.split("/").pop() as string]
  return current
}

/** The params of each `{...}` in the description, each key without its `?`. */
const named = (description: string): ReadonlySet<string> =>
  new Set(
    [...description.matchAll(/\{([^{}]*)\}/g)].flatMap(([, inside]) =>
      (inside ?? "").split(/[,|:]/).map((key) => key.trim().replace(/\?$/, "")),
    ),
  )

describe("svc_execute's description", () => {
  it("names every string each operation requires", () => {
    const said = named(Definitions.svc_execute.description)
    const unsaid: Array<string> = []
    for (const [operation, endpoint] of Object.entries(Tables.execute)) {
      const name = document.endpoints[`execute/${endpoint}`]?.request
      const request = follow(name === null || name === undefined ? undefined : document.definitions[name])
      for (const key of request?.required ?? []) {
        const field = follow(request?.properties?.[key])
        if (field?.type === "string" && !said.has(key)) unsaid.push(`${operation}: ${key}`)
      }
    }
    expect(unsaid).toEqual([])
  })
})
