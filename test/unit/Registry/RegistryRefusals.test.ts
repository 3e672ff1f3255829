/**
 * Among several services, a start-up refusal is made naming the service's own
 * variables (SVC_STAGING_TIMEOUT_MS) in its variable, its problem and its hint,
 * and the server's own variables as they are; a single service's names its own.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Config from "../../../src/Config.js"
import { PER_SERVICE } from "../../../src/Settings/Naming.js"
import { reading } from "../../../src/Settings/Registry.js"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

/** Staging's refusal of `env`: its configuration and its policy, read as a service's layers read them. */
const stagingRefusal = (env: Record<string, string>) =>
  Effect.flip(
    Effect.all([Config.load, Effect.flatMap(Settings.loadSettings, Policy.make)]).pipe(
      reading("staging"),
      withEnv(env),
    ),
  )

const STAGING = { SVC_STAGING_URL: "http://127.0.0.1:9", SVC_STAGING_API_KEY: "k", SVC_STAGING_API_SECRET: "s" }

// A single service's name of any of the family (SVC_URL, SVC_API_KEY_FILE...), which staging's refusals never hold.
const SINGLE = new RegExp(`\\bSVC_(?:${PER_SERVICE.join("|")})\\b`)

const emptyFile = () => {
  const file = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-")), "empty")
  Fs.writeFileSync(file, "\n")
  return file
}

describe("several services' start-up refusals", () => {
  it.effect("a malformed time-out is refused by staging's variable, in the problem's line and the hint's", () =>
    Effect.gen(function* () {
      const error = yield* stagingRefusal({ ...STAGING, SVC_STAGING_TIMEOUT_MS: "abc" })
      expect(error.variable).toBe("SVC_STAGING_TIMEOUT_MS")
      expect(error.problem).toBe('is not a positive whole number of milliseconds ("abc")')
      expect(error.hint).toBe("unset it for the default of 30000, or give e.g. SVC_STAGING_TIMEOUT_MS=60000")
    }),
  )

  it.effect("a key given both ways is refused naming staging's key and key file", () =>
    Effect.gen(function* () {
      const error = yield* stagingRefusal({ ...STAGING, SVC_STAGING_API_KEY_FILE: "/nonexistent" })
      expect(error.variable).toBe("SVC_STAGING_API_KEY_FILE")
      expect(error.problem).toBe("is set, and so is SVC_STAGING_API_KEY")
      expect(error.hint).toBe("set only one of SVC_STAGING_API_KEY and SVC_STAGING_API_KEY_FILE")
    }),
  )

  it.effect("every refusal of staging's own variables names none of a single service's", () =>
    Effect.gen(function* () {
      const { SVC_STAGING_API_SECRET: _secret, ...noSecret } = STAGING
      const cases: ReadonlyArray<readonly [Record<string, string>, string, RegExp]> = [
        [{ SVC_STAGING_API_KEY: "k", SVC_STAGING_API_SECRET: "s" }, "SVC_STAGING_URL", /SVC_STAGING_URL=https/],
        [{ ...STAGING, SVC_STAGING_URL: "https://u:p@svc" }, "SVC_STAGING_URL", /SVC_STAGING_INIT_ADMIN_PASSWORD/],
        [noSecret, "SVC_STAGING_API_SECRET", /is not set but SVC_STAGING_API_KEY is/],
        [{ SVC_STAGING_URL: "http://127.0.0.1:9" }, "SVC_STAGING_API_KEY", /set SVC_STAGING_API_KEY and SVC_STAGING_/],
        [
          { SVC_STAGING_URL: "http://127.0.0.1:9", SVC_STAGING_INIT_ADMIN_USERNAME: "bob" },
          "SVC_STAGING_INIT_ADMIN_PASSWORD",
          /is not set but SVC_STAGING_INIT_ADMIN_USERNAME is: .*SVC_STAGING_API_SECRET$/,
        ],
        [
          { ...STAGING, SVC_STAGING_API_SECRET: "", SVC_STAGING_API_SECRET_FILE: emptyFile() },
          "SVC_STAGING_API_SECRET_FILE",
          /put the value of SVC_STAGING_API_SECRET in it/,
        ],
        [{ ...STAGING, SVC_STAGING_MODE: "all" }, "SVC_STAGING_MODE", /is "all"/],
        [{ ...STAGING, SVC_STAGING_CONFIRM: "nothing" }, "SVC_STAGING_CONFIRM", /neither tool:selector nor a class/],
        [{ ...STAGING, SVC_STAGING_DENY: "svc_nothing:*" }, "SVC_STAGING_DENY", /matches no tool:selector/],
      ]
      for (const [env, variable, message] of cases) {
        const error = yield* stagingRefusal(env)
        expect(error.variable, error.message).toBe(variable)
        expect(error.message).toMatch(message)
        expect(error.message).not.toMatch(SINGLE)
      }
    }),
  )

  it.effect("the server's own variables keep their names in a service's refusal", () =>
    Effect.gen(function* () {
      const error = yield* stagingRefusal({ ...STAGING, SVC_WAIT_TIMEOUT_MS: "soon" })
      expect(error.variable).toBe("SVC_WAIT_TIMEOUT_MS")
      expect(error.hint).toMatch(/give e\.g\. SVC_WAIT_TIMEOUT_MS=900000$/)
    }),
  )

  it.effect("a single service's refusal names a single service's variables", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Config.load.pipe(withEnv({ SVC_URL: "http://127.0.0.1:9", SVC_API_KEY: "k", SVC_API_KEY_FILE: "/x" })),
      )
      expect(error.message).toBe(
        "SVC_API_KEY_FILE is set, and so is SVC_API_KEY: set only one of SVC_API_KEY and SVC_API_KEY_FILE",
      )
    }),
  )
})
