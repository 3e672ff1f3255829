import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { SvcClient } from "../../src/SvcClient.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import { until } from "../support/Wait.js"

const USERS = { users: { [Layers.USER]: Layers.PASSWORD } }
const LOGIN = "/auth/login/LoginLocalUser"

const listStacks = Effect.flatMap(SvcClient, (client) => client.call("read", "ListStacks", {}))

const withLogin = (double: Double.ServiceDouble, password?: string) =>
  Effect.provide(Layers.client(Layers.login(double.url, password)))

const burst = (n: number) =>
  Effect.all(
    Array.from({ length: n }, () => listStacks),
    { concurrency: "unbounded" },
  )

describe("Auth with a JWT login", () => {
  it.scoped("logs in once for concurrent first calls, and sends the raw token, never an API key", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      const answers = yield* burst(20).pipe(withLogin(double))
      expect(answers).toHaveLength(20)
      expect(double.logins).toBe(1)
      const login = double.requests.find((r) => r.path === LOGIN)
      expect(login?.body).toEqual({ username: Layers.USER, password: Layers.PASSWORD })
      const tokens = new Set(double.calls().map((r) => r.headers.authorization))
      expect(tokens.size).toBe(1)
      expect([...tokens][0]).toMatch(/^eyJ\./)
      expect(double.calls().every((r) => r.headers["x-api-key"] === undefined)).toBe(true)
    }),
  )

  it.scoped("keeps the token: later calls do not log in again", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      yield* Effect.gen(function* () {
        yield* listStacks
        yield* listStacks
        yield* listStacks
      }).pipe(withLogin(double))
      expect(double.logins).toBe(1)
      expect(double.calls()).toHaveLength(3)
    }),
  )

  it.scoped(
    "an expired token (500 Invalid user credentials) costs one login for a whole burst, and every call succeeds",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(USERS)
        yield* Effect.gen(function* () {
          yield* listStacks
          double.expireTokens()
          const answers = yield* burst(50)
          expect(answers).toHaveLength(50)
        }).pipe(withLogin(double))
        expect(double.logins).toBe(2)
        // 1 before, 50 refused, 50 retried.
        expect(double.calls()).toHaveLength(101)
      }),
  )

  it.scoped("a 401 also renews the token, and a call is retried only once", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      double.next("/read/ListStacks", { status: 401, body: { error: "token expired", trace: [] } })
      yield* listStacks.pipe(withLogin(double))
      expect(double.logins).toBe(2)

      const stubborn = yield* Double.scoped(USERS)
      stubborn.next("/read/ListStacks", { status: 401, body: { error: "no", trace: [] } }, { sticky: true })
      const error = yield* Effect.flip(listStacks.pipe(withLogin(stubborn)))
      expect(error).toMatchObject({ _tag: "SvcAuthError", reason: "Rejected", status: 401 })
      expect(stubborn.calls()).toHaveLength(2)
      expect(stubborn.logins).toBe(2)
    }),
  )

  const failures: ReadonlyArray<[string, Double.Behaviour | "wrong-password", string, RegExp]> = [
    ["a wrong password", "wrong-password", "LoginRefused", /refused the username or password/],
    [
      "too many attempts (429)",
      { status: 429, body: { error: "Too many attempts", trace: [] } },
      "RateLimited",
      /too many/,
    ],
    ["a TOTP challenge", { status: 200, body: { type: "Totp", data: {} } }, "SecondFactor", /second factor \(Totp\)/],
    [
      "a passkey challenge",
      { status: 200, body: { type: "Passkey", data: { challenge: {} } } },
      "SecondFactor",
      /Passkey/,
    ],
    ["malformed JSON", { status: 200, raw: "{not json" }, "BadLoginResponse", /not JSON/],
    ["an answer with no token", { status: 200, body: { type: "Jwt", data: {} } }, "BadLoginResponse", /no token/],
    ["a 500", { status: 500, body: { error: "database down", trace: [] } }, "LoginFailed", /database down/],
  ]
  for (const [name, behaviour, reason, text] of failures) {
    it.scoped(`a login that meets ${name} is an auth error (${reason}) that never shows the password`, () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(USERS)
        if (behaviour !== "wrong-password") double.next(LOGIN, behaviour)
        const error = yield* Effect.flip(
          listStacks.pipe(withLogin(double, behaviour === "wrong-password" ? "wrong-password-value" : undefined)),
        )
        expect(error).toMatchObject({ _tag: "SvcAuthError", reason })
        expect(error.message).toMatch(text)
        expect(JSON.stringify(error)).not.toContain(Layers.PASSWORD)
        expect(error.message).not.toContain("wrong-password-value")
        expect(double.calls()).toHaveLength(0)
      }),
    )
  }

  it.scoped("a failed login is shared by the calls waiting on it, and the next call tries again", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      double.next(LOGIN, { delayMs: 50, followedBy: { status: 429, body: { error: "slow down", trace: [] } } })
      yield* Effect.gen(function* () {
        const results = yield* Effect.all(
          Array.from({ length: 10 }, () => Effect.either(listStacks)),
          {
            concurrency: "unbounded",
          },
        )
        expect(results.every((r) => r._tag === "Left")).toBe(true)
        expect(double.logins).toBe(1)
        yield* listStacks
        expect(double.logins).toBe(2)
      }).pipe(withLogin(double))
    }),
  )

  it.scoped("a caller interrupted during the login does not abort it for the others", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      double.next(LOGIN, { delayMs: 100 })
      yield* Effect.gen(function* () {
        const first = yield* Effect.fork(listStacks)
        yield* until(() => double.requests.length === 1)
        const second = yield* Effect.fork(listStacks)
        yield* Fiber.interrupt(first)
        yield* Fiber.join(second)
      }).pipe(withLogin(double))
      expect(double.logins).toBe(1)
    }),
  )

  it.scoped("a service error body that echoes the token or password is scrubbed", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      yield* Effect.gen(function* () {
        yield* listStacks
        const token = double.calls()[0]?.headers.authorization as string
        double.next("/read/ListStacks", {
          status: 400,
          body: { error: `bad header ${token} for ${Layers.PASSWORD}`, trace: [`token=${token}`] },
        })
        const error = yield* Effect.flip(listStacks)
        const shown = JSON.stringify({ ...error, message: error.message })
        expect(shown).not.toContain(token)
        expect(shown).not.toContain(Layers.PASSWORD)
        expect(shown).toContain("[redacted]")
      }).pipe(withLogin(double))
    }),
  )

  it.scoped(
    "a token refused with 500 Invalid user credentials every time is renewed once per call, not in a loop",
    () =>
      Effect.gen(function* () {
        const double = yield* Double.scoped(USERS)
        double.next(
          "/read/ListStacks",
          { status: 500, body: { error: "Invalid user credentials", trace: [] } },
          { sticky: true },
        )
        const error = yield* Effect.flip(listStacks.pipe(withLogin(double)))
        expect(error).toMatchObject({ _tag: "SvcAuthError", reason: "Rejected", status: 500 })
        expect(double.logins).toBe(2)
        expect(double.calls()).toHaveLength(2)
      }),
  )

  it.scoped("a login answered 429 says when to retry, and is not retried", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      double.next(LOGIN, { status: 429, body: { error: "Too many attempts | Try again in 12s", trace: [] } })
      const error = yield* Effect.flip(listStacks.pipe(withLogin(double)))
      expect(error).toMatchObject({ _tag: "SvcAuthError", reason: "RateLimited", status: 429 })
      expect(error.message).toMatch(/too many failed attempts from this address .*; retry after 12 s$/)
      expect(double.logins).toBe(1)
      expect(double.calls()).toHaveLength(0)
    }),
  )

  it.scoped("a wrong password costs one login per call; past the service's limit, the 429 says when to retry", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      const errors = yield* Effect.forEach(Array.from({ length: Double.RATE_LIMIT.attempts + 1 }), () =>
        Effect.flip(listStacks),
      ).pipe(withLogin(double, "wrong-password-value"))
      expect(double.logins).toBe(Double.RATE_LIMIT.attempts + 1)
      expect(double.calls()).toHaveLength(0)
      expect(errors[0]).toMatchObject({ reason: "LoginRefused", status: 401 })
      expect(errors[0]?.message).toMatch(/You have 4 attempts remaining/)
      expect(errors.at(-1)).toMatchObject({ reason: "RateLimited", status: 429 })
      expect(errors.at(-1)?.message).toMatch(/retry after \d+ s$/)
    }),
  )

  it.scoped("a redirected login is not followed: the password goes to SVC_URL only", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(USERS)
      const target = yield* Double.scoped(USERS)
      double.next(LOGIN, { status: 308, headers: { location: `${target.url}/core${LOGIN}` } })
      const error = yield* Effect.flip(listStacks.pipe(withLogin(double)))
      expect(error).toMatchObject({ _tag: "SvcAuthError", reason: "Redirected", status: 308 })
      expect(error.message).toContain(
        `the service redirected to ${target.url}/core${LOGIN}; set SVC_URL to ${target.url}/core`,
      )
      expect(target.requests).toHaveLength(0)
    }),
  )
})
