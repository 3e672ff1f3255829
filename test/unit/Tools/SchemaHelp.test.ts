/**
 * Schema help names what the service takes: for every endpoint of the definitions, `schema: true`'s
 * params name every required key of its request (one of an alias group, `stack|id|name`), and a
 * wide tagged union is rendered as the service takes it (`resource_target` is `{type, id}`).
 */
import { describe, expect, it } from "@effect/vitest"
import { aliasesOf, type Node, prepare } from "../../../src/Tools/Params/ParamsDefinitions.js"
import { accepted, answerType, namedIn, shapeType } from "../../../src/Tools/Params/ParamsWording.js"
import { document } from "../../support/Definitions.js"

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

describe("schema help stays short", () => {
  it("every endpoint's params are written in at most 1,600 characters, its answer 3,200, deeper shapes by name", () => {
    const longest: Array<readonly [string, number]> = []
    for (const [endpoint, { request, response }] of Object.entries(document.endpoints)) {
      if (request !== null) longest.push([`${endpoint} params`, accepted(definitions, request).length - 1_600])
      // An Update's answer holds every operation's name, which no depth shortens.
      const answer = answerType(definitions, response)
      if (answer !== undefined) longest.push([`${endpoint} answer`, answer.length - 3_200])
    }
    expect(longest.filter(([, over]) => over > 0)).toEqual([])
    // The export of resources as TOML took 18,361 characters before: its deeper shapes are named.
    const toml = accepted(definitions, "ExportResourcesToToml")
    expect(toml).toContain("procedures?: ResourceToml<_PartialProcedureConfig>[]")
    expect(namedIn(definitions, toml)).toContain("ResourceToml<_PartialProcedureConfig>")
  })
})

/** `{key: ...`, `, key: ...`, or within an alias group `a|key|b: ...`: named, and required (no `?`). */
const namesRequired = (rendering: string, key: string) =>
  new RegExp(`(?:\\{|, )(?:[A-Za-z_]+\\|)*${key.replace(/[$]/g, "\\$")}(?:\\|[A-Za-z_]+)*:`).test(rendering)

describe("named shapes", () => {
  it("every shape a schema answer names is reachable by its name, names its required keys, and is short", () => {
    // From every endpoint's params and answer, every shape named, and those they name in turn.
    const reached = new Set<string>()
    const queue: Array<string> = []
    for (const { request, response } of Object.values(document.endpoints)) {
      const rendering = `${request === null ? "" : accepted(definitions, request)} ${answerType(definitions, response) ?? ""}`
      queue.push(...namedIn(definitions, rendering))
    }
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
      if (reached.has(name)) continue
      reached.add(name)
      const rendering = shapeType(definitions, name)
      expect(rendering, name).toBeTypeOf("string")
      expect((rendering ?? "").length, name).toBeLessThanOrEqual(3_200)
      const node = resolved({ $ref: `#/definitions/${name}` })
      const aliased = aliasesOf(node ?? {}) ?? []
      // A shape written from a deeper start names its own keys still (its first level is never cut).
      for (const key of node?.required ?? [])
        if (!aliased.includes(key)) expect(namesRequired(rendering ?? "", key), `${name}: ${key}`).toBe(true)
      queue.push(...namedIn(definitions, rendering ?? ""))
    }
    // The procedure's stages, past the depth a schema answer spells out, among them.
    expect(reached.size).toBeGreaterThan(20)
    expect(shapeType(definitions, "NoSuchShape")).toBeUndefined()
  })
})
