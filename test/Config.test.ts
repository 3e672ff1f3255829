import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Config from "../src/Config.js"

const load = (env: Record<string, string>) =>
  Config.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const failure = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(load(env))
    if (Exit.isSuccess(exit)) throw new Error("expected the configuration to be refused")
    return yield* Effect.flip(load(env))
  })

const KEYS = { SVC_API_KEY: "k", SVC_API_SECRET: "s" }

describe("Config", () => {
  it.effect("reads an API-key configuration, trims the trailing slash, defaults the time-out", () =>
    Effect.gen(function* () {
      const config = yield* load({ SVC_URL: "https://svc.example.com/", ...KEYS })
      expect(config.url).toBe("https://svc.example.com")
      expect(config.timeoutMs).toBe(30_000)
      expect(config.credentials._tag).toBe("ApiKey")
      if (config.credentials._tag === "ApiKey") expect(Redacted.value(config.credentials.secret)).toBe("s")
    }),
  )

  it.effect("keeps a base path, and prefers the API key over a login", () =>
    Effect.gen(function* () {
      const config = yield* load({
        SVC_URL: "http://10.0.0.5:9120/svc//",
        ...KEYS,
        SVC_INIT_ADMIN_USERNAME: "admin",
        SVC_INIT_ADMIN_PASSWORD: "pw",
        SVC_TIMEOUT_MS: "5000",
      })
      expect(config.url).toBe("http://10.0.0.5:9120/svc")
      expect(config.credentials._tag).toBe("ApiKey")
      expect(config.timeoutMs).toBe(5000)
    }),
  )

  it.effect("uses the login when no API key is set; empty values count as unset", () =>
    Effect.gen(function* () {
      const config = yield* load({
        SVC_URL: "http://localhost:9120",
        SVC_API_KEY: "",
        SVC_API_SECRET: " ",
        SVC_INIT_ADMIN_USERNAME: "admin",
        SVC_INIT_ADMIN_PASSWORD: "pw",
      })
      expect(config.credentials).toMatchObject({ _tag: "Login", username: "admin" })
    }),
  )

  const cases: ReadonlyArray<[string, Record<string, string>, string, RegExp]> = [
    ["missing SVC_URL", { ...KEYS }, "SVC_URL", /is not set/],
    ["a malformed URL", { SVC_URL: "svc.example.com", ...KEYS }, "SVC_URL", /not a URL/],
    ["a non-http scheme", { SVC_URL: "ftp://svc", ...KEYS }, "SVC_URL", /http/],
    ["credentials in the URL", { SVC_URL: "https://u:p@svc", ...KEYS }, "SVC_URL", /credentials/],
    ["no credentials", { SVC_URL: "https://svc" }, "SVC_API_KEY", /SVC_INIT_ADMIN_USERNAME/],
    ["a key without its secret", { SVC_URL: "https://svc", SVC_API_KEY: "k" }, "SVC_API_SECRET", /both/],
    ["a secret without its key", { SVC_URL: "https://svc", SVC_API_SECRET: "s" }, "SVC_API_KEY", /both/],
    [
      "a username without password",
      { SVC_URL: "https://svc", SVC_INIT_ADMIN_USERNAME: "a" },
      "SVC_INIT_ADMIN_PASSWORD",
      /password/,
    ],
    [
      "a password without username",
      { SVC_URL: "https://svc", SVC_INIT_ADMIN_PASSWORD: "p" },
      "SVC_INIT_ADMIN_USERNAME",
      /username/,
    ],
    [
      "a time-out that is not a number",
      { SVC_URL: "https://svc", ...KEYS, SVC_TIMEOUT_MS: "30s" },
      "SVC_TIMEOUT_MS",
      /positive whole number/,
    ],
    ["a zero time-out", { SVC_URL: "https://svc", ...KEYS, SVC_TIMEOUT_MS: "0" }, "SVC_TIMEOUT_MS", /positive/],
    ["a fractional time-out", { SVC_URL: "https://svc", ...KEYS, SVC_TIMEOUT_MS: "1.5" }, "SVC_TIMEOUT_MS", /whole/],
  ]
  for (const [name, env, variable, hint] of cases) {
    it.effect(`refuses ${name}, naming ${variable}`, () =>
      Effect.gen(function* () {
        const error = yield* failure(env)
        expect(error._tag).toBe("ConfigError")
        expect(error.variable).toBe(variable)
        expect(error.message.startsWith(variable)).toBe(true)
        expect(error.message).toMatch(hint)
        expect(error.message).not.toContain("\n")
      }),
    )
  }

  it.effect("never shows the secret or password in its errors", () =>
    Effect.gen(function* () {
      const error = yield* failure({ SVC_URL: "nope", SVC_API_KEY: "k", SVC_API_SECRET: "hunter2-secret" })
      expect(error.message).not.toContain("hunter2-secret")
    }),
  )
})
