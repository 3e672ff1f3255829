/**
 * OpenTelemetry over OTLP/HTTP from the built server to a receiver on
 * 127.0.0.1: spans with the caller's parent and the right children and
 * attributes, metrics with the right counts, no secret anywhere; and nothing
 * of the SDK in the executable's start-up.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connect } from "../support/HttpMcp.js"
import * as Layers from "../support/Layers.js"
import * as Otlp from "../support/OtlpReceiver.js"
import { attribute, type DataPoint, type Metric } from "../support/OtlpReceiver.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import { until } from "../support/Wait.js"

const USERS = { users: { [Layers.USER]: Layers.PASSWORD } }
const HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c"
const HEADER_SPAN = "b7ad6b7169203331"
const META_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const META_SPAN = "00f067aa0ba902b7"

const points = (metrics: ReadonlyArray<Metric>, name: string): ReadonlyArray<DataPoint> => {
  const metric = metrics.find((m) => m.name === name)
  return metric?.sum?.dataPoints ?? metric?.gauge?.dataPoints ?? metric?.histogram?.dataPoints ?? []
}

const valueAt = (metrics: ReadonlyArray<Metric>, name: string, labels: Record<string, string>) => {
  const point = points(metrics, name).find((p) =>
    Object.entries(labels).every(([key, value]) => attribute(p.attributes, key) === value),
  )
  if (point === undefined) return undefined
  return Number(point.count ?? point.asInt ?? point.asDouble)
}

describe("OpenTelemetry", () => {
  it.scopedLive("exports spans with the caller's parent, children per request and login, and metrics", () =>
    Effect.gen(function* () {
      const receiver = yield* Otlp.scoped
      const double = yield* Double.scoped(USERS)
      const server = yield* Spawn.serveHttp({
        SVC_URL: double.url,
        SVC_INIT_ADMIN_USERNAME: Layers.USER,
        SVC_INIT_ADMIN_PASSWORD: Layers.PASSWORD,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: "svc-mcp-under-test",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_METRIC_EXPORT_INTERVAL: "200",
        SVC_DENY: "svc_delete:*",
      })
      const traced = yield* connect(server.url, { traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01` })
      const plain = yield* connect(server.url)
      // The first call logs in: its login is its child.
      yield* Effect.promise(() => traced.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }))
      yield* Effect.promise(() =>
        traced.callTool({
          name: "svc_list",
          arguments: { resource_type: "server" },
          _meta: { traceparent: `00-${META_TRACE}-${META_SPAN}-01` },
        }),
      )
      yield* Effect.promise(() =>
        plain.callTool({ name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } }),
      )
      double.next("/write/CreateTag", { status: 500, body: { error: "name taken", trace: [] } })
      yield* Effect.promise(() =>
        plain.callTool({ name: "svc_create", arguments: { resource_type: "tag", params: { name: "x" } } }),
      )

      yield* Effect.promise(() =>
        plain.callTool({ name: "svc_delete", arguments: { resource_type: "tag", params: { id: "t1" } } }),
      )

      yield* until(() => receiver.spans().filter((s) => s.name.startsWith("tools/call")).length === 5, 10_000)
      yield* until(() => receiver.spans().length >= 9, 10_000)
      const spans = receiver.spans()
      const named = (name: string) => spans.filter((s) => s.name === name)
      const [stacks, servers] = named("tools/call svc_list")
      const [get] = named("tools/call svc_get")
      const [create] = named("tools/call svc_create")
      // Parents: the HTTP header's, then _meta's (which wins over the header), then none.
      expect(stacks).toMatchObject({ traceId: HEADER_TRACE, parentSpanId: HEADER_SPAN })
      expect(servers).toMatchObject({ traceId: META_TRACE, parentSpanId: META_SPAN })
      expect(get?.parentSpanId ?? "").toBe("")
      expect(get?.traceId).not.toBe(HEADER_TRACE)
      expect(attribute(stacks?.attributes ?? [], "gen_ai.tool.name")).toBe("svc_list")
      expect(attribute(stacks?.attributes ?? [], "svc.selector")).toBe("stack")
      expect(attribute(stacks?.attributes ?? [], "svc.endpoint")).toBe("read/ListStacks")
      expect(attribute(stacks?.attributes ?? [], "svc.outcome")).toBe("ok")
      expect(attribute(create?.attributes ?? [], "svc.outcome")).toBe("error")
      expect(attribute(create?.attributes ?? [], "error.type")).toBe("service_error")
      const [denied] = named("tools/call svc_delete")
      expect(attribute(denied?.attributes ?? [], "svc.outcome")).toBe("refused")
      expect(attribute(denied?.attributes ?? [], "error.type")).toBe("denied")
      expect(attribute(stacks?.resource ?? [], "service.name")).toBe("svc-mcp-under-test")
      // Children: each request to the service under its call, the login under the first call.
      const request = (path: string) => named(`POST ${path}`)[0]
      expect(request("/read/ListStacks")).toMatchObject({ traceId: HEADER_TRACE, parentSpanId: stacks?.spanId })
      expect(attribute(request("/read/ListStacks")?.attributes ?? [], "http.response.status_code")).toBe(200)
      expect(attribute(request("/read/ListStacks")?.attributes ?? [], "url.path")).toBe("/read/ListStacks")
      expect(request("/read/ListServers")).toMatchObject({ traceId: META_TRACE, parentSpanId: servers?.spanId })
      expect(request("/read/GetStack")?.parentSpanId).toBe(get?.spanId)
      expect(attribute(request("/write/CreateTag")?.attributes ?? [], "http.response.status_code")).toBe(500)
      const [login] = named("login")
      expect(login).toMatchObject({ traceId: HEADER_TRACE, parentSpanId: stacks?.spanId })
      expect(request("/auth/login/LoginLocalUser")?.parentSpanId).toBe(login?.spanId)

      // Metrics: cumulative, so the latest export holds every call.
      yield* until(() => valueAt(receiver.latestMetrics(), "svc_mcp.tool.calls", { tool: "svc_delete" }) === 1, 10_000)
      const metrics = receiver.latestMetrics()
      expect(valueAt(metrics, "svc_mcp.tool.calls", { tool: "svc_list", outcome: "ok" })).toBe(2)
      expect(valueAt(metrics, "svc_mcp.tool.calls", { tool: "svc_get", outcome: "ok" })).toBe(1)
      expect(valueAt(metrics, "svc_mcp.tool.calls", { tool: "svc_create", outcome: "error" })).toBe(1)
      expect(valueAt(metrics, "svc_mcp.tool.calls", { tool: "svc_delete", outcome: "refused" })).toBe(1)
      expect(valueAt(metrics, "svc_mcp.tool.duration", { tool: "svc_list", outcome: "ok" })).toBe(2)
      expect(valueAt(metrics, "svc_mcp.service.requests", { status: "200" })).toBe(4)
      expect(valueAt(metrics, "svc_mcp.service.requests", { status: "500" })).toBe(1)
      expect(valueAt(metrics, "svc_mcp.logins", { outcome: "ok" })).toBe(1)
      expect(valueAt(metrics, "svc_mcp.tool.in_flight", {})).toBe(0)

      // No secret: not the password, not a token the double issued.
      const exported = receiver.bodies.map((b) => b.text).join("\n")
      expect(exported).not.toContain(Layers.PASSWORD)
      expect(exported).not.toContain("double-token")
    }),
  )

  it("the executable loads the SDK only when asked for, so without configuration nothing of it is loaded", () => {
    // The program's modules (dist/svc-mcp/): what main.js loads at start is what it imports statically, and so on.
    const dir = Path.join(Path.dirname(Spawn.ENTRY), "svc-mcp")
    const read = (file: string) => Fs.readFileSync(Path.join(dir, file), "utf8")
    const atStart = new Set<string>()
    const visit = (file: string) => {
      if (atStart.has(file)) return
      atStart.add(file)
      for (const [, next] of read(file).matchAll(/(?:from|import)\s*"\.\/([^"]+)"/g)) visit(next as string)
    }
    visit("main.js")
    const sdk = /"(@effect\/opentelemetry|@opentelemetry\/[a-z-]+)[^"]*"/
    const withSdk = Fs.readdirSync(dir).filter((file) => sdk.test(read(file)))
    expect(withSdk.length).toBeGreaterThan(0)
    for (const file of withSdk) {
      expect(atStart.has(file)).toBe(false)
      // node-redis (its own chunk, imported only with SVC_MCP_STORE) carries its package.json and a
      // require of the API it makes only when asked to trace, which the store never asks: not ours.
      if (read(file).includes('name:"@redis/client"')) continue
      // ...and it reaches the SDK by import() alone.
      for (const [found] of read(file).matchAll(new RegExp(`.{0,8}${sdk.source}`, "g"))) {
        expect(found).toMatch(/import\("[^"]+"$/)
      }
    }
  })
})
