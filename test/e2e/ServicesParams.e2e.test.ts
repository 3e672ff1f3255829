/**
 * Several services of different versions behind one built server: each
 * service's params are checked against the definitions of its own version
 * (SVC_<N>_DEFINITIONS, SVC_<N>_CHECK_PARAMS), its `schema: true` answers from
 * them, `check` reports each service's params step, and a definitions file
 * that cannot serve stops the start by the name of its variable. And
 * `--sandbox` with SVC_SERVICES runs one sandbox per name.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import { env, PROD, type Result, STAGING, textOf } from "../support/TwoServices.js"

const SHIPPED = Path.resolve(Path.dirname(import.meta.dirname), "../spec/service-api.schema.json")

const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-params-"))

/**
 * The shipped definitions as a newer service's: version 2.4.0, whose CreateTag
 * also takes an `owner`. Written pretty-printed differently, with the version
 * last, so that nothing depends on the head of the file.
 */
const newer = (dir: string): string => {
  const document = JSON.parse(Fs.readFileSync(SHIPPED, "utf8"))
  const { serviceVersion: _, ...rest } = document
  rest.definitions.CreateTag.properties.owner = { type: "string" }
  const path = Path.join(dir, "staging-api.schema.json")
  Fs.writeFileSync(path, JSON.stringify({ ...rest, serviceVersion: "2.4.0" }))
  return path
}

describe("each service's params, against the definitions of its own version", () => {
  it.scopedLive("the same params pass on one service and are refused on the other, by its name", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ apiKey: PROD })
      const staging = yield* Double.scoped({ apiKey: STAGING, version: "2.4.0" })
      const definitions = newer(tempDir())
      const { client, stderr } = yield* Spawn.connect({
        ...env(prod.url, staging.url),
        SVC_STAGING_DEFINITIONS: definitions,
      })
      const call = (args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name: "svc_create", arguments: args }) as Promise<Result>)
      const owned = { resource_type: "tag", params: { name: "web", owner: "ops" } }

      const onStaging = yield* call({ ...owned, service: "staging" })
      expect(onStaging.isError).toBeUndefined()
      expect(staging.calls().map((r) => [r.path, r.body])).toEqual([
        ["/write/CreateTag", { name: "web", owner: "ops" }],
      ])

      const onProd = yield* call({ ...owned, service: "prod" })
      expect(onProd.isError).toBe(true)
      expect(textOf(onProd)).toMatch(/^prod: svc_create resource_type "tag" -> write\/CreateTag: invalid params/)
      expect(textOf(onProd)).toContain("owner")
      expect(onProd.structuredContent?.error).toMatchObject({
        kind: "invalid_params",
        service: "prod",
        endpoint: "write/CreateTag",
        accepted: expect.not.stringContaining("owner"),
      })
      expect(prod.calls()).toEqual([])
      // The first service by default: prod's check.
      expect((yield* call(owned)).isError).toBe(true)
      expect(prod.calls()).toEqual([])

      // schema: true answers from each service's own definitions.
      const schema = (service: string) =>
        Effect.map(
          call({ resource_type: "tag", schema: true, service }),
          (result) => JSON.parse(textOf(result)) as { params: string },
        )
      expect((yield* schema("staging")).params).toContain("owner?: string")
      expect((yield* schema("prod")).params).not.toContain("owner")

      // The start-up line says which definitions each service is checked against.
      const [prodPart, stagingPart] = stderr().split("; staging at ")
      expect(prodPart).toMatch(
        /serving prod at \S+ \(api-key auth; [^;]+; params checked against definitions 2\.3\.2, the newest the service publishes \(the tools speak API 2\.3\.3\)\)$/,
      )
      expect(stagingPart).toMatch(
        /^\S+ \(api-key auth; [^;]+; params checked against the definitions 2\.4\.0 in (\S+) \(SVC_STAGING_DEFINITIONS\)\) over stdio\n/,
      )
      expect(stagingPart).toContain(` in ${definitions} (SVC_STAGING_DEFINITIONS)`)
    }),
  )

  it.scopedLive(
    "SVC_<N>_CHECK_PARAMS turns one service's check off; the server's SVC_CHECK_PARAMS is each one's default",
    () =>
      Effect.gen(function* () {
        const prod = yield* Double.scoped({ apiKey: PROD })
        const staging = yield* Double.scoped({ apiKey: STAGING })
        const { client, stderr } = yield* Spawn.connect({
          ...env(prod.url, staging.url),
          SVC_CHECK_PARAMS: "off",
          SVC_PROD_CHECK_PARAMS: "on",
        })
        const odd = { resource_type: "tag", params: { name: "web", nonsense: 1 } }
        for (const service of ["prod", "staging"]) {
          yield* Effect.promise(() => client.callTool({ name: "svc_create", arguments: { ...odd, service } }))
        }
        expect(prod.calls()).toEqual([])
        expect(staging.calls().map((r) => r.body)).toEqual([{ name: "web", nonsense: 1 }])
        expect(stderr()).toMatch(
          /prod at [^;]+; [^;]+; params checked against definitions 2\.3\.2, the newest the service publishes \(the tools speak API 2\.3\.3\)\);/,
        )
        expect(stderr()).toMatch(/staging at [^;]+; [^;]+; params sent unchecked \(SVC_CHECK_PARAMS=off\)\) over stdio/)
      }),
  )

  it.scopedLive("one service alone: SVC_DEFINITIONS", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: PROD })
      const definitions = newer(tempDir())
      const { client, stderr } = yield* Spawn.connect({
        SVC_URL: double.url,
        SVC_API_KEY: PROD.key,
        SVC_API_SECRET: PROD.secret,
        SVC_DEFINITIONS: definitions,
      })
      const created = yield* Effect.promise(() =>
        client.callTool({ name: "svc_create", arguments: { resource_type: "tag", params: { name: "a", owner: "b" } } }),
      )
      expect(created.isError).toBeUndefined()
      expect(double.calls().map((r) => r.body)).toEqual([{ name: "a", owner: "b" }])
      expect(stderr()).toContain(`; params checked against the definitions 2.4.0 in ${definitions} (SVC_DEFINITIONS)\n`)
    }),
  )

  it.live("a definitions file that cannot serve stops the start in one line naming its variable, exit code 2", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const write = (name: string, text: string) => {
        const path = Path.join(dir, name)
        Fs.writeFileSync(path, text)
        return path
      }
      const shipped = JSON.parse(Fs.readFileSync(SHIPPED, "utf8"))
      const noVersion = write("no-version.json", JSON.stringify({ ...shipped, serviceVersion: undefined }))
      const undefinedRequest = write(
        "undefined-request.json",
        JSON.stringify({ ...shipped, endpoints: { ...shipped.endpoints, "read/GetTag": { request: "GetTagg" } } }),
      )
      const truncated = write("truncated.json", Fs.readFileSync(SHIPPED, "utf8").slice(0, 5000))
      const base = env("http://127.0.0.1:9", "http://127.0.0.1:9")
      const single = { SVC_URL: "http://127.0.0.1:9", SVC_API_KEY: "k", SVC_API_SECRET: "s" }
      const cases: ReadonlyArray<[Record<string, string>, RegExp]> = [
        [
          { ...base, SVC_STAGING_DEFINITIONS: Path.join(dir, "missing.json") },
          /^svc-mcp: SVC_STAGING_DEFINITIONS names a file that cannot be read \(ENOENT\): check the path/,
        ],
        [{ ...base, SVC_PROD_DEFINITIONS: truncated }, /^svc-mcp: SVC_PROD_DEFINITIONS names a file that is not JSON/],
        [
          { ...base, SVC_STAGING_DEFINITIONS: noVersion },
          /^svc-mcp: SVC_STAGING_DEFINITIONS names a file whose serviceVersion is not a version such as "2\.3\.2" \(missing\)/,
        ],
        [
          { ...base, SVC_STAGING_DEFINITIONS: undefinedRequest },
          /^svc-mcp: SVC_STAGING_DEFINITIONS names a file whose endpoint "read\/GetTag" names the request "GetTagg", which is not among its definitions/,
        ],
        // The server's file is each service's default: refused by its own name.
        [{ ...base, SVC_DEFINITIONS: noVersion }, /^svc-mcp: SVC_DEFINITIONS names a file whose serviceVersion/],
        [{ ...single, SVC_DEFINITIONS: truncated }, /^svc-mcp: SVC_DEFINITIONS names a file that is not JSON/],
        [{ ...base, SVC_STAGING_CHECK_PARAMS: "maybe" }, /^svc-mcp: SVC_STAGING_CHECK_PARAMS is "maybe": use on/],
        // Off, a file is still read: it answers schema: true.
        [
          { ...base, SVC_STAGING_CHECK_PARAMS: "off", SVC_STAGING_DEFINITIONS: dir },
          /^svc-mcp: SVC_STAGING_DEFINITIONS names a file that cannot be read \(EISDIR\)/,
        ],
      ]
      for (const [given, expected] of cases) {
        const { code, stderr, stdout } = yield* Spawn.run(given)
        expect({ code, stdout }).toEqual({ code: 2, stdout: "" })
        expect(stderr.trim().split("\n")).toHaveLength(1)
        expect(stderr).toMatch(expected)
      }
    }),
  )

  it.scopedLive("check reports each service's params step, compared with that service's version", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ apiKey: PROD, version: "2.4.1" })
      const staging = yield* Double.scoped({ apiKey: STAGING, version: "2.4.1" })
      const definitions = newer(tempDir())
      const checked = yield* Spawn.run({ ...env(prod.url, staging.url), SVC_STAGING_DEFINITIONS: definitions }, [
        "check",
      ])
      expect(checked.code).toBe(0)
      const [prodReport, stagingReport] = checked.stderr.split(/(?=svc-mcp check: staging\n)/)
      expect(prodReport).toMatch(/^svc-mcp check: prod\n/)
      expect(prodReport).toMatch(
        /\[ok {2}\] params {3}checked against definitions 2\.3\.2, the newest the service publishes \(the tools speak API 2\.3\.3\)\n/,
      )
      // prod runs 2.4.1 against the 2.3.2 definitions: the hint names prod's own variables.
      expect(prodReport).toMatch(
        /-> the service \(2\.4\.1\) is newer than these definitions: .* give its definitions in SVC_PROD_DEFINITIONS, or set SVC_PROD_CHECK_PARAMS=off\n/,
      )
      expect(stagingReport).toContain(
        `[ok  ] params   checked against the definitions 2.4.0 in ${definitions} (SVC_STAGING_DEFINITIONS)\n`,
      )
      // staging's own definitions are of its minor version: no hint.
      expect(stagingReport).not.toMatch(/newer than these definitions/)

      const unreadable = yield* Spawn.run(
        { ...env(prod.url, staging.url), SVC_STAGING_DEFINITIONS: Path.join(tempDir(), "none.json") },
        ["check"],
      )
      expect(unreadable.code).toBe(1)
      expect(unreadable.stderr.split(/(?=svc-mcp check: staging\n)/)[1]).toMatch(
        /\[FAIL\] params {3}SVC_STAGING_DEFINITIONS names a file that cannot be read \(ENOENT\)/,
      )
    }),
  )
})

describe("--sandbox with SVC_SERVICES set", () => {
  it.scopedLive("runs one sandbox per name it gives, as --services would, each with its own estate and policy", () =>
    Effect.gen(function* () {
      const { client, stderr } = yield* Spawn.connect({ SVC_SERVICES: "prod,staging", SVC_STAGING_MODE: "read-only" }, [
        "--sandbox",
      ])
      const call = (args: Record<string, unknown>, name = "svc_list") =>
        Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>)
      const tags = (service: string) =>
        Effect.map(call({ resource_type: "tag", service, fields: ["name"] }), (result) =>
          (JSON.parse(textOf(result)) as Array<{ name: string }>).map((t) => t.name),
        )
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools[0]?.inputSchema.properties?.service).toEqual({ type: "string", enum: ["prod", "staging"] })
      yield* call({ resource_type: "tag", params: { name: "only-on-prod" }, service: "prod" }, "svc_create")
      expect(yield* tags("prod")).toContain("only-on-prod")
      expect(yield* tags("staging")).not.toContain("only-on-prod")
      const refused = yield* call({ resource_type: "tag", params: { name: "x" }, service: "staging" }, "svc_create")
      expect(textOf(refused)).toMatch(/^staging: .*SVC_STAGING_MODE/)
      expect(stderr()).toMatch(/SANDBOX: one sandbox per service SVC_SERVICES names \(prod, staging\)/)
      expect(stderr()).toMatch(/SANDBOX: service prod is an in-memory sandbox/)
      expect(stderr()).toMatch(/SANDBOX: service staging is an in-memory sandbox/)
    }),
  )

  it.scopedLive("--services wins over SVC_SERVICES; a malformed SVC_SERVICES stops the start", () =>
    Effect.gen(function* () {
      const { client } = yield* Spawn.connect({ SVC_SERVICES: "prod,staging" }, ["--sandbox", "--services", "qa,dev"])
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools[0]?.inputSchema.properties?.service).toEqual({ type: "string", enum: ["qa", "dev"] })
      const bad = yield* Spawn.run({ SVC_SERVICES: "prod,Staging" }, ["--sandbox"])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(/^svc-mcp: SVC_SERVICES has the name "Staging"/)
      expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    }),
  )
})
