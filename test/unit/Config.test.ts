import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Config from "../../src/Config.js"
import * as Settings from "../../src/Settings/ToolSettings.js"

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

describe("Config from files (_FILE), as container secrets are mounted", () => {
  const file = (content: string) => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-"))
    const path = Path.join(dir, "value")
    Fs.writeFileSync(path, content)
    return path
  }

  it.effect("reads each credential from its _FILE, dropping one trailing newline", () =>
    Effect.gen(function* () {
      const config = yield* load({
        SVC_URL: "https://svc",
        SVC_API_KEY_FILE: file("key-from-file\n"),
        SVC_API_SECRET_FILE: file("secret-from-file\n"),
      })
      expect(config.credentials._tag).toBe("ApiKey")
      if (config.credentials._tag === "ApiKey") {
        expect(Redacted.value(config.credentials.key)).toBe("key-from-file")
        expect(Redacted.value(config.credentials.secret)).toBe("secret-from-file")
        // A refusal of the key names the variables it was read from.
        expect(config.credentials.from).toEqual(["SVC_API_KEY_FILE", "SVC_API_SECRET_FILE"])
      }
      const login = yield* load({
        SVC_URL: "https://svc",
        SVC_INIT_ADMIN_USERNAME_FILE: file("admin"),
        SVC_INIT_ADMIN_PASSWORD_FILE: file("pw from file\r\n"),
      })
      expect(login.credentials).toMatchObject({ _tag: "Login", username: "admin" })
      if (login.credentials._tag === "Login") expect(Redacted.value(login.credentials.password)).toBe("pw from file")
    }),
  )

  it.effect("refuses a variable set together with its _FILE, a missing file, and an empty one", () =>
    Effect.gen(function* () {
      const both = yield* failure({
        SVC_URL: "https://svc",
        SVC_API_KEY: "k",
        SVC_API_SECRET: "s",
        SVC_API_SECRET_FILE: file("s"),
      })
      expect(both).toMatchObject({ variable: "SVC_API_SECRET_FILE" })
      expect(both.message).toMatch(/set only one of SVC_API_SECRET and SVC_API_SECRET_FILE/)
      const missing = yield* failure({ SVC_URL: "https://svc", SVC_API_KEY: "k", SVC_API_SECRET_FILE: "/no/such/file" })
      expect(missing.message).toMatch(/^SVC_API_SECRET_FILE names a file that cannot be read \(ENOENT\)/)
      const empty = yield* failure({ SVC_URL: "https://svc", SVC_API_KEY: "k", SVC_API_SECRET_FILE: file("\n") })
      expect(empty.message).toMatch(/^SVC_API_SECRET_FILE names an empty file/)
    }),
  )

  it.effect("the server settings: defaults, and each variable checked", () =>
    Effect.gen(function* () {
      const settings = (env: Record<string, string>) =>
        Settings.loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
      expect(yield* settings({})).toMatchObject({
        mode: "full",
        deny: [],
        waitTimeoutMs: 600_000,
        waitPollMs: 1_000,
        maxOutputChars: 50_000,
        revealSecrets: false,
        logTimestamps: false,
      })
      expect(
        yield* settings({
          SVC_MODE: "Read-Only",
          SVC_REVEAL_SECRETS: "true",
          SVC_MAX_OUTPUT_CHARS: "8000",
          SVC_LOG_TIMESTAMPS: "yes",
        }),
      ).toMatchObject({
        mode: "read-only",
        revealSecrets: true,
        logTimestamps: true,
        maxOutputChars: 8000,
      })
      for (const [variable, value] of [
        ["SVC_WAIT_TIMEOUT_MS", "ten"],
        ["SVC_MAX_OUTPUT_CHARS", "-1"],
        ["SVC_REVEAL_SECRETS", "maybe"],
        ["SVC_LOG_TIMESTAMPS", "sometimes"],
        ["SVC_MODE", "root"],
        ["SVC_ALLOW", "svc_list"],
      ] as const) {
        const error = yield* Effect.flip(settings({ [variable]: value }))
        expect(error.variable).toBe(variable)
      }
    }),
  )
})
