/**
 * A path's reader (src/Tools/Lists/PathReader.ts), written as code of its own on its first use, reads
 * what a plain reading of the path finds, for any value: through arrays, items without the field
 * left out, only an object's own fields (a record's `constructor` or `__proto__` is its own or
 * nothing), the first use and every later one alike.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as PathReader from "../../../src/Tools/Lists/PathReader.js"
import { readAt } from "../../support/SchemaValues.js"

const KEYS = ["a", "b", "info", "constructor", "toString", "__proto__", "x y", "$oid"]

const { value } = FastCheck.letrec((tie) => ({
  value: FastCheck.oneof(
    { depthSize: "small" },
    FastCheck.constantFrom(null, true, 0, "s", ""),
    FastCheck.array(tie("value"), { maxLength: 3 }),
    // Parsed, as the service's answers are: a "__proto__" key is then the object's own.
    FastCheck.dictionary(FastCheck.constantFrom(...KEYS), tie("value"), { maxKeys: 4 }).map(
      (record) => JSON.parse(JSON.stringify(record)) as unknown,
    ),
  ),
}))

describe("a path's reader", () => {
  it("reads what a plain reading finds, on its first use and after", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }),
        FastCheck.array(value, { minLength: 1, maxLength: 4 }),
        (path, values) => {
          const reader = PathReader.compile(path)
          for (const one of values) expect(reader(one)).toEqual(readAt(one, path))
        },
      ),
      { numRuns: 500 },
    )
  })

  it("reads a name the tables could not hold, quotes and all", () => {
    const record = { 'a"b': { "c\\d": [{ "e\nf": 1 }, { "e\nf": 2 }, {}] } }
    expect(PathReader.compile(['a"b', "c\\d", "e\nf"])(record)).toEqual([1, 2])
    expect(PathReader.of("info.server_id")({ info: { server_id: "s" } })).toBe("s")
    expect(PathReader.of("info.server_id")({ info: Object.create({ server_id: "inherited" }) })).toBeUndefined()
  })

  it("reads stepwise where the runtime makes no code from strings", () => {
    vi.stubGlobal("Function", () => {
      throw new EvalError("Code generation from strings disallowed for this context")
    })
    try {
      const reader = PathReader.of("info.services.service")
      expect(reader({ info: { services: [{ service: "web" }, {}, { service: "db" }] } })).toEqual(["web", "db"])
    } finally {
      vi.unstubAllGlobals()
    }
  })
})
