/**
 * The validator the servers check an elicitation's answer with (Mcp/Server/SdkShims.ts): the empty
 * form this server asks with is answered by any object; any other form is refused, whatever
 * the answer, since this validator does not know it.
 */
import { describe, expect, it } from "@effect/vitest"
import { DefaultJsonSchemaValidator } from "../../../src/Mcp/Server/SdkShims.js"

const validator = new DefaultJsonSchemaValidator()

describe("the servers' validator of an elicitation's answer", () => {
  it("takes an object as the answer to the empty form", () => {
    const check = validator.getValidator<Record<string, unknown>>({ type: "object", properties: {} })
    expect(check({})).toEqual({ valid: true, data: {}, errorMessage: undefined })
    expect(check({ note: "yes" })).toEqual({ valid: true, data: { note: "yes" }, errorMessage: undefined })
  })

  it("refuses an answer to the empty form that is not an object", () => {
    const check = validator.getValidator({ type: "object" })
    for (const answer of [null, "yes", 1, true, ["yes"]]) {
      expect(check(answer)).toEqual({ valid: false, data: undefined, errorMessage: "the answer is not an object" })
    }
  })

  it("refuses every answer to a form with fields, which it cannot check", () => {
    const forms = [
      { type: "object", properties: { confirm: { type: "boolean" } } },
      { type: "object", properties: {}, additionalProperties: false },
      { type: "string" },
    ] as const
    for (const form of forms) {
      expect(validator.getValidator(form)({ confirm: true })).toMatchObject({ valid: false, data: undefined })
    }
  })
})
