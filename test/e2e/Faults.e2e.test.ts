/**
 * The fault matrix: the built server over stdio while the service (or the
 * client) misbehaves, one fault per case. For each: the call ends with the
 * right outcome within its bound, the server serves the next call, stdout holds
 * only JSON-RPC, and no secret shows anywhere. docs/reliability.md sums it up.
 */
import * as Http from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const USERS = { users: { [Layers.USER]: Layers.PASSWORD } }
const LOGIN = "/auth/login/LoginLocalUser"
/** Short, so that the time-out cases are quick; the bound is the same code path as 30 s. */
const TIMEOUT_MS = 1000

type Kind = "ok" | "timeout" | "unreachable" | "service_error" | "bad_response" | "auth"

interface Result {
  readonly isError?: boolean
  readonly structuredContent?: { error?: { kind?: string; status?: number; retryAfter?: string } }
  readonly content: Array<{ text: string }>
}

const kindOf = (result: Result): Kind =>
  result.isError === true ? ((result.structuredContent?.error?.kind ?? "unknown") as Kind) : "ok"

interface Case {
  readonly name: string
  readonly behaviour: Double.Behaviour
  readonly path?: string
  readonly expect: Kind
  readonly status?: number
  /** How long the call may take, in ms. */
  readonly within: number
}

const GET_STACK = { name: "svc_get", arguments: { resource_type: "stack", params: { stack: "web" } } }
const JSON_500 = { error: "internal", trace: ["at handler"] }
const BIG = JSON.stringify(
  Array.from({ length: 150_000 }, (_, i) => ({
    id: `${i}`,
    name: `stack-${i}`,
    info: { state: "running", note: "x".repeat(150) },
  })),
)

const serviceCases: ReadonlyArray<Case> = [
  { name: "hangs before headers", behaviour: { hang: "before-headers" }, expect: "timeout", within: TIMEOUT_MS + 1500 },
  {
    name: "sends headers, then stalls the body",
    behaviour: { hang: "mid-body" },
    expect: "timeout",
    within: TIMEOUT_MS + 1500,
  },
  { name: "closes the connection mid-body", behaviour: { destroy: "mid-body" }, expect: "unreachable", within: 2000 },
  {
    name: "closes the connection before answering",
    behaviour: { destroy: "before-headers" },
    expect: "unreachable",
    within: 2000,
  },
  { name: "resets the connection", behaviour: { destroy: "reset" }, expect: "unreachable", within: 2000 },
  {
    name: "is slow, within the time-out",
    behaviour: { delayMs: TIMEOUT_MS / 2 },
    expect: "ok",
    within: TIMEOUT_MS + 1000,
  },
  ...[500, 502, 503, 504].flatMap(
    (status): Array<Case> => [
      {
        name: `answers ${status} with a JSON error`,
        behaviour: { status, body: JSON_500 },
        expect: "service_error",
        status,
        within: 2000,
      },
      {
        name: `answers ${status} with no body`,
        behaviour: { status, raw: "" },
        expect: "service_error",
        status,
        within: 2000,
      },
    ],
  ),
  {
    name: "answers 401",
    behaviour: { status: 401, body: { error: "no", trace: [] } },
    expect: "auth",
    status: 401,
    within: 2000,
  },
  {
    name: "answers 403",
    behaviour: { status: 403, body: { error: "forbidden", trace: [] } },
    expect: "service_error",
    status: 403,
    within: 2000,
  },
  {
    name: "answers 404",
    behaviour: { status: 404, raw: "Not Found" },
    expect: "service_error",
    status: 404,
    within: 2000,
  },
  {
    name: "answers 429 with Retry-After",
    behaviour: { status: 429, body: { error: "slow down", trace: [] }, headers: { "retry-after": "7" } },
    expect: "service_error",
    status: 429,
    within: 2000,
  },
  {
    name: "answers 200 with HTML",
    behaviour: { status: 200, raw: "<html><body>proxy</body></html>" },
    expect: "bad_response",
    within: 2000,
  },
  {
    name: "answers 200 with truncated JSON",
    behaviour: { status: 200, raw: '{"name": "web", "conf' },
    expect: "bad_response",
    within: 2000,
  },
  { name: "answers 200 with an empty body", behaviour: { status: 200, raw: "" }, expect: "bad_response", within: 2000 },
  { name: "answers 200 with a 30 MB body", behaviour: { status: 200, raw: BIG }, expect: "ok", within: 10_000 },
]

const loginCases: ReadonlyArray<Case> = [
  {
    name: "the login hangs",
    path: LOGIN,
    behaviour: { hang: "before-headers" },
    expect: "timeout",
    within: TIMEOUT_MS + 1500,
  },
  {
    name: "the login is refused",
    path: LOGIN,
    behaviour: { status: 401, body: { error: "Invalid login credentials", trace: [] } },
    expect: "auth",
    within: 2000,
  },
  {
    name: "the login answers 429",
    path: LOGIN,
    behaviour: { status: 429, body: { error: "Too many", trace: [] } },
    expect: "auth",
    within: 2000,
  },
  {
    name: "the login asks for a second factor",
    path: LOGIN,
    behaviour: { status: 200, body: { type: "Totp", data: {} } },
    expect: "auth",
    within: 2000,
  },
  {
    name: "the login answers malformed JSON",
    path: LOGIN,
    behaviour: { status: 200, raw: '{"type": "Jwt", "da' },
    expect: "auth",
    within: 2000,
  },
]

/** Everything a run wrote or answered, to look for secrets in. */
const shown: Array<string> = []

const secretFree = (text: string) => {
  for (const secret of [Layers.SECRET, Layers.PASSWORD]) expect(text).not.toContain(secret)
  expect(text).not.toMatch(/eyJ\.double-token/)
}

const runCases = (
  env: (url: string) => Record<string, string>,
  options: Double.DoubleOptions,
  cases: ReadonlyArray<Case>,
) =>
  Effect.gen(function* () {
    const double = yield* Double.scoped(options)
    const { client, stderr, protocolErrors } = yield* Spawn.connect({
      ...env(double.url),
      SVC_TIMEOUT_MS: String(TIMEOUT_MS),
    })
    for (const c of cases) {
      // A login case needs a login: the token of the previous case's recovery is ended.
      if (c.path === LOGIN) double.expireTokens()
      double.next(c.path ?? "/read/GetStack", c.behaviour)
      const started = Date.now()
      const result = (yield* Effect.promise(() => client.callTool(GET_STACK))) as Result
      const took = Date.now() - started
      expect({ case: c.name, kind: kindOf(result) }).toEqual({ case: c.name, kind: c.expect })
      if (c.status !== undefined) expect(result.structuredContent?.error?.status).toBe(c.status)
      expect(took, c.name).toBeLessThan(c.within)
      shown.push(JSON.stringify(result))
      // The server keeps serving.
      const next = (yield* Effect.promise(() => client.callTool(GET_STACK))) as Result
      expect({ case: c.name, next: kindOf(next) }).toEqual({ case: c.name, next: "ok" })
    }
    expect(protocolErrors).toEqual([])
    shown.push(stderr())
    for (const text of shown) secretFree(text)
    return { double, client }
  })

const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })
const loginEnv = (url: string) => ({
  SVC_URL: url,
  SVC_INIT_ADMIN_USERNAME: Layers.USER,
  SVC_INIT_ADMIN_PASSWORD: Layers.PASSWORD,
})

describe("fault matrix: the service misbehaves", () => {
  it.scopedLive(
    "each fault ends in the right outcome, in time, and the server keeps serving",
    () =>
      Effect.gen(function* () {
        yield* runCases(keyEnv, Layers.API_KEY, serviceCases)
      }),
    60_000,
  )

  it.scopedLive("a 429's Retry-After is passed on", () =>
    Effect.gen(function* () {
      const { client, double } = yield* runCases(keyEnv, Layers.API_KEY, [])
      double.next("/read/GetStack", {
        status: 429,
        body: { error: "slow down", trace: [] },
        headers: { "retry-after": "7" },
      })
      const result = (yield* Effect.promise(() => client.callTool(GET_STACK))) as Result
      expect(result.structuredContent?.error?.retryAfter).toBe("7")
      expect(result.content[0]?.text).toMatch(/retry after 7 s/)
    }),
  )

  it.scopedLive("a refused connection is unreachable, and serving goes on", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(
        () =>
          new Promise<number>((resolve) => {
            const server = Http.createServer().listen(0, "127.0.0.1", () => {
              const { port } = server.address() as { port: number }
              server.close(() => resolve(port))
            })
          }),
      )
      const { client } = yield* Spawn.connect({
        ...keyEnv(`http://127.0.0.1:${port}`),
        SVC_TIMEOUT_MS: String(TIMEOUT_MS),
      })
      for (let i = 0; i < 3; i++) {
        const result = (yield* Effect.promise(() => client.callTool(GET_STACK))) as Result
        expect(result.structuredContent?.error).toMatchObject({ kind: "unreachable" })
      }
    }),
  )

  it.scopedLive(
    "the login hangs, is refused, rate-limited, asks a second factor or answers garbage: an auth or time-out error, then the next login works",
    () =>
      Effect.gen(function* () {
        yield* runCases(loginEnv, USERS, loginCases)
      }),
    60_000,
  )

  it.scopedLive(
    "the token expires in the middle of a burst of 50 concurrent calls: exactly one new login, every call succeeds",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(USERS)
        const { client } = yield* Spawn.connect(loginEnv(double.url))
        yield* Effect.promise(() => client.callTool(GET_STACK))
        expect(double.logins).toBe(1)
        // Some calls of the burst get through before the expiry, the rest after it.
        double.next("/read/GetStack", { delayMs: 30 })
        const burst = Promise.all(Array.from({ length: 50 }, () => client.callTool(GET_STACK)))
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
        double.expireTokens()
        const results = (yield* Effect.promise(() => burst)) as Array<Result>
        expect(results.map(kindOf).filter((k) => k !== "ok")).toEqual([])
        expect(double.logins).toBe(2)
      }),
  )
})

describe("fault matrix: the client misbehaves", () => {
  it.scopedLive(
    "500 calls in flight at once all end well",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const { client } = yield* Spawn.connect(keyEnv(double.url))
        const results = (yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 500 }, () => client.callTool(GET_STACK))),
        )) as Array<Result>
        expect(results.filter((r) => kindOf(r) !== "ok")).toEqual([])
        expect(double.calls()).toHaveLength(500)
      }),
    60_000,
  )

  it.scopedLive(
    "wrong types, unknown extras, a 3.5 MB and a 5 MB argument and deeply nested params are answered, and serving goes on",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const { client, protocolErrors } = yield* Spawn.connect(keyEnv(double.url))
        const call = (args: unknown) =>
          Effect.promise(() =>
            client.callTool({ name: "svc_get", arguments: args as Record<string, unknown> }),
          ) as Effect.Effect<Result>
        expect(kindOf(yield* call({ resource_type: 42, params: "x" }))).toBe("invalid_arguments" as Kind)
        expect(kindOf(yield* call({ resource_type: "stack", params: {}, extra: [1, 2] }))).toBe(
          "invalid_arguments" as Kind,
        )
        const notAnObject = yield* Effect.flip(
          Effect.tryPromise(() =>
            client.callTool({ name: "svc_get", arguments: [1] as unknown as Record<string, unknown> }),
          ),
        )
        expect(String(notAnObject.cause)).toBe(
          'McpError: MCP error -32602: Invalid params: arguments must be an object, e.g. {"resource_type": "stack"}, not an array',
        )
        // Within the largest message accepted (4 MiB), a 3.5 MB argument is served; a 5 MB one is refused by its id.
        const big = yield* call({ resource_type: "stack", params: { stack: "x".repeat(3.5 * 1024 * 1024) } })
        expect(kindOf(big)).toBe("ok")
        const tooBig = yield* Effect.flip(
          Effect.tryPromise(() =>
            client.callTool({
              name: "svc_get",
              arguments: { resource_type: "stack", params: { stack: "x".repeat(5 * 1024 * 1024) } },
            }),
          ),
        )
        expect(String(tooBig.cause)).toMatch(
          /MCP error -32600: Invalid Request: the message is \d+ bytes; the largest accepted is 4194304 bytes/,
        )
        let nested: unknown = { leaf: true }
        for (let i = 0; i < 2000; i++) nested = { n: nested }
        // GetStack has no field "deep": refused by the check, whatever is inside it.
        const deep = yield* call({ resource_type: "stack", params: { deep: nested } })
        expect(kindOf(deep)).toBe("invalid_params" as Kind)
        expect(kindOf(yield* call({ resource_type: "stack", params: { stack: "web" } }))).toBe("ok")
        expect(protocolErrors).toEqual([])
      }),
    60_000,
  )

  it.live(
    "stdin: a garbage line, a reused request id, a batch, an unknown notification, then a partial line and EOF",
    () =>
      Effect.gen(function* () {
        const service = yield* Effect.promise(() => new Double.ServiceDouble(Layers.API_KEY).start())
        const line = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`
        const list = (id: number) =>
          line({ id, method: "tools/call", params: { name: "svc_list", arguments: { resource_type: "tag" } } })
        const input =
          line({
            id: 0,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
          }) +
          "{{{ not json at all\n" +
          list(1) +
          list(1) +
          `[${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}]\n` +
          line({ method: "notifications/whatever", params: {} }) +
          list(3) +
          '{"jsonrpc":"2.0","id":4,"method":"tools/li'
        const finished = yield* Spawn.run(keyEnv(service.url), [], input)
        yield* Effect.promise(() => service.stop())
        expect(finished.code).toBe(0)
        const messages = finished.stdout
          .trimEnd()
          .split("\n")
          .map(
            (l) => JSON.parse(l) as { jsonrpc: string; id: number | null; result?: Result; error?: { code: number } },
          )
        expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true)
        // The line that is not JSON, and the partial line at EOF, are answered as JSON-RPC says: a
        // parse error, with no id to answer. The batch is skipped, as it names no one request.
        const unanswerable = messages.filter((m) => m.id === null)
        expect(unanswerable.map((m) => m.error?.code)).toEqual([-32700, -32700])
        const answered = messages.filter((m) => m.id !== null)
        expect(answered.map((m) => m.id).sort()).toEqual([0, 1, 1, 3])
        expect(
          answered.filter((m) => m.id !== 0).every((m) => m.result !== undefined && kindOf(m.result) === "ok"),
        ).toBe(true)
        secretFree(finished.stdout + finished.stderr)
      }),
  )
})
