/**
 * The built server, spoken to by the SDK v2 Client in both protocol eras, over
 * stdio and Streamable HTTP: a 2026-07-28 client (negotiating with
 * `server/discover`, as current clients do) lands on 2026-07-28 with no
 * fallback; a 2025 client after `initialize`. (The SDK v1 Client, as older
 * clients speak, drives Stdio.e2e and Http.e2e.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { VERSION } from "../../src/Shared/Version.js"
import * as Clients from "../support/Clients.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"
import * as Spec from "../support/Spec.js"
import { until } from "../support/Wait.js"

type Era = Clients.Era

const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })

const ERAS: ReadonlyArray<Era> = ["modern", "legacy"]
const NAME = "svc-mcp-eras"

const stdio = (era: Era, env: Record<string, string>) =>
  Effect.map(Spawn.v2({ name: NAME, era, env }), ({ client }) => client)

const http = (era: Era, url: string) => Effect.map(Clients.overHttp(url, { name: NAME, era }), ({ client }) => client)

const transports = {
  stdio: (era: Era, double: Double.ServiceDouble) => stdio(era, keyEnv(double.url)),
  http: (era: Era, double: Double.ServiceDouble) =>
    Effect.flatMap(Spawn.serveHttp(keyEnv(double.url)), (server) => http(era, server.url)),
}

for (const [name, connect] of Object.entries(transports)) {
  describe.each(ERAS)(`over ${name}, the %s era`, (era) => {
    it.scopedLive(
      `negotiates the era, lists the ${Spec.tools.length} tools and calls them; results carry object structuredContent`,
      () =>
        Effect.gen(function* () {
          const double = yield* Double.scoped(Layers.API_KEY)
          const client = yield* connect(era, double)
          expect(client.getProtocolEra()).toBe(era)
          if (era === "modern") expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
          expect(client.getServerVersion()).toMatchObject({ name: "svc-mcp", version: VERSION })
          const { tools } = yield* Effect.promise(() => client.listTools())
          expect(tools.map((tool) => tool.name)).toEqual(Spec.tools)
          double.next("/read/ListStacks", { status: 200, body: [{ name: "web" }] })
          const listed = yield* Effect.promise(() =>
            client.callTool({ name: "svc_list", arguments: { resource_type: "stack" } }),
          )
          // A list at a glance: the columns named once, a row per stack (the double's stack has only a name).
          expect(listed.structuredContent).toEqual({
            columns: ["name", "id", "state", "server", "tags", "repo", "branch", "services", "updates"],
            result: [["web", null, null, null, null, null, null, null, []]],
          })
          const failed = yield* Effect.promise(() =>
            client.callTool({ name: "svc_get", arguments: { resource_type: "nope" } }),
          )
          expect(failed.structuredContent).toMatchObject({ error: { kind: "invalid_arguments" } })
          // The list asked without a limit: the service's default page is read once, for the more-pages note.
          expect(double.requests.map((r) => r.path)).toEqual(["/read/ListStacks", "/read/GetCoreInfo"])
        }),
    )

    // On the earlier revisions over HTTP, notifications/cancelled comes in a POST of its own, tied to
    // the call by the client's session (Mcp/Asking/Asking.ts).
    it.scopedLive("a cancelled call aborts its request to the service, and serving goes on", () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        double.next("/read/ListServers", { hang: "before-headers" })
        const client = yield* connect(era, double)
        const controller = new AbortController()
        const pending = client
          .callTool({ name: "svc_list", arguments: { resource_type: "server" } }, { signal: controller.signal })
          .catch((error: unknown) => error)
        yield* until(() => double.requests.length === 1)
        controller.abort()
        yield* Effect.promise(() => pending)
        yield* until(() => double.aborted === 1)
        const after = yield* Effect.promise(() =>
          client.callTool({ name: "svc_list", arguments: { resource_type: "tag" } }),
        )
        expect(after.isError).toBeFalsy()
      }),
    )
  })
}

describe("SVC_CONFIRM over HTTP", () => {
  const env = (url: string) => ({ ...keyEnv(url), SVC_CONFIRM: "svc_delete:*" })
  const deleteStack = { name: "svc_delete", arguments: { resource_type: "stack", params: { id: "web" } } }
  const asking = (era: Era, url: string) => Clients.overHttp(url, { name: NAME, era, answering: "accept" })

  it.scopedLive.each<[Era, string]>([
    ["modern", "a 2026-07-28 client confirms through input_required, and the call is sent once"],
    [
      "legacy",
      "a 2025-11-25 client that declares elicitation is asked on its POST's stream, and the call is sent once",
    ],
  ])("%s: %s", ([era]) =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const server = yield* Spawn.serveHttp(env(double.url))
      const { client, asked } = yield* asking(era, server.url)
      const result = yield* Effect.promise(() => client.callTool(deleteStack))
      expect(result.isError).toBeFalsy()
      expect(asked).toEqual([expect.stringMatching(/^svc_delete resource_type "stack" will call write\/DeleteStack/)])
      // The question's plan reads; the one write is the call accepted.
      expect(double.requests.filter((r) => !r.path.startsWith("/read/")).map((r) => r.path)).toEqual([
        "/write/DeleteStack",
      ])
    }),
  )

  it.scopedLive(
    "an earlier revision's client that declares no elicitation cannot be asked: refused, nothing sent",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const server = yield* Spawn.serveHttp(env(double.url))
        const client = yield* http("legacy", server.url)
        const result = yield* Effect.promise(() => client.callTool(deleteStack))
        expect(result.isError).toBe(true)
        expect(result.structuredContent).toMatchObject({ error: { kind: "denied" } })
        expect(JSON.stringify(result.content)).toMatch(/SVC_CONFIRM/)
        expect(double.requests).toHaveLength(0)
      }),
  )
})

/** One 2026-07-28 request as the wire carries it, answered as JSON. */
const modern = (url: string, method: string, params: Record<string, unknown> = {}) =>
  HttpMcp.modern(url, method, params, { meta: HttpMcp.modernMeta("raw") })

describe("2026-07-28 on the wire", () => {
  it.scopedLive("server/discover and tools/list say resultType complete, and how long they may be cached", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const server = yield* Spawn.serveHttp(keyEnv(double.url))
      const discovered = yield* modern(server.url, "server/discover")
      expect(discovered.status).toBe(200)
      expect(discovered.body.result).toMatchObject({
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        instructions: expect.stringMatching(/structuredContent/),
        ttlMs: 600_000,
        cacheScope: "public",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "svc-mcp", version: VERSION } },
      })
      const listed = yield* modern(server.url, "tools/list")
      expect(listed.body.result).toMatchObject({ resultType: "complete", ttlMs: 600_000, cacheScope: "public" })
      expect((listed.body.result.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(Spec.tools)
      const called = yield* modern(server.url, "tools/call", { name: "svc_list", arguments: { resource_type: "tag" } })
      expect(called.body.result).toMatchObject({ resultType: "complete", structuredContent: expect.any(Object) })
    }),
  )
})
