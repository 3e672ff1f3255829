/**
 * Several services behind one built server (SVC_SERVICES): two doubles, each
 * with its own key, policy and failures. A call reaches only the service it
 * names; one refusing or failing leaves the other served; audit lines and
 * errors name their service; a misconfigured service stops the start by the
 * name of its variable; tools/list stays as it was with one service.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Cli from "../../src/Cli/CommandLine.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Otlp from "../support/OtlpReceiver.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import { env, PROD, type Result, STAGING, textOf } from "../support/TwoServices.js"
import { until } from "../support/Wait.js"

// The lines calls end with: a change's intent before it (test/e2e/Audit.e2e.test.ts) is left out.
const linesOf = (path: string): Array<Record<string, unknown>> =>
  Fs.existsSync(path)
    ? Fs.readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l))
        .filter((l) => l.phase !== "intent")
    : []

describe("several services", () => {
  it.scopedLive("a call reaches only the service it names, with that service's key and policy", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ apiKey: PROD })
      const staging = yield* Double.scoped({ apiKey: STAGING })
      const audit = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-services-")), "audit.log")
      const { client, stderr } = yield* Spawn.connect({
        ...env(prod.url, staging.url),
        SVC_STAGING_MODE: "read-only",
        SVC_AUDIT_LOG: audit,
      })
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))

      const { tools } = yield* Effect.promise(() => client.listTools())
      for (const tool of tools) {
        expect(tool.inputSchema.properties?.service).toEqual({ type: "string", enum: ["prod", "staging"] })
      }
      expect(tools.find((t) => t.name === "svc_delete")?.description).toMatch(/Not on staging \(read-only\)\.$/)
      expect(tools.find((t) => t.name === "svc_list")?.description).not.toMatch(/Not on/)

      // The first service by default; the other only when named.
      const listed = yield* call("svc_list", { resource_type: "stack" })
      expect((listed as Result).isError).toBeUndefined()
      expect(prod.calls().map((r) => r.path)).toEqual(["/read/ListStacks"])
      expect(staging.calls()).toEqual([])
      expect(prod.calls()[0]?.headers["x-api-key"]).toBe(PROD.key)

      yield* call("svc_list", { resource_type: "stack", service: "staging" })
      expect(staging.calls().map((r) => r.path)).toEqual(["/read/ListStacks"])
      expect(staging.calls()[0]?.headers["x-api-key"]).toBe(STAGING.key)
      expect(prod.calls()).toHaveLength(1)
      // Nothing of one service's credentials reaches the other.
      for (const request of staging.requests) expect(JSON.stringify(request)).not.toContain(PROD.secret)
      for (const request of prod.requests) expect(JSON.stringify(request)).not.toContain(STAGING.secret)

      // Staging's policy refuses by its own variable; prod still writes.
      const refused = yield* call("svc_delete", { resource_type: "stack", params: { id: "s1" }, service: "staging" })
      expect((refused as Result).isError).toBe(true)
      expect(textOf(refused)).toMatch(/^staging: svc_delete "stack" is refused: .*SVC_STAGING_MODE/)
      expect(staging.calls()).toHaveLength(1)
      yield* call("svc_delete", { resource_type: "stack", params: { id: "s1" }, service: "prod" })
      expect(prod.calls().map((r) => r.path)).toEqual(["/read/ListStacks", "/write/DeleteStack"])

      // A failing staging leaves prod served, and its error names it.
      staging.next("*", { status: 500, body: { error: "staging is down" } }, { sticky: true })
      const failed = yield* call("svc_get", { resource_type: "stack", params: { stack: "s1" }, service: "staging" })
      expect((failed as Result).isError).toBe(true)
      expect(textOf(failed)).toMatch(/^staging: /)
      expect((failed as { structuredContent?: { error?: unknown } }).structuredContent?.error).toMatchObject({
        service: "staging",
        status: 500,
      })
      const served = yield* call("svc_get", { resource_type: "stack", params: { stack: "s1" } })
      expect(textOf(served)).not.toMatch(/^(prod|staging): /)
      expect(prod.calls().at(-1)?.path).toBe("/read/GetStack")

      // A name not configured (the schema's enum bypassed) is refused with the configured names,
      // and recorded as refused; nothing is sent. A name of any length is shown cut.
      const before = prod.calls().length + staging.calls().length
      const unknown = yield* call("svc_list", { resource_type: "stack", service: "qa" })
      expect((unknown as Result).isError).toBe(true)
      expect(textOf(unknown)).toBe(
        'svc_list "stack" is refused: the service "qa" is not one of the configured services (prod, staging). Nothing was sent.',
      )
      expect((unknown as { structuredContent?: unknown }).structuredContent).toEqual({
        error: {
          kind: "denied",
          tool: "svc_list",
          selector: "stack",
          message: textOf(unknown),
          reason: 'the service "qa" is not one of the configured services (prod, staging)',
          services: ["prod", "staging"],
        },
      })
      const long = yield* call("svc_delete", {
        resource_type: "stack",
        params: { id: "s1" },
        service: "x".repeat(5000),
      })
      expect(textOf(long)).toMatch(/^svc_delete "stack" is refused: the service "x{62}\.\.\. is not one of/)
      const wrongType = yield* call("svc_list", { resource_type: "stack", service: 7 })
      expect((wrongType as { structuredContent?: { error?: unknown } }).structuredContent?.error).toMatchObject({
        kind: "denied",
        services: ["prod", "staging"],
      })
      expect(prod.calls().length + staging.calls().length).toBe(before)
      // A tool the server does not have is a protocol error, as with one service.
      const noTool = yield* Effect.promise(() =>
        client.callTool({ name: "svc_nothing", arguments: { service: "qa" } }).then(
          () => "answered",
          (error: Error) => error.message,
        ),
      )
      expect(noTool).toMatch(/svc_nothing/)

      // Audit lines name their service; log lines too. An unknown name is said in the reason alone.
      const lines = linesOf(audit)
      expect(lines.map((l) => [l.service, l.tool, l.outcome])).toEqual([
        ["staging", "svc_delete", "refused"],
        ["prod", "svc_delete", "ok"],
        [undefined, "svc_list", "refused"],
        [undefined, "svc_delete", "refused"],
        [undefined, "svc_list", "refused"],
      ])
      expect(lines[2]).toMatchObject({
        caller: "server",
        selector: "stack",
        kind: "denied",
        reason: 'the service "qa" is not one of the configured services (prod, staging)',
      })
      expect(lines[3]).toMatchObject({ target: "s1", params: { id: "s1" } })
      expect(JSON.stringify(lines[3]).length).toBeLessThan(1000)
      expect(stderr()).toMatch(/serving prod at http:\/\/127\.0\.0\.1:\d+ \(api-key auth; mode full/)
      expect(stderr()).toMatch(/staging at http:\/\/127\.0\.0\.1:\d+ \(api-key auth; mode read-only/)
      expect(stderr()).toMatch(/service="staging"/)
      expect(stderr()).not.toContain(PROD.secret)
      expect(stderr()).not.toContain(STAGING.secret)
    }),
  )

  it.scopedLive("each service's login is its own", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ users: { alice: "alice-pw" } })
      const staging = yield* Double.scoped({ users: { bob: "bob-pw" } })
      const { client } = yield* Spawn.connect({
        SVC_SERVICES: "prod,staging",
        SVC_PROD_URL: prod.url,
        SVC_PROD_INIT_ADMIN_USERNAME: "alice",
        SVC_PROD_INIT_ADMIN_PASSWORD: "alice-pw",
        SVC_STAGING_URL: staging.url,
        SVC_STAGING_INIT_ADMIN_USERNAME: "bob",
        SVC_STAGING_INIT_ADMIN_PASSWORD: "bob-pw",
      })
      for (const service of ["prod", "staging", "prod"]) {
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "svc_list", arguments: { resource_type: "stack", service } }),
        )
        expect((result as Result).isError).toBeUndefined()
      }
      expect([prod.logins, staging.logins]).toEqual([1, 1])
      expect(prod.calls()).toHaveLength(2)
      expect(staging.calls()).toHaveLength(1)
    }),
  )

  it.live("a missing or malformed per-service variable stops the start, named, with exit code 2", () =>
    Effect.gen(function* () {
      const base = env("http://127.0.0.1:9", "http://127.0.0.1:9")
      const cases: ReadonlyArray<[Record<string, string>, RegExp]> = [
        [{ ...base, SVC_STAGING_URL: "" }, /^svc-mcp: SVC_STAGING_URL is not set: .*SVC_STAGING_URL=https/],
        [{ ...base, SVC_STAGING_TIMEOUT_MS: "soon" }, /^svc-mcp: SVC_STAGING_TIMEOUT_MS is not a positive whole/],
        [{ ...base, SVC_PROD_API_SECRET: "" }, /^svc-mcp: SVC_PROD_API_SECRET is not set but SVC_PROD_API_KEY is/],
        [{ ...base, SVC_PROD_MODE: "all" }, /^svc-mcp: SVC_PROD_MODE is "all"/],
        [{ ...base, SVC_STAGING_DENY: "svc_nothing:*" }, /^svc-mcp: SVC_STAGING_DENY has the pattern/],
        [{ ...base, SVC_URL: "http://127.0.0.1:9" }, /^svc-mcp: SVC_URL is set, and so is SVC_SERVICES.*SVC_PROD_URL/],
        [{ ...base, SVC_SERVICES: "prod,Staging" }, /^svc-mcp: SVC_SERVICES has the name "Staging"/],
        [{ ...base, SVC_SERVICES: "prod,prod" }, /^svc-mcp: SVC_SERVICES names "prod" twice/],
      ]
      for (const [given, expected] of cases) {
        const { code, stderr, stdout } = yield* Spawn.run(given)
        expect({ code, stderr, stdout }).toMatchObject({ code: 2, stdout: "" })
        expect(stderr.trim().split("\n")).toHaveLength(1)
        expect(stderr).toMatch(expected)
      }
    }),
  )

  it.scopedLive("tools/list: as a single service's with one name; with two, one enum more per tool", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: PROD })
      const single = yield* Spawn.connect({ SVC_URL: double.url, SVC_API_KEY: PROD.key, SVC_API_SECRET: PROD.secret })
      const named = yield* Spawn.connect({
        SVC_SERVICES: "prod",
        SVC_PROD_URL: double.url,
        SVC_PROD_API_KEY: PROD.key,
        SVC_PROD_API_SECRET: PROD.secret,
      })
      const two = yield* Spawn.connect(env(double.url, double.url))
      const size = (connected: Spawn.Connected) =>
        Effect.map(
          Effect.promise(() => connected.client.listTools()),
          (listed) => JSON.stringify(listed).length,
        )
      const [one, alone, both] = [yield* size(single), yield* size(named), yield* size(two)]
      expect(alone).toBe(one)
      // Both services offer every tool: no description grows, each schema gains the one enum.
      const tools = (yield* Effect.promise(() => two.client.listTools())).tools.length
      expect(both - one).toBe(tools * `,"service":{"type":"string","enum":["prod","staging"]}`.length)
    }),
  )

  it.scopedLive("per-request over HTTP: each service's key in its own header pair, reaching that service alone", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ apiKeys: [PROD] })
      const staging = yield* Double.scoped({ apiKeys: [STAGING] })
      const audit = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-services-")), "audit.log")
      const server = yield* Spawn.serveHttp({
        SVC_SERVICES: "prod,staging",
        SVC_PROD_URL: prod.url,
        SVC_STAGING_URL: staging.url,
        SVC_MCP_CREDENTIALS: "per-request",
        SVC_AUDIT_LOG: audit,
      })
      const client = yield* HttpMcp.connect(server.url, {
        "X-Svc-Prod-Api-Key": PROD.key,
        "X-Svc-Prod-Api-Secret": PROD.secret,
      })
      const call = (service: string) =>
        Effect.promise(() => client.callTool({ name: "svc_list", arguments: { resource_type: "stack", service } }))
      const first = yield* call("prod")
      expect(textOf(first)).not.toMatch(/^prod: /)
      expect((first as Result).isError).toBeUndefined()
      expect(prod.calls().map((r) => [r.headers["x-api-key"], r.headers["x-api-secret"]])).toEqual([
        [PROD.key, PROD.secret],
      ])
      // No staging pair: the call to staging is refused, and prod's key is not sent there.
      const refused = yield* call("staging")
      expect((refused as Result).isError).toBe(true)
      expect(textOf(refused)).toMatch(/^staging: .*X-Svc-Staging-Api-Key/)
      expect(staging.requests).toEqual([])

      const both = yield* HttpMcp.connect(server.url, {
        "X-Svc-Prod-Api-Key": PROD.key,
        "X-Svc-Prod-Api-Secret": PROD.secret,
        "X-Svc-Staging-Api-Key": STAGING.key,
        "X-Svc-Staging-Api-Secret": STAGING.secret,
      })
      yield* Effect.promise(() =>
        both.callTool({ name: "svc_list", arguments: { resource_type: "stack", service: "staging" } }),
      )
      expect(staging.calls().map((r) => [r.headers["x-api-key"], r.headers["x-api-secret"]])).toEqual([
        [STAGING.key, STAGING.secret],
      ])
      // A name not configured: recorded as refused by the request's first caller (in the services' order),
      // with no secret of any service the request brought in the line.
      yield* Effect.promise(() =>
        both.callTool({
          name: "svc_delete",
          arguments: { resource_type: "tag", params: { id: STAGING.secret, name: PROD.secret }, service: "qa" },
        }),
      )
      const [line] = linesOf(audit)
      expect(line).toMatchObject({ caller: PROD.key, tool: "svc_delete", outcome: "refused", target: "[redacted]" })
      expect(JSON.stringify(line)).not.toMatch(/secret-value/)
      expect(prod.calls()).toHaveLength(1)
      expect(staging.calls()).toHaveLength(1)
      // Half a pair, or none at all, is refused before anything is served.
      const half = yield* HttpMcp.raw(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "X-Svc-Staging-Api-Key": STAGING.key,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      })
      expect(half.status).toBe(401)
      expect(half.body).toContain("X-Svc-Staging-Api-Secret is missing")
    }),
  )

  it.scopedLive("check and /readyz check every service, and name the one that fails", () =>
    Effect.gen(function* () {
      const prod = yield* Double.scoped({ apiKey: PROD })
      const staging = yield* Double.scoped({ apiKey: STAGING })
      const wrong = { ...env(prod.url, staging.url), SVC_STAGING_API_SECRET: "not-the-secret" }
      const checked = yield* Spawn.run(wrong, ["check"])
      expect(checked.code).toBe(1)
      expect(checked.stderr).toMatch(/svc-mcp check: prod\n[\s\S]*All good\./)
      expect(checked.stderr).toMatch(/svc-mcp check: staging\n[\s\S]*\[FAIL\] auth[\s\S]*Not ready/)
      // Each report names its own service's variables, as it was made.
      expect(checked.stderr).toMatch(
        /svc-mcp check: staging\n {2}service[^\n]*\n {2}auth {6}API key \(SVC_STAGING_API_KEY, SVC_STAGING_API_SECRET\)/,
      )
      expect(checked.stderr).toMatch(/-> check SVC_STAGING_API_KEY and SVC_STAGING_API_SECRET/)
      expect(checked.stderr).not.toContain("not-the-secret")
      const good = yield* Spawn.run(env(prod.url, staging.url), ["check"])
      expect(good.code).toBe(0)

      const server = yield* Spawn.serveHttp(wrong)
      const ready = yield* HttpMcp.raw(server.url.replace(/\/mcp$/, "/readyz"))
      expect(ready.status).toBe(503)
      expect(ready.body).toMatch(/staging: auth: /)
      expect(ready.body).not.toMatch(/prod: /)
    }),
  )

  it.scopedLive("each service's spans and metrics are named", () =>
    Effect.gen(function* () {
      const receiver = yield* Otlp.scoped
      const prod = yield* Double.scoped({ apiKey: PROD })
      const staging = yield* Double.scoped({ apiKey: STAGING })
      const server = yield* Spawn.serveHttp({
        ...env(prod.url, staging.url),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_METRIC_EXPORT_INTERVAL: "200",
      })
      const client = yield* HttpMcp.connect(server.url)
      for (const service of ["prod", "staging"]) {
        yield* Effect.promise(() =>
          client.callTool({ name: "svc_list", arguments: { resource_type: "stack", service } }),
        )
      }
      yield* until(() => receiver.spans().filter((s) => s.name === "POST /read/ListStacks").length === 2)
      const named = (name: string) =>
        receiver
          .spans()
          .filter((s) => s.name === name)
          .map((s) => Otlp.attribute(s.attributes, "svc.service"))
          .sort()
      expect(named("tools/call svc_list")).toEqual(["prod", "staging"])
      expect(named("POST /read/ListStacks")).toEqual(["prod", "staging"])
      yield* until(() => {
        const metric = receiver.latestMetrics().find((m) => m.name === "svc_mcp.tool.calls")
        return (metric?.sum?.dataPoints ?? []).length === 2
      })
      const points = receiver.latestMetrics().find((m) => m.name === "svc_mcp.tool.calls")?.sum?.dataPoints ?? []
      expect(points.map((p) => Otlp.attribute(p.attributes, "service")).sort()).toEqual(["prod", "staging"])
    }),
  )

  it.scopedLive("--sandbox --services runs one sandbox per name, each with its own estate", () =>
    Effect.gen(function* () {
      const { client, stderr } = yield* Spawn.connect({ SVC_STAGING_MODE: "read-only" }, [
        "--sandbox",
        "--services",
        "prod,staging",
      ])
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }))
      const tags = (service: string) =>
        Effect.map(call("svc_list", { resource_type: "tag", service, fields: ["name"] }), (result) =>
          (JSON.parse(textOf(result)) as Array<{ name: string }>).map((t) => t.name),
        )
      yield* call("svc_create", { resource_type: "tag", params: { name: "only-on-prod" }, service: "prod" })
      expect(yield* tags("prod")).toContain("only-on-prod")
      expect(yield* tags("staging")).not.toContain("only-on-prod")
      const refused = yield* call("svc_create", { resource_type: "tag", params: { name: "x" }, service: "staging" })
      expect(textOf(refused)).toMatch(/^staging: .*SVC_STAGING_MODE/)
      expect(stderr()).toMatch(/SANDBOX: service prod is an in-memory sandbox/)
      expect(stderr()).toMatch(/SANDBOX: service staging is an in-memory sandbox/)
    }),
  )

  it("--services goes with --sandbox, and takes valid distinct names", () => {
    expect(Cli.parse(["--sandbox", "--services", "prod,staging"])).toEqual({
      _tag: "Serve",
      sandbox: true,
      httpPort: undefined,
      services: ["prod", "staging"],
    })
    expect(Cli.parse(["--services", "prod"])).toMatchObject({ _tag: "Invalid" })
    expect(Cli.parse(["--sandbox", "--services", "Prod"])).toMatchObject({ _tag: "Invalid" })
    expect(Cli.parse(["--sandbox", "--services", "a,a"])).toMatchObject({ _tag: "Invalid" })
    expect(Cli.parse(["--sandbox", "--services"])).toMatchObject({ _tag: "Invalid" })
  })
})
