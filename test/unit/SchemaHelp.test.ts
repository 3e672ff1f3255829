/**
 * Schema help names what the service takes: for every endpoint of the definitions, `schema: true`'s
 * params name every required key of its request (one of an alias group, `stack|id|name`), and a
 * wide tagged union is rendered as the service takes it (`resource_target` is `{type, id}`).
 */
import { describe, expect, it } from "@effect/vitest"
import { aliasesOf, type Node, prepare } from "../../src/Tools/ParamsDefinitions.js"
import { accepted } from "../../src/Tools/ParamsWording.js"
import { document } from "../support/Definitions.js"

const definitions = prepare(document.definitions) as Readonly<Record<string, Node>>

const resolved = (node: Node | undefined): Node | undefined => {
  let at = node
  for (let i = 0; at?.$ref !== undefined && i < 10; i++) at = definitions[at.$ref.slice(at.$ref.lastIndexOf("/") + 1)]
  return at
}

describe("schema help", () => {
  it("names every required key of every endpoint's request", () => {
    let checked = 0
    for (const [endpoint, { request }] of Object.entries(document.endpoints)) {
      if (request === null) continue
      const node = resolved({ $ref: `#/definitions/${request}` })
      const rendering = accepted(definitions, request)
      const aliased = aliasesOf(node ?? {}) ?? []
      for (const key of node?.required ?? []) {
        checked++
        // `{key: ...` or `, key: ...`, or within an alias group `a|key|b: ...`; required, so without `?`.
        expect(rendering, `${endpoint}: ${key}`).toMatch(
          new RegExp(`(?:\\{|, )(?:[A-Za-z_]+\\|)*${key}(?:\\|[A-Za-z_]+)*:`),
        )
      }
      for (const key of aliased) expect(rendering, `${endpoint}: ${key}`).toContain(key)
    }
    expect(checked).toBeGreaterThan(200)
  })

  it("renders a resource's target as the service takes it, {type, id}", () => {
    expect(accepted(definitions, "UpdateResourceMeta")).toContain(
      'target: {type: "System" | "Swarm" | "Server" | "Stack" | "Deployment" | "Build" | "Repo" | "Procedure" | "Action" | "Builder" | "Alerter" | "ResourceSync", id: string}',
    )
  })
})
