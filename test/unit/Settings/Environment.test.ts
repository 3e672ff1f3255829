import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as FastCheck from "fast-check"
import * as Config from "../../../src/Config.js"
import * as AuditSettings from "../../../src/Settings/Audit.js"
import * as Environment from "../../../src/Settings/Environment.js"
import * as GuardSettings from "../../../src/Settings/Guard.js"
import * as HttpSettings from "../../../src/Settings/Http.js"
import * as ParamsCheckSettings from "../../../src/Settings/ParamsCheck.js"
import * as RegistrySettings from "../../../src/Settings/Registry.js"
import * as Setting from "../../../src/Settings/Setting.js"
import * as SignInSettings from "../../../src/Settings/SignIn.js"
import * as StoreSettings from "../../../src/Settings/Store.js"
import * as TeamSettings from "../../../src/Settings/Team.js"
import * as TelemetrySettings from "../../../src/Settings/Telemetry.js"
import * as PolicySettings from "../../../src/Settings/ToolSettings.js"
import { runs } from "../../support/Runs.js"

const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-environment-"))
afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))
const secretFile = Path.join(dir, "secret")
Fs.writeFileSync(secretFile, "from-a-file\n")
const emptyFile = Path.join(dir, "empty")
Fs.writeFileSync(emptyFile, "\n")

/** Every section of the settings as a start reads it, and those a start reads only when switched on. */
const LOADS: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
  ["Config", Config.load],
  ["Config, per caller", Config.loadFor("per-request")],
  ["Audit", AuditSettings.load],
  ["Audit key", AuditSettings.loadKey],
  ["Guard", GuardSettings.load],
  ["Http", HttpSettings.load(Option.none())],
  ["Http, --http-port", HttpSettings.load(Option.some(8080))],
  ["ParamsCheck", ParamsCheckSettings.load],
  ["Policy", PolicySettings.loadSettings],
  ["Registry", RegistrySettings.load],
  ["Config, as the service staging", RegistrySettings.reading("staging")(Config.load)],
  ["Policy, as the service staging", RegistrySettings.reading("staging")(PolicySettings.loadSettings)],
  ["SignIn", SignInSettings.load()],
  ["SignIn, two services", SignInSettings.load(["staging", "prod"])],
  ["SignIn switch", SignInSettings.enabled],
  ["Store", StoreSettings.load],
  ["Team", TeamSettings.load],
  ["Telemetry", TelemetrySettings.load],
]

/** Values as a user sets them: right, wrong, empty, and the switches' words. */
const VALUES = [
  "",
  " ",
  "0",
  "1",
  "8080",
  "70000",
  "-3",
  "abc",
  "true",
  "false",
  "read-only",
  "operate",
  "full",
  "per-request",
  "https://svc.example.com",
  "http://127.0.0.1:9120/svc/",
  "http://u:p@svc.example.com",
  "ftp://svc.example.com",
  "svc_list,svc_get",
  "*",
  "5s",
  "10m",
  "2h",
  "memory",
  "redis://127.0.0.1:6379",
  "staging,prod",
  "staging, ,prod",
  "on",
  "off",
  "10.0.0.0/8",
  Buffer.alloc(32, 7).toString("base64"),
  "/nonexistent/secret",
  secretFile,
  emptyFile,
]

/** How many values a name may take in a turn: each of VALUES, or none (unset). */
const CHOICES = VALUES.length * 2

/**
 * The environment of one turn: each name answers from its own place in the values, moved on a step
 * a turn, so that over CHOICES turns every name takes every value once and is unset as often, each
 * time beside other names' values; about half of the names are unset in any turn.
 */
const environment = (turn: number): NodeJS.ProcessEnv => {
  const chosen = (name: string): string | undefined => {
    let hash = 0x811c9dc5
    for (let at = 0; at < name.length; at++) hash = Math.imul(hash ^ name.charCodeAt(at), 0x01000193) >>> 0
    const pick = (hash + turn) % CHOICES
    return pick < VALUES.length ? VALUES[pick] : undefined
  }
  return new Proxy({} as NodeJS.ProcessEnv, {
    has: (_, name) => typeof name === "string" && chosen(name) !== undefined,
    get: (_, name) => (typeof name === "string" ? chosen(name) : undefined),
  })
}

/** What a read gave, as plain data: a secret by its value, a refusal by its line. */
const plain = (value: unknown): unknown => {
  if (Option.isOption(value)) return Option.isSome(value) ? { some: plain(value.value) } : { none: true }
  if (Redacted.isRedacted(value)) return { redacted: plain(Redacted.value(value)) }
  if (value instanceof Uint8Array) return { bytes: [...value] }
  if (value instanceof Error) return { error: value.name, message: value.message }
  if (Array.isArray(value)) return value.map(plain)
  if (value instanceof Set) return { set: [...value].map(plain) }
  if (value instanceof Map) return { map: [...value].map(plain) }
  if (typeof value === "function") return { function: value.name }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]))
  }
  return value
}

const readWith = (
  env: NodeJS.ProcessEnv,
  provider: ConfigProvider.ConfigProvider,
  load: Effect.Effect<unknown, unknown>,
) => {
  const saved = process.env
  process.env = env
  try {
    const exit = Effect.runSyncExit(Effect.withConfigProvider(load, provider))
    return Exit.isSuccess(exit) ? { value: plain(exit.value) } : { failure: plain(Cause.squash(exit.cause)) }
  } finally {
    process.env = saved
  }
}

const sameAsFromEnv = (env: NodeJS.ProcessEnv) => {
  for (const [name, load] of LOADS) {
    expect(readWith(env, Environment.provider, load), name).toEqual(readWith(env, ConfigProvider.fromEnv(), load))
  }
}

const tooMany = (setting: Setting.Setting<unknown>) =>
  Setting.mapOrFail(setting, (value) =>
    typeof value === "string" && value.length > 3
      ? Either.left(ConfigError.InvalidData(["X"], "too many"))
      : Either.right(value),
  )

/** Any description made of the settings' combinators, over the variables A, B and C. */
const descriptions = FastCheck.letrec<{ setting: Setting.Setting<unknown> }>((tie) => ({
  setting: FastCheck.oneof(
    { depthSize: "small", withCrossShrink: true },
    FastCheck.constantFrom("A", "B", "C").chain((name) =>
      FastCheck.constantFrom<Setting.Setting<unknown>>(Setting.string(name), Setting.redacted(name)),
    ),
    FastCheck.constant<Setting.Setting<unknown>>(Setting.succeed(7)),
    tie("setting").map((setting) => Setting.option(setting)),
    tie("setting").map((setting) => Setting.map(setting, (value) => ({ mapped: value }))),
    tie("setting").map(tooMany),
    FastCheck.tuple(tie("setting"), tie("setting")).map(([left, right]) => Setting.all([left, right])),
    FastCheck.tuple(tie("setting"), tie("setting")).map(([left, right]) => Setting.all({ left, right })),
    FastCheck.tuple(tie("setting"), tie("setting")).map(([left, right]) =>
      Setting.zipWith(left, right, (a, b) => ({ a, b })),
    ),
  ),
})).setting

/** A description read by its plain reader and by effect's fromEnv through its Config. */
const asData = (read: Either.Either<unknown, ConfigError.ConfigError>) =>
  Either.match(read, { onLeft: (error) => ({ left: plain(error) }), onRight: (value) => ({ right: plain(value) }) })

/** A description read by its plain reader and by effect's fromEnv through its Config. */
const bothReads = (env: NodeJS.ProcessEnv, setting: Setting.Setting<unknown>) => {
  const saved = process.env
  process.env = env
  try {
    const fromEnv = Effect.runSync(Effect.either(ConfigProvider.fromEnv().load(setting.config)))
    return { plainRead: asData(setting.read(env, (name) => name)), fromEnv: asData(fromEnv) }
  } finally {
    process.env = saved
  }
}

describe("Settings/Environment", () => {
  it("reads any description as effect's fromEnv reads its Config, to the error's paths and words", () => {
    const env = FastCheck.record(
      {
        A: FastCheck.constantFrom("", "12", "x", "true", "long value"),
        B: FastCheck.constantFrom("1", "a,b", " "),
        C: FastCheck.constantFrom("2", "", "abcdef"),
      },
      { requiredKeys: [] },
    )
    FastCheck.assert(
      FastCheck.property(descriptions, env, (setting, env) => {
        const { plainRead, fromEnv } = bothReads(env, setting)
        expect(plainRead).toEqual(fromEnv)
      }),
      {
        numRuns: runs(300),
        examples: [
          [tooMany(Setting.string("A")), { A: "long value" }],
          [Setting.all([Setting.string("A"), Setting.redacted("C")]), { B: "1" }],
          [Setting.option(tooMany(Setting.string("C"))), { C: "abcdef" }],
        ],
      },
    )
  })

  it("reads the settings as effect's fromEnv does, value or refusal, whatever the environment", () => {
    // Every name with every value: a seeded draw of as many environments leaves a third of the pairs untried.
    for (let turn = 0; turn < CHOICES; turn++) sameAsFromEnv(environment(turn))
  })

  it("gives a start's settings and refuses a malformed variable as fromEnv does", () => {
    const start = { SVC_URL: "https://svc.example.com", SVC_API_KEY: "k", SVC_API_SECRET_FILE: secretFile }
    sameAsFromEnv(start)
    expect(readWith(start, Environment.provider, Config.load)).toMatchObject({
      value: { url: "https://svc.example.com", credentials: { _tag: "ApiKey", secret: { redacted: "from-a-file" } } },
    })
    const malformed = { ...start, SVC_TIMEOUT_MS: "soon" }
    sameAsFromEnv(malformed)
    expect(readWith(malformed, Environment.provider, Config.load)).toMatchObject({
      failure: { message: expect.stringMatching(/^SVC_TIMEOUT_MS is not a positive whole number/) },
    })
  })

  it("reads a service's own variables through fromEnv's names, as several services have them", () => {
    const env = {
      SVC_SERVICES: "staging,prod",
      SVC_STAGING_URL: "https://staging.example.com",
      SVC_STAGING_API_KEY: "k",
    }
    sameAsFromEnv(env)
    expect(readWith(env, Environment.provider, RegistrySettings.load)).toEqual({ value: { some: ["staging", "prod"] } })
    expect(readWith(env, Environment.provider, RegistrySettings.reading("staging")(Config.load))).toMatchObject({
      failure: { message: expect.stringMatching(/^SVC_STAGING_API_SECRET /) },
    })
  })
})
