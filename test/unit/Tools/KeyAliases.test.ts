/**
 * A resource named under the key another tool uses for it is read as the endpoint's key, where it
 * cannot mean anything else, and the answer's first line says so (Params/KeyAliases.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as ParamsCheck from "../../../src/Tools/Params/ParamsCheck.js"
import { RequestDefinitions } from "../../../src/Tools/Params/ParamsValidation.js"
import { document, type JsonSchema } from "../../support/Definitions.js"
import { property } from "../../support/Property.js"

const shipped = RequestDefinitions.read(ParamsCheck.locate() as string)
const all = RequestDefinitions.read(
  (ParamsCheck.locate() as string).replace("service-api.schema.json", "service-api-all.schema.json"),
)

/** The request of `endpoint` as the file has it, its `$ref`s followed by hand. */
const requestOf = (endpoint: string): JsonSchema | undefined => {
  const name = document.endpoints[endpoint]?.request
  let node: JsonSchema | undefined = name === null || name === undefined ? undefined : document.definitions[name]
  while (node?.$ref !== undefined) node = document.definitions[node.$ref.split("/").pop() as string]
  return node
}
const stringsRequired = (node: JsonSchema): ReadonlyArray<string> =>
  (node.required ?? []).filter((key) => {
    let field = node.properties?.[key]
    while (field?.$ref !== undefined) field = document.definitions[field.$ref.split("/").pop() as string]
    return field?.type === "string" || field?.enum !== undefined
  })

const endpoints = Object.keys(document.endpoints)
const aliased = endpoints.filter((endpoint) => all.aliases(endpoint).length > 0)

describe("the key aliases, as data from the definitions", () => {
  it("reach the resources' own keys and `id`, on the endpoints the tools reach", () => {
    expect(aliased.length).toBeGreaterThan(80)
    expect(all.aliases("write/UpdateDeployment")).toEqual([{ from: "deployment", to: "id" }])
    expect(all.aliases("write/UpdateResourceSync")).toEqual([{ from: "sync", to: "id" }])
    expect(all.aliases("execute/Deploy")).toEqual([{ from: "id", to: "deployment" }])
    expect(all.aliases("read/GetUserGroup")).toEqual([{ from: "id", to: "user_group" }])
    // Two keys could be meant, or the type's own key is too general (a variable's `name`).
    for (const endpoint of ["read/InspectContainer", "execute/RunStackService", "write/UpdateTagColor"]) {
      expect(all.aliases(endpoint)).toEqual([])
    }
    expect(all.aliases("write/DeleteVariable")).toEqual([])
    expect(all.aliases("write/CreateStack")).toEqual([])
  })

  it("never alias a key the endpoint also has, nor where two required strings could be meant", () => {
    for (const endpoint of aliased) {
      const node = requestOf(endpoint) as JsonSchema
      const aliases = all.aliases(endpoint)
      expect(aliases).toHaveLength(1)
      for (const { from, to } of aliases) {
        expect(Object.keys(node.properties ?? {}), endpoint).not.toContain(from)
        expect(Object.keys(node.properties ?? {}), endpoint).toContain(to)
        if (from === "id") expect(stringsRequired(node), endpoint).toEqual([to])
      }
    }
  })

  const key = FastCheck.constantFrom("id", "stack", "deployment", "server", "name", "config", "container", "sync")
  property(
    "a body is read under another key only when refused as given, naming the alias's key and not the endpoint's",
    {
      endpoint: FastCheck.constantFrom(...aliased),
      body: FastCheck.dictionary(key, FastCheck.oneof(FastCheck.string({ maxLength: 8 }), FastCheck.constant({}))),
    },
    ({ endpoint, body }) => {
      const checked = all.check(endpoint, body)
      const said = checked._tag === "Valid" ? (checked.respelled ?? "") : ""
      if (!said.includes("[svc-mcp: read ")) return
      const [alias] = all.aliases(endpoint)
      if (alias === undefined) throw new Error(`${endpoint} read a body without an alias`)
      expect(Object.hasOwn(body, alias.from)).toBe(true)
      expect(Object.hasOwn(body, alias.to)).toBe(false)
      expect(Object.keys(requestOf(endpoint)?.properties ?? {})).not.toContain(alias.from)
      if (checked._tag !== "Valid") throw new Error("unreachable")
      expect(checked.body).toEqual({
        ...Object.fromEntries(Object.entries(body).filter(([k]) => k !== alias.from)),
        [alias.to]: body[alias.from],
      })
    },
  )
})

describe("a call's params, read under the endpoint's key", () => {
  it("a resource's own key where the endpoint takes id, and id where it takes the type's key, said first", () => {
    expect(shipped.check("write/UpdateDeployment", { deployment: "api", config: {} })).toEqual({
      _tag: "Valid",
      body: { id: "api", config: {} },
      respelled: "[svc-mcp: read params.deployment as params.id]",
    })
    expect(shipped.check("execute/Deploy", { id: "api" })).toEqual({
      _tag: "Valid",
      body: { deployment: "api" },
      respelled: "[svc-mcp: read params.id as params.deployment]",
    })
    expect(shipped.check("write/CopyStack", { stack: "web", name: "web-2" })).toMatchObject({
      _tag: "Valid",
      body: { id: "web", name: "web-2" },
    })
  })

  it("never where the body names both, nor where the endpoint has no alias", () => {
    expect(shipped.check("write/RenameStack", { stack: "web", id: "web", name: "w" })._tag).toBe("Invalid")
    expect(shipped.check("read/InspectContainer", { id: "x", container: "y" })._tag).toBe("Invalid")
    expect(shipped.check("write/UpdateDeployment", { stack: "web", config: {} })._tag).toBe("Invalid")
    // A refusal names the problems of the body as given.
    const refused = shipped.check("write/UpdateDeployment", { deployment: "api", config: { image: 3 } })
    expect(refused).toMatchObject({ _tag: "Invalid" })
    expect(JSON.stringify(refused)).toContain("params.deployment")
  })
})
