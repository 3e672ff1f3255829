/**
 * The one table of the service's kinds (src/Kinds/Kinds.ts) against the service's definitions:
 * every list and get it names is an endpoint, every key a param of its get, every type a
 * ResourceTarget's or UserTarget's, every state a field of its list item; and the tables that read
 * it (the tools' selectors, the names of ids, the identities' targets) say what it says.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Kinds from "../../../src/Kinds/Kinds.js"
import * as Identities from "../../../src/Settings/Identities.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import type { JsonSchema } from "../../support/Definitions.js"
import * as Spec from "../../support/Spec.js"

interface Document {
  readonly endpoints: Readonly<Record<string, { request: string | null; response: string | null }>>
  readonly definitions: Readonly<Record<string, JsonSchema & { readonly additionalProperties?: unknown }>>
}

const load = (file: string) => JSON.parse(Fs.readFileSync(Path.join(Spec.root, "spec", file), "utf8")) as Document
/** What the tools offer (the interface's endpoints), and every endpoint (SVC_REACH=all). */
const offered = load("service-api.schema.json")
const all = load("service-api-all.schema.json")

/** A definition by its name, or by a `$ref`'s (URI-encoded: `ResourceListItem%3CStackListItemInfo%3E`). */
const definition = (document: Document, name: string | null | undefined): JsonSchema => {
  const found = name == null ? undefined : document.definitions[decodeURIComponent(name)]
  if (found === undefined) throw new Error(`no definition ${String(name)}`)
  const ref = found.$ref?.replace("#/definitions/", "")
  return ref === undefined ? found : definition(document, ref)
}

/** The `const` types a union of targets names (ResourceTarget's `{type, id}` variants). */
const typesOf = (name: string): ReadonlyArray<string> =>
  (definition(offered, name).anyOf ?? []).flatMap((variant) => {
    const type = variant.properties?.type?.const
    return typeof type === "string" ? [type] : []
  })

const KINDS = Object.entries(Kinds.KINDS) as ReadonlyArray<[string, Kinds.Kind]>

/** A list item's definition: the items of the list's answer. */
const itemOf = (list: string): JsonSchema => {
  const answer = definition(offered, offered.endpoints[`read/${list}`]?.response)
  return definition(offered, answer.items?.$ref?.replace("#/definitions/", ""))
}

const at = (schema: JsonSchema, path: ReadonlyArray<string>): JsonSchema | undefined => {
  const [head, ...rest] = path
  if (head === undefined) return schema
  const next = schema.properties?.[head]
  if (next === undefined) return undefined
  return at(next.$ref === undefined ? next : definition(offered, next.$ref.replace("#/definitions/", "")), rest)
}

describe("the service's kinds, one table", () => {
  it.each(KINDS)("%s: its list is an endpoint, paged as its params say", (_, kind) => {
    const request = definition(offered, offered.endpoints[`read/${kind.list}`]?.request)
    expect(Object.hasOwn(request.properties ?? {}, "limit")).toBe(kind.paged)
  })

  it.each(KINDS.filter(([, kind]) => kind.get !== undefined))(
    "%s: its get is an endpoint the interface offers, and its key a param of it",
    (_, kind) => {
      const request = definition(offered, offered.endpoints[`read/${kind.get?.endpoint}`]?.request)
      expect(Object.keys(request.properties ?? {})).toContain(kind.get?.key)
    },
  )

  it.each(KINDS.filter(([, kind]) => kind.find !== undefined))(
    "%s: its find is one of every endpoint's (SVC_REACH=all), and its key a param of it",
    (_, kind) => {
      const request = definition(all, all.endpoints[`read/${kind.find?.endpoint}`]?.request)
      expect(Object.keys(request.properties ?? {})).toContain(kind.find?.key)
    },
  )

  it("types exactly the targets the definitions name, each of one kind; the paged ones are the resources", () => {
    const resources = typesOf("ResourceTarget").filter((type) => type !== "System")
    const users = typesOf("UserTarget")
    const typed = KINDS.flatMap(([, kind]) => (kind.type === undefined ? [] : [kind.type]))
    for (const type of resources) expect(typed).toContain(type)
    for (const type of typed) expect([...resources, ...users]).toContain(type)
    expect(typed).toHaveLength(new Set(typed).size)
    for (const type of typed) expect(Kinds.byType(type)?.[1].type).toBe(type)
    const paged = KINDS.filter(([, kind]) => kind.paged).map(([, kind]) => kind.type)
    expect(new Set(paged)).toEqual(new Set(resources))
  })

  it.each(KINDS)("%s: its state is where its list item holds one, and only there", (_, kind) => {
    const state = at(itemOf(kind.list), ["info", "state"])
    if (kind.state === undefined) expect(state).toBeUndefined()
    else expect(at(itemOf(kind.list), kind.state.split("."))).toBeDefined()
  })

  it("names each batch the definitions hold on exactly one resource, each batch taking a pattern", () => {
    const batches = Object.keys(all.endpoints).filter((endpoint) => endpoint.startsWith("execute/Batch"))
    expect(batches.length).toBeGreaterThan(0)
    const tabled = KINDS.flatMap(([, kind]) => (kind.batches ?? []).map((batch) => `execute/${batch}`))
    expect([...tabled].sort()).toEqual([...batches].sort())
    for (const batch of tabled) {
      expect(Object.keys(definition(all, all.endpoints[batch]?.request).properties ?? {}), batch).toContain("pattern")
    }
    for (const [name, kind] of KINDS) if (kind.batches !== undefined) expect(kind.paged, name).toBe(true)
    expect(Kinds.batchOf("BatchDeploy")?.type).toBe("Deployment")
    expect(Kinds.batchOf("BatchCloneRepo")?.type).toBe("Repo")
    expect(Kinds.batchOf("DeployStack")).toBeUndefined()
  })

  it("says a target's type in a word: a ResourceSync a sync; none for a type it does not hold", () => {
    expect(Kinds.wordOf("ResourceSync")).toBe("sync")
    expect(Kinds.wordOf("Stack")).toBe("stack")
    expect(Kinds.wordOf("System")).toBeUndefined()
    expect(Kinds.resourceOf("sync")?.get).toEqual({ endpoint: "GetResourceSync", key: "sync" })
    expect(Kinds.resourceOf("user")).toBeUndefined()
  })

  it("reads a state from a list item by its path, and none for a kind without one", () => {
    expect(Kinds.stateIn(Kinds.KINDS.stack, { info: { state: "running" } })).toBe("running")
    expect(Kinds.stateIn(Kinds.KINDS.alerter, { info: { state: "running" } })).toBeUndefined()
  })

  it("reads one of a target's type by its get's key; none of a type without a get", () => {
    expect(Kinds.readOf("ResourceSync", "s1")).toEqual({ endpoint: "GetResourceSync", body: { sync: "s1" } })
    expect(Kinds.readOf("User", "u1")).toBeUndefined()
    expect(Kinds.readOf("System", "x")).toBeUndefined()
  })

  it("is what svc_list's and svc_get's selectors call, and what names a target's type", () => {
    expect(Object.entries(Tables.list)).toEqual(KINDS.map(([name, kind]) => [name, kind.list]))
    expect(Object.entries(Tables.get)).toEqual(
      KINDS.flatMap(([name, kind]) => (kind.get === undefined ? [] : [[name, kind.get.endpoint]])),
    )
    for (const [, kind] of KINDS) if (kind.type !== undefined) expect(Kinds.wordOf(kind.type)).toBe(kind.names)
  })

  it("is the resource types an identity's minted targets may name, listed in its order where one is refused", () => {
    const resources = KINDS.filter(([, kind]) => kind.paged).map(([, kind]) => kind.type)
    expect(Kinds.RESOURCE_TYPES).toEqual(resources)
    const parsed = Identities.parse(
      JSON.stringify({
        claim: "email",
        identities: { "a@example.com": { mint: { level: "Read", targets: ["Tag:x"] } } },
      }),
      [],
    )
    expect(Either.isLeft(parsed) ? parsed.left : "").toContain(`(it has ${resources.join(", ")})`)
  })
})
