/**
 * Which definitions each service's params are checked against: SVC_CHECK_PARAMS
 * and SVC_DEFINITIONS, and among several services SVC_<N>_CHECK_PARAMS and
 * SVC_<N>_DEFINITIONS, each defaulting to the server's; a definitions file is
 * inspected whole before it is used.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Settings from "../../../src/Settings/ParamsCheck.js"
import * as ParamsCheck from "../../../src/Tools/Params/ParamsCheck.js"
import { inspect } from "../../../src/Tools/Params/ParamsDefinitions.js"

const SHIPPED = Path.resolve(Path.dirname(Path.dirname(import.meta.dirname)), "../spec/service-api.schema.json")
const shipped = () => JSON.parse(Fs.readFileSync(SHIPPED, "utf8"))

const withEnv =
  (env: Record<string, string>) =>
  <A, E>(self: Effect.Effect<A, E>) =>
    Effect.withConfigProvider(self, ConfigProvider.fromMap(new Map(Object.entries(env))))

const write = (document: unknown) => {
  const path = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-definitions-")), "defs.json")
  Fs.writeFileSync(path, typeof document === "string" ? document : JSON.stringify(document))
  return path
}

describe("the settings of each service's check", () => {
  it.effect("a service's own variable wins; the server's is its default; on by default", () =>
    Effect.gen(function* () {
      const read = (env: Record<string, string>) => Settings.loadFor("eu-west").pipe(withEnv(env))
      expect(yield* read({})).toEqual({
        on: true,
        decidedBy: Option.none(),
        checkVariable: "SVC_EU_WEST_CHECK_PARAMS",
        definitionsVariable: "SVC_EU_WEST_DEFINITIONS",
        definitions: Option.none(),
      })
      const inherited = yield* read({ SVC_CHECK_PARAMS: "off", SVC_DEFINITIONS: " /a.json " })
      expect(inherited).toMatchObject({
        on: false,
        decidedBy: Option.some("SVC_CHECK_PARAMS"),
        definitions: Option.some({ path: "/a.json", variable: "SVC_DEFINITIONS" }),
      })
      const own = yield* read({
        SVC_CHECK_PARAMS: "off",
        SVC_EU_WEST_CHECK_PARAMS: "on",
        SVC_DEFINITIONS: "/a.json",
        SVC_EU_WEST_DEFINITIONS: "/b.json",
      })
      expect(own).toMatchObject({
        on: true,
        decidedBy: Option.some("SVC_EU_WEST_CHECK_PARAMS"),
        definitions: Option.some({ path: "/b.json", variable: "SVC_EU_WEST_DEFINITIONS" }),
      })
      const bad = yield* Effect.flip(read({ SVC_EU_WEST_CHECK_PARAMS: "sometimes" }))
      expect(bad.message).toMatch(/^SVC_EU_WEST_CHECK_PARAMS is "sometimes": use on/)
      // Another service's variables are not this one's.
      expect((yield* read({ SVC_PROD_CHECK_PARAMS: "off" })).on).toBe(true)
    }),
  )

  it.effect("off with a file of its own: nothing checked, and schema: true answers from that file", () =>
    Effect.gen(function* () {
      const document = shipped()
      document.definitions.CreateTag.properties.owner = { type: "string" }
      const path = write({ ...document, serviceVersion: "2.4.0" })
      const check = yield* ParamsCheck.loadFor("staging").pipe(
        withEnv({ SVC_STAGING_CHECK_PARAMS: "off", SVC_STAGING_DEFINITIONS: path }),
      )
      expect(check.inForce).toBe("params sent unchecked (SVC_STAGING_CHECK_PARAMS=off)")
      expect(check.version).toBeUndefined()
      expect(yield* check.check("write/CreateTag", { nonsense: 1 })).toEqual({
        _tag: "Unchecked",
        body: { nonsense: 1 },
      })
      expect((yield* check.describe("write/CreateTag"))?.accepted).toContain("owner?: string")
      const on = yield* ParamsCheck.loadFor("staging").pipe(withEnv({ SVC_DEFINITIONS: path }))
      expect(on.version).toBe("2.4.0")
      expect(on.inForce).toBe(`params checked against the definitions 2.4.0 in ${path} (SVC_DEFINITIONS)`)
      expect((yield* on.check("write/CreateTag", { name: "a", owner: "b" }))._tag).toBe("Valid")
      // Each check holds its own definitions: the shipped one still refuses the field.
      const plain = yield* ParamsCheck.loadFor("prod").pipe(withEnv({}))
      expect((yield* plain.check("write/CreateTag", { name: "a", owner: "b" }))._tag).toBe("Invalid")
    }),
  )
})

describe("a definitions file, inspected", () => {
  const problem = (path: string) =>
    Either.match(inspect(path), { onLeft: (unfit) => unfit.problem, onRight: () => "fit" })

  it("the shipped file is fit, and so is a copy of another version", () => {
    expect(problem(SHIPPED)).toBe("fit")
    expect(problem(write({ ...shipped(), serviceVersion: "v2.5.0" }))).toBe("fit")
  })

  it("says what is wrong with one that is not", () => {
    const base = shipped()
    expect(problem(Path.dirname(write("{}")))).toMatch(/^names a file that cannot be read \(EISDIR\)$/)
    expect(problem(write("[1,"))).toMatch(/^names a file that is not JSON/)
    expect(problem(write([]))).toBe("names a file whose content is not an object")
    expect(problem(write({ ...base, serviceVersion: "latest" }))).toBe(
      'names a file whose serviceVersion is not a version such as "2.3.2" ("latest")',
    )
    expect(problem(write({ ...base, notInDefinitions: "none" }))).toBe(
      "names a file whose notInDefinitions is not a list of endpoints",
    )
    expect(problem(write({ ...base, definitions: [] }))).toBe("names a file whose definitions are not an object")
    expect(problem(write({ ...base, endpoints: null }))).toBe("names a file whose endpoints are not an object")
    expect(problem(write({ ...base, endpoints: { "read/X": { response: "Y" } } }))).toBe(
      'names a file whose endpoint "read/X" has no request (a name, or null)',
    )
    expect(problem(write({ ...base, endpoints: { "read/X": { request: "Nope" } } }))).toBe(
      'names a file whose endpoint "read/X" names the request "Nope", which is not among its definitions',
    )
    // An endpoint the definitions lack has a null request: fit.
    expect(problem(write({ ...base, endpoints: { "read/X": { request: null } } }))).toBe("fit")
  })
})
