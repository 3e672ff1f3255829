/**
 * A minted identity's entry in the identities file, for every input: a level
 * and targets the service knows are read as given (each target once); any
 * other level, resource type, field or mixture is refused with where it is.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "fast-check"
import * as Identities from "../../../src/Settings/Identities.js"
import { property } from "../../support/Property.js"

const LEVELS = ["Read", "Execute", "Write"] as const
const TYPES = [
  "Swarm",
  "Server",
  "Stack",
  "Deployment",
  "Build",
  "Repo",
  "Procedure",
  "Action",
  "Builder",
  "Alerter",
  "ResourceSync",
] as const

const name = FastCheck.stringMatching(/^[a-z0-9][a-z0-9._-]{0,30}$/)
const target = FastCheck.record({ type: FastCheck.constantFrom(...TYPES), id: name })

const fileOf = (entry: unknown, services: ReadonlyArray<string> = []) =>
  Identities.parse(JSON.stringify({ claim: "email", identities: { "a@example.com": entry } }), services)

const faultOf = (entry: unknown, services: ReadonlyArray<string> = []): string => {
  const parsed = fileOf(entry, services)
  expect(Either.isLeft(parsed)).toBe(true)
  return Either.isLeft(parsed) ? parsed.left : ""
}

describe("a minted identity's entry", () => {
  property(
    "gives its level on every type, or on exactly its targets, each once",
    { level: FastCheck.constantFrom(...LEVELS), targets: FastCheck.array(target, { maxLength: 12 }) },
    ({ level, targets }) => {
      const mint = targets.length === 0 ? { level } : { level, targets: targets.map((t) => `${t.type}:${t.id}`) }
      const parsed = Either.getOrThrow(fileOf({ mint }))
      const entry = parsed.entries.get("a@example.com")
      const unique = targets.filter(
        (t, index) => targets.findIndex((u) => u.type === t.type && u.id === t.id) === index,
      )
      expect(entry).toEqual({ _tag: "All", credentials: { _tag: "Mint", grant: { level, targets: unique } } })
    },
  )

  property(
    "refuses, in one line, any level the service does not know",
    { level: FastCheck.string({ maxLength: 12 }).filter((text) => !(LEVELS as ReadonlyArray<string>).includes(text)) },
    ({ level }) => {
      const fault = faultOf({ mint: { level } })
      expect(fault).toContain('identities["a@example.com"].mint.level is')
      expect(fault).toContain("a level the service does not know; give one of Read, Execute, Write")
      expect(fault).not.toContain("\n")
    },
  )

  property(
    "refuses a target of a type the service does not have, or naming nothing",
    {
      type: FastCheck.stringMatching(/^[A-Za-z]{0,14}$/).filter(
        (text) => !(TYPES as ReadonlyArray<string>).includes(text),
      ),
      id: name,
    },
    ({ type, id }) => {
      expect(faultOf({ mint: { level: "Read", targets: [`${type}:${id}`] } })).toContain(
        'identities["a@example.com"].mint.targets[0] names the resource type',
      )
      expect(faultOf({ mint: { level: "Read", targets: ["Stack:", `Stack:${id}`] } })).toContain(
        'mint.targets[0] names no resource after "Stack:"',
      )
    },
  )

  property(
    "refuses any field beside level and targets",
    { field: name.filter((text) => text !== "level" && text !== "targets") },
    ({ field }) => {
      expect(faultOf({ mint: { level: "Read", [field]: true } })).toBe(
        `identities["a@example.com"].mint has an unknown field ${JSON.stringify(field)}`,
      )
    },
  )

  it("refuses mint beside other credentials, empty or non-list targets, and mint per service", () => {
    expect(faultOf({ mint: { level: "Read" }, server: true })).toBe(
      'identities["a@example.com"] has mint beside other credentials',
    )
    expect(faultOf({ mint: { level: "Read", targets: [] } })).toContain("mint.targets is not a list of 1 to 256")
    expect(faultOf({ mint: { level: "Read", targets: "Stack:web" } })).toContain("mint.targets is not a list")
    expect(faultOf({ mint: "Read" })).toContain('mint is not an object like {"level": "Read"}')
    expect(faultOf({ mint: { level: "None" } })).toContain('mint.level is "None", a level the service does not know')
    expect(faultOf({ prod: { mint: { level: "Read" } } }, ["prod"])).toBe(
      'identities["a@example.com"].prod: mint is given once, for every service',
    )
  })
})
