/**
 * Fences only around text from outside: every answer the definitions allow, its untrusted text
 * fenced, still matches the definitions. A fenced value stays a string where the service answers
 * one; an enum's tag, a union's discriminant, an id, a number or a boolean is left as the service
 * typed it (a tag fenced, `<u:…>ServerDisk</u>`, would match no member of its union).
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { fences } from "../../../src/Untrusted/Answer.js"
import { PATHS } from "../../../src/Untrusted/Paths.js"
import { document, validators } from "../../support/Definitions.js"
import { runs } from "../../support/Runs.js"
import { arbitrary, resolve } from "../../support/SchemaValues.js"

const validate = validators(false)

/** Every endpoint whose answer can carry untrusted text, with the definition it answers. */
const ENDPOINTS = Object.keys(PATHS).flatMap((endpoint) => {
  const response = document.endpoints[endpoint]?.response
  return typeof response === "string" ? [[endpoint, response] as const] : []
})

/** Strings that are text, and some that could pass for the service's own values. */
const strings = FastCheck.oneof(
  FastCheck.string({ maxLength: 12 }),
  FastCheck.constantFrom("6b0741480000000000000008", "ServerDisk", "web"),
)

describe("fences only around text from outside", () => {
  it("an alert's kind, its ids and its numbers keep the service's types; its names and errors are fenced", () => {
    const alert = {
      ts: 1,
      resolved: false,
      level: "WARNING",
      target: { type: "Server", id: "6b0741480000000000000008" },
      data: {
        type: "ServerDisk",
        data: { id: "6b0741480000000000000008", name: "prod-02", path: "/var", used_gb: 450, total_gb: 500 },
      },
    }
    const fenced = fences("read/GetAlert", alert, {})?.data as typeof alert | undefined
    expect(fenced?.data.type).toBe("ServerDisk")
    expect(fenced?.data.data.id).toBe("6b0741480000000000000008")
    expect(fenced?.data.data.used_gb).toBe(450)
    expect(fenced?.level).toBe("WARNING")
    expect(fenced?.data.data.name).toMatch(/^<u:[0-9a-f]+>prod-02<\/u:?[0-9a-f]*>$/)
    expect(fenced?.data.data.path).toMatch(/^<u:[0-9a-f]+>\/var<\/u/)
    expect(validate("Alert")(fenced)).toBe(true)
  })

  it("every fenced answer the definitions allow still matches them", () => {
    expect(ENDPOINTS.length).toBeGreaterThan(50)
    const answers = FastCheck.constantFrom(...ENDPOINTS).chain(([endpoint, response]) =>
      arbitrary(resolve({ $ref: `#/definitions/${response}` }), { strings, depth: 4 }).map(
        (value) => [endpoint, response, value] as const,
      ),
    )
    let fencedSome = 0
    FastCheck.assert(
      FastCheck.property(answers, ([endpoint, response, value]) => {
        const check = validate(response)
        FastCheck.pre(check(value) === true)
        const fenced = fences(endpoint, value, {})
        if (fenced === undefined) return
        fencedSome++
        expect(check(fenced.data), `${endpoint}: ${JSON.stringify(check.errors)}`).toBe(true)
      }),
      { numRuns: runs(300) },
    )
    expect(fencedSome).toBeGreaterThan(0)
  })
})
