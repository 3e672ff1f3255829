/**
 * `fields`: the paths of an answer kept, in the order asked, and nothing else;
 * and, applied after redaction as the server does, nothing redacted shown.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "fast-check"
import { REDACTED } from "../../../src/Shared/Secrets.js"
import { redact } from "../../../src/Tools/Bounds/AnswerBounds.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { shape } from "../../../src/Tools/Catalog/Fields.js"
import { resolve } from "../../../src/Tools/Invoke.js"
import { success } from "../../support/Answers.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

const name = FastCheck.constantFrom("name", "info", "state", "token", "value", "is_secret", "id", "__proto__", "x")
const json = FastCheck.letrec((tie) => ({
  value: FastCheck.oneof(
    { depthSize: "small" },
    FastCheck.string({ maxLength: 6 }),
    FastCheck.boolean(),
    FastCheck.integer(),
    FastCheck.constant(null),
    FastCheck.array(tie("value"), { maxLength: 3 }),
    FastCheck.dictionary(name, tie("value"), { maxKeys: 4 }),
  ),
})).value
const path = FastCheck.array(name, { minLength: 1, maxLength: 3 }).map((names) => names.join("."))
const paths = FastCheck.array(path, { minLength: 1, maxLength: 5 })
const answer = FastCheck.oneof(
  FastCheck.array(json, { maxLength: 4 }),
  FastCheck.dictionary(name, json, { maxKeys: 5 }),
)

/** Every value that is not an object or array, with its path of names (array positions left out). */
const leaves = (value: unknown, at = ""): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item) => leaves(item, at))
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, field]) => leaves(field, `${at}.${key}`))
  }
  return [`${at}=${JSON.stringify(value)}`]
}

/** Every empty array or object, with its path: a shaped answer may keep one only where the answer had it. */
const empties = (value: unknown, at = ""): Array<string> => {
  if (Array.isArray(value)) return value.length === 0 ? [`${at}=[]`] : value.flatMap((item) => empties(item, at))
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
    return entries.length === 0 ? [`${at}={}`] : entries.flatMap(([key, field]) => empties(field, `${at}.${key}`))
  }
  return []
}

describe("shape", () => {
  property(
    "never adds a value that was not in the answer, at the path it was at",
    { a: answer, p: paths },
    ({ a, p }) => {
      const shaped = shape(a, p).value
      const had = new Set(leaves(a))
      for (const leaf of leaves(shaped)) expect(had).toContain(leaf)
      // An object with none of the paths stays as {}: an item of a list, so that the count is kept,
      // or the answer itself; no empty object or list below them that the answer did not have.
      const objectsAtTop = (Array.isArray(a) ? a : [a]).some(
        (item) => typeof item === "object" && item !== null && !Array.isArray(item),
      )
      const hadEmpty = new Set(empties(a))
      for (const empty of empties(shaped)) {
        expect(hadEmpty.has(empty) || (empty === "={}" && objectsAtTop), empty).toBe(true)
      }
      if (Array.isArray(a)) expect(shaped).toHaveLength(a.length)
    },
    { fastCheck: { numRuns: runs(500) } },
  )

  property(
    "never reveals a redacted value, whichever paths are asked, as it works on the redacted answer",
    { a: answer, p: paths, secret: FastCheck.string({ minLength: 8, maxLength: 12 }) },
    ({ a, p, secret }) => {
      const marked = `S3CRET-${secret}`
      // A credential field and a secret variable, in every item, beside whatever else the item has.
      const plant = (item: unknown) => ({
        ...(typeof item === "object" && item !== null && !Array.isArray(item) ? item : {}),
        token: marked,
        info: { state: "running", value: marked, is_secret: true },
      })
      const withSecrets = Array.isArray(a) ? a.map(plant) : plant(a)
      const asked = [...p, "token", "info.value", "value"]
      const shown = JSON.stringify(shape(redact(withSecrets), asked).value)
      expect(shown).not.toContain(marked)
      // The secret's place is still there to see, redacted (unless there was no item to plant it in).
      if (!Array.isArray(a) || a.length > 0) expect(shown).toContain(REDACTED)
    },
    { fastCheck: { numRuns: runs(250) } },
  )

  property(
    "as rendered: the text and structuredContent are the redacted answer, shaped, and hold no secret",
    { a: answer, p: paths, secret: FastCheck.string({ minLength: 8, maxLength: 12 }) },
    ({ a, p, secret }) => {
      const marked = `S3CRET-${secret}`
      const withSecret = Array.isArray(a)
        ? [...a, { name: "DB", value: marked, is_secret: true }]
        : { ...a, api_token: marked }
      const rendered = success(
        Definitions.svc_list,
        {
          tool: "svc_list",
          wait: false,
          schema: false,
          selectorKey: "resource_type",
          selector: "variable",
          endpoint: "read/ListVariables",
          body: {},
          fields: [...p, "value", "api_token"],
          data: withSecret,
          text: JSON.stringify(withSecret),
        },
        { maxOutputChars: 1_000_000, revealSecrets: false },
      )
      expect(rendered.text).not.toContain(marked)
      expect(JSON.stringify(rendered.structuredData)).not.toContain(marked)
      const expected = shape(redact(withSecret), [...p, "value", "api_token"])
      const [json, ...notes] = rendered.text.split("\n")
      expect(JSON.parse(json ?? "")).toEqual(expected.value)
      expect(notes.join("\n")).toBe(expected.note === undefined ? "" : `[svc-mcp: ${expected.note}]`)
      expect(rendered.structuredData).toEqual(
        Array.isArray(expected.value) ? { result: expected.value } : expected.value,
      )
    },
    { fastCheck: { numRuns: runs(125) } },
  )

  property(
    "keeps the fields of a record in the order asked",
    { keys: FastCheck.uniqueArray(name, { minLength: 1, maxLength: 9 }), seed: FastCheck.integer() },
    ({ keys, seed }) => {
      const record = Object.fromEntries(keys.map((key, i) => [key, i]))
      const asked = [...keys].sort((a, b) => ((a.charCodeAt(0) * seed) % 7) - ((b.charCodeAt(0) * seed) % 7))
      const shaped = shape(record, asked).value as Record<string, unknown>
      expect(Object.keys(shaped)).toEqual(asked)
      expect(Object.getPrototypeOf(shaped)).toBe(Object.prototype)
    },
  )

  it("keeps dotted paths of each item, merging those under one field, in the order asked", () => {
    const stacks = [
      { name: "web", id: "1", info: { state: "running", server_name: "prod-01", repo: "acme/web" } },
      { name: "docs", id: "2", info: { state: "stopped", server_name: "prod-02", repo: "acme/docs" } },
    ]
    expect(shape(stacks, ["info.state", "name", "info.server_name"])).toEqual({
      value: [
        { info: { state: "running", server_name: "prod-01" }, name: "web" },
        { info: { state: "stopped", server_name: "prod-02" }, name: "docs" },
      ],
    })
  })

  it("passes through arrays on the way, item by item; a whole field asked takes in its paths", () => {
    const stack = {
      name: "web",
      info: {
        services: [
          { service: "web", image: "web:1", update_available: false },
          { service: "redis", image: "redis:7", update_available: true },
        ],
      },
    }
    expect(shape(stack, ["info.services.service", "info.services.update_available"]).value).toEqual({
      info: {
        services: [
          { service: "web", update_available: false },
          { service: "redis", update_available: true },
        ],
      },
    })
    expect(shape(stack, ["info.services.image", "info"]).value).toEqual({ info: stack.info })
    expect(shape(stack, ["info", "info.services.image"]).value).toEqual({ info: stack.info })
    // An empty list says something true, and stays.
    expect(shape({ info: { services: [] } }, ["info.services.image"]).value).toEqual({ info: { services: [] } })
  })

  it("names a path no item has, with the fields the items do have; an item without any stays, as {}", () => {
    const shaped = shape(
      [
        { name: "web", info: { state: "running" } },
        { name: "docs", tags: [] },
      ],
      ["name", "info.stat", "nope"],
    )
    expect(shaped.value).toEqual([{ name: "web" }, { name: "docs" }])
    expect(shaped.note).toBe(
      `no item has fields "info.stat", "nope"; the items' fields: name, info, tags (schema: true lists them all)`,
    )
    expect(shape([{ id: 1 }, { id: 2, state: "x" }], ["state"]).value).toEqual([{}, { state: "x" }])
    expect(shape({ total: 3 }, ["running"])).toEqual({
      value: {},
      note: `the answer has no field "running"; its fields: total (schema: true lists them all)`,
    })
    // A path one item has is not named, and nothing is said of an empty list.
    expect(shape([{ id: 1 }, { id: 2, state: "x" }], ["state"]).note).toBeUndefined()
    expect(shape([], ["state"])).toEqual({ value: [] })
  })

  it("leaves an answer that is neither an object nor a list as it is, and says so", () => {
    expect(shape("v2.3.2", ["name"])).toEqual({
      value: "v2.3.2",
      note: "fields not applied: the answer is a string, not an object or a list",
    })
    expect(shape(null, ["name"]).value).toBeNull()
    // Items of a list that are not objects have no paths: shown as they are.
    expect(shape(["a", { name: "b", id: 1 }], ["name"]).value).toEqual(["a", { name: "b" }])
  })
})

describe("the fields argument", () => {
  const problems = (args: unknown) => {
    const resolved = resolve(Definitions.svc_list, args)
    return Either.isLeft(resolved) ? resolved.left.problems : []
  }

  it("is taken by the five reading tools that answer records and by svc_execute (its whole Update), by no other", () => {
    const taking = Definitions.all.filter((tool) => "fields" in (tool.inputSchema.properties ?? {}))
    expect(taking.map((tool) => tool.name)).toEqual([
      "svc_list",
      "svc_get",
      "svc_execute",
      "svc_summary",
      "svc_inspect",
      "svc_list_detail",
    ])
    expect(
      resolve(Definitions.svc_logs, { resource_type: "stack", fields: ["name"] }).pipe(
        Either.mapLeft((e) => e.problems),
        Either.flip,
        Either.getOrThrow,
      ),
    ).toEqual(['unknown argument "fields": svc_logs takes resource_type, params, schema'])
  })

  it("is resolved as given; an empty or null list is the whole answer; schema: true is never shaped", () => {
    const fields = (args: unknown) => Either.getOrThrow(resolve(Definitions.svc_list, args)).fields
    expect(fields({ resource_type: "stack", fields: ["name", "info.state"] })).toEqual(["name", "info.state"])
    expect(fields({ resource_type: "stack", fields: [] })).toBeUndefined()
    expect(fields({ resource_type: "stack", fields: null })).toBeUndefined()
    expect(fields({ resource_type: "stack", fields: ["name"], schema: true })).toBeUndefined()
  })

  it("refuses what is not a list of dotted paths, with one clear sentence", () => {
    expect(problems({ resource_type: "stack", fields: "name" })).toEqual([
      'fields must be a list of dotted paths, e.g. ["name", "info.state"], got a string',
    ])
    expect(problems({ resource_type: "stack", fields: ["name", 3] })).toEqual([
      "fields[1] must be a string (a dotted path), got a number",
    ])
    for (const bad of ["", ".name", "info.", "info..state"]) {
      expect(problems({ resource_type: "stack", fields: ["name", bad] })).toEqual([
        `fields[1] ${JSON.stringify(bad)} is not a dotted path: names joined by single dots, e.g. "info.state"`,
      ])
    }
    expect(problems({ resource_type: "stack", fields: ["x".repeat(201)] })).toEqual([
      "fields[0] is longer than 200 characters",
    ])
    expect(problems({ resource_type: "stack", fields: Array.from({ length: 65 }, (_, i) => `f${i}`) })).toEqual([
      "fields takes at most 64 paths, got 65",
    ])
  })
})
