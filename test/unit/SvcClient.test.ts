import * as Http from "node:http"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as SvcTransport from "../../src/Service/Transport.js"
import { SvcClient } from "../../src/SvcClient.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import { until } from "../support/Wait.js"

const call = (group: "read" | "write" | "execute", endpoint: string, params: object = {}) =>
  Effect.flatMap(SvcClient, (client) => client.call(group, endpoint, params))

const withKey = (double: Double.ServiceDouble, timeoutMs?: number) =>
  Effect.provide(Layers.client(Layers.apiKey(double.url, timeoutMs)))

describe("SvcClient with an API key", () => {
  it.scoped("POSTs the params as JSON to {url}/{group}/{Endpoint} with the key headers only", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const answer = yield* call("read", "GetStack", { stack: "web" }).pipe(withKey(double))
      expect(answer).toEqual({ endpoint: "read/GetStack", params: { stack: "web" } })
      const [request] = double.requests
      expect(request?.method).toBe("POST")
      expect(request?.path).toBe("/read/GetStack")
      expect(request?.headers["content-type"]).toBe("application/json")
      expect(request?.headers["x-api-key"]).toBe(Layers.KEY)
      expect(request?.headers["x-api-secret"]).toBe(Layers.SECRET)
      expect(request?.headers.authorization).toBeUndefined()
      expect(double.logins).toBe(0)
    }),
  )

  it.scoped("sends {} when there are no params, and works under a base path", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/svc/read/ListStacks", { status: 200, body: [] })
      const answer = yield* call("read", "ListStacks").pipe(
        Effect.provide(Layers.client(Layers.apiKey(`${double.url}/svc`))),
      )
      expect(answer).toEqual([])
      expect(double.requests[0]?.body).toEqual({})
    }),
  )

  it.scoped("a refused key is an auth error, without a login or a retry", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: "another" } })
      const error = yield* Effect.flip(call("read", "ListStacks").pipe(withKey(double)))
      expect(error._tag).toBe("SvcAuthError")
      if (error._tag === "SvcAuthError") expect(error.reason).toBe("Rejected")
      expect(error.message).toMatch(/SVC_API_KEY/)
      expect(double.requests).toHaveLength(1)
      expect(double.logins).toBe(0)
    }),
  )

  it.scoped("a service error carries status, error and trace", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("/read/GetStack", { status: 500, body: { error: "no stack named web", trace: ["a", "b"] } })
      const error = yield* Effect.flip(call("read", "GetStack", { stack: "web" }).pipe(withKey(double)))
      expect(error).toMatchObject({
        _tag: "SvcServiceError",
        reason: "Status",
        status: 500,
        error: "no stack named web",
        trace: ["a", "b"],
      })
    }),
  )

  it.scoped("an endpoint an older service lacks is said to be missing from its version", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ ...Layers.API_KEY, version: "2.3.2" })
      const error = yield* Effect.flip(call("write", "UpdateUserGroup", {}).pipe(withKey(double)))
      expect(error).toMatchObject({ _tag: "SvcServiceError", reason: "UnknownEndpoint", status: 500 })
      expect(error.message).toMatch(/not offered by this version of the service/)
    }),
  )

  it.scoped("a 200 that is not JSON is an undecodable response", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("*", { status: 200, raw: "<html>proxy login</html>" })
      double.next("*", { status: 200, raw: '{"truncated": ' })
      double.next("*", { status: 200, raw: "" })
      for (let i = 0; i < 3; i++) {
        const error = yield* Effect.flip(call("read", "ListStacks").pipe(withKey(double)))
        expect(error).toMatchObject({ _tag: "SvcResponseError", status: 200 })
      }
    }),
  )

  it.live("a refused connection is unreachable (Refused)", () =>
    Effect.gen(function* () {
      const server = Http.createServer()
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
      const port = (server.address() as { port: number }).port
      yield* Effect.promise(() => new Promise((resolve) => server.close(resolve)))
      const error = yield* Effect.flip(
        call("read", "ListStacks").pipe(Effect.provide(Layers.client(Layers.apiKey(`http://127.0.0.1:${port}`)))),
      )
      expect(error).toMatchObject({ _tag: "SvcUnreachableError", reason: "Refused" })
    }),
  )

  it.live("an unknown host is unreachable (DNS)", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        call("read", "ListStacks").pipe(Effect.provide(Layers.client(Layers.apiKey("http://svc.invalid")))),
      )
      expect(error).toMatchObject({ _tag: "SvcUnreachableError", reason: "DNS" })
    }),
  )

  it.scoped("a connection dropped before or during the answer is unreachable (Reset)", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("*", { destroy: "before-headers" })
      double.next("*", { destroy: "mid-body" })
      for (let i = 0; i < 2; i++) {
        const error = yield* Effect.flip(call("read", "ListStacks").pipe(withKey(double)))
        expect(error._tag).toBe("SvcUnreachableError")
      }
    }),
  )

  // Each waits out its limit on the real clock and shares nothing with the other: they wait at once.
  describe.concurrent("a service that hangs", () => {
    for (const hang of ["before-headers", "mid-body"] as const) {
      it.scopedLive(`times out after the configured time when the service hangs ${hang}, and aborts the request`, () =>
        Effect.gen(function* () {
          const double = yield* Double.scoped(Layers.API_KEY)
          double.next("*", { hang })
          const started = performance.now()
          const error = yield* Effect.flip(call("read", "ListStacks").pipe(withKey(double, 100)))
          const took = performance.now() - started
          expect(error).toMatchObject({ _tag: "SvcTimeoutError", timeoutMs: 100 })
          expect(error.message).toMatch(/timed out after 0\.1 s/)
          // Our client keeps the limit on Node's timers, as the Effect clock itself does: never well before it.
          expect(took).toBeGreaterThanOrEqual(90)
          expect(took).toBeLessThan(5_000)
          yield* until(() => double.aborted === 1)
          expect(double.requests).toHaveLength(1)
        }),
      )
    }
  })

  // Any other HttpClient (an embedding program's, or one made from ours) is bounded by Effect.timeout.
  const others = {
    "the platform's fetch client": FetchHttpClient.layer,
    "a client made from ours with HttpClient.mapRequest": Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(identity)),
    ).pipe(Layer.provide(SvcTransport.layer)),
  }
  for (const [name, http] of Object.entries(others)) {
    it.scoped(`through ${name}, times out after exactly the configured 30 s on the Effect clock, and aborts`, () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        double.next("*", { hang: "before-headers" })
        const fiber = yield* Effect.fork(
          call("read", "ListStacks").pipe(Effect.provide(Layers.client(Layers.apiKey(double.url), http))),
        )
        yield* until(() => double.requests.length === 1)
        yield* TestClock.adjust("29999 millis")
        expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
        yield* TestClock.adjust("1 millis")
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect(error).toMatchObject({ _tag: "SvcTimeoutError", timeoutMs: 30_000 })
        expect(error.message).toMatch(/timed out after 30 s/)
        yield* until(() => double.aborted === 1)
      }),
    )
  }

  it.scoped("interrupting a call aborts its HTTP request", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("*", { hang: "before-headers" })
      const fiber = yield* Effect.fork(call("read", "ListStacks").pipe(withKey(double)))
      yield* until(() => double.requests.length === 1)
      yield* Fiber.interrupt(fiber)
      yield* until(() => double.aborted === 1)
    }),
  )
})

describe("SvcClient under the service's rate limiter", () => {
  it.scoped("a refused API key is sent once per call, never again: the limiter's 429 then says when to retry", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: Layers.KEY, secret: "another" } })
      const errors = yield* Effect.forEach(
        Array.from({ length: Double.RATE_LIMIT.attempts + 2 }),
        () => Effect.flip(call("read", "ListStacks")),
        { concurrency: 1 },
      ).pipe(withKey(double))
      // One request per call: nothing is retried, so the operator's own calls alone meet the limit.
      expect(double.requests).toHaveLength(Double.RATE_LIMIT.attempts + 2)
      const refused = errors.slice(0, Double.RATE_LIMIT.attempts)
      refused.forEach((error, i) => {
        expect(error).toMatchObject({ _tag: "SvcAuthError", reason: "Rejected", status: 401 })
        expect(error.message).toContain(`You have ${Double.RATE_LIMIT.attempts - 1 - i} attempts remaining`)
      })
      for (const error of errors.slice(Double.RATE_LIMIT.attempts)) {
        expect(error).toMatchObject({ _tag: "SvcServiceError", reason: "RateLimited", status: 429 })
        if (error._tag !== "SvcServiceError") continue
        // The window is 15 s from the first failure, a moment ago.
        expect(Number(error.retryAfter)).toBeGreaterThanOrEqual(5)
        expect(Number(error.retryAfter)).toBeLessThanOrEqual(15)
        expect(error.message).toMatch(new RegExp(`too many failed authentications; retry after ${error.retryAfter} s$`))
      }
    }),
  )

  it.scoped("a 429's Retry-After header wins over the wait its text names", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("*", {
        status: 429,
        body: { error: "Too many attempts | Try again in 12s", trace: [] },
        headers: { "retry-after": "30" },
      })
      double.next("*", { status: 429, body: { error: "Too many attempts | Try again in 12s", trace: [] } })
      double.next("*", { status: 429, body: { error: "slow down", trace: [] } })
      const [header, text, none] = yield* Effect.forEach([1, 2, 3], () => Effect.flip(call("read", "ListStacks"))).pipe(
        withKey(double),
      )
      expect(header).toMatchObject({ reason: "RateLimited", retryAfter: "30" })
      expect(text).toMatchObject({ reason: "RateLimited", retryAfter: "12" })
      expect(text?.message).toMatch(/retry after 12 s$/)
      expect(none).toMatchObject({ reason: "RateLimited" })
      expect(none?.message).toMatch(/wait before trying again$/)
      expect(double.requests).toHaveLength(3)
    }),
  )
})

describe("SvcClient and redirects", () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it.scoped(`a ${status} is not followed, and says where it points and what to set SVC_URL to`, () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(Layers.API_KEY)
        const target = yield* Double.scoped(Layers.API_KEY)
        double.next("*", { status, headers: { location: `${target.url}/api/read/GetStack` } })
        const error = yield* Effect.flip(call("read", "GetStack", { stack: "web" }).pipe(withKey(double)))
        expect(error).toMatchObject({
          _tag: "SvcServiceError",
          reason: "Redirected",
          status,
          location: `${target.url}/api/read/GetStack`,
        })
        expect(error.message).toBe(
          `read/GetStack failed: the service redirected to ${target.url}/api/read/GetStack; set SVC_URL to ${target.url}/api (redirects are not followed, so that credentials go only to SVC_URL) (it answered ${status})`,
        )
        // The credentials went to SVC_URL only.
        expect(double.requests).toHaveLength(1)
        expect(target.requests).toHaveLength(0)
      }),
    )
  }

  it.scoped("a relative Location is made absolute; one that is not the endpoint elsewhere says to check SVC_URL", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      double.next("*", { status: 308, headers: { location: "/v2/read/ListStacks" } })
      double.next("*", { status: 302, headers: { location: "https://sso.example.com/login?next=%2F" } })
      const [relative, elsewhere] = yield* Effect.forEach([1, 2], () => Effect.flip(call("read", "ListStacks"))).pipe(
        withKey(double),
      )
      expect(relative?.message).toContain(
        `the service redirected to ${double.url}/v2/read/ListStacks; set SVC_URL to ${double.url}/v2 `,
      )
      expect(elsewhere?.message).toContain(
        "the service redirected to https://sso.example.com/login?next=%2F, which is not this endpoint under another base URL: check SVC_URL",
      )
    }),
  )
})
