/**
 * The shared store through Redis Sentinel, against real processes (Debian's
 * redis-server as a primary, its replica and three Sentinels, each with a
 * password): the primary is found from the Sentinels, a confirmation is
 * honoured once, and through a fail-over (asked for, then by killing the
 * primary) the same store follows the new primary with no restart. Also the
 * redis+sentinel:// settings and their refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as State from "../../src/Confirmation/State.js"
import * as Settings from "../../src/Settings/Store.js"
import * as Store from "../../src/Store/Store.js"
import { freePort } from "../support/Ports.js"
import * as Sentinel from "../support/Sentinel.js"

const STATE_KEY = "0123456789abcdef0123456789abcdef-state-key"
const stateKey = Redacted.make(new Uint8Array(Buffer.from(STATE_KEY)))
const binding: State.Binding = { tool: "svc_delete", selector: "tag", args: { id: "prod" }, principal: "key:k" }

const load = (env: Record<string, string>) =>
  Settings.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

/** The settings exactly as the server reads them from its environment. */
const settingsOf = (env: Record<string, string>) =>
  Effect.map(load({ SVC_MCP_STATE_KEY: STATE_KEY, SVC_MCP_STORE_PREFIX: "s:", ...env }), Option.getOrThrow)

const outcome = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.either(effect), (result) =>
    result._tag === "Right"
      ? "Honoured"
      : ((result.left as { reason?: string; _tag: string }).reason ?? (result.left as { _tag: string })._tag),
  )

const waitUp = (store: Store.StoreShape, ms = 15_000) =>
  Effect.gen(function* () {
    const end = Date.now() + ms
    while (!(yield* store.status).up) {
      if (Date.now() > end) throw new Error(`the store did not answer within ${ms} ms`)
      yield* Effect.sleep("50 millis")
    }
  })

/**
 * Writes through the store until one lands on the data node at `port` (the
 * primary the Sentinels name now); how long that took, in ms. Commands may fail
 * meanwhile (refused, as the store fails closed); the store itself is the same.
 */
const writesLandOn = (store: Store.StoreShape, port: number, value: string, ms = 10_000) =>
  Effect.gen(function* () {
    const started = Date.now()
    for (;;) {
      const written = yield* Effect.either(store.set("where", value, 60_000))
      if (written._tag === "Right" && (yield* Effect.promise(() => set.data(port, "GET", "s:where"))) === value) {
        return Date.now() - started
      }
      if (Date.now() - started > ms) throw new Error(`the store's writes did not reach ${port} within ${ms} ms`)
      yield* Effect.sleep("50 millis")
    }
  })

/** Asked by one process's states, answered by 10 concurrent callers on two: exactly one is honoured. */
const honouredOnce = (states: ReadonlyArray<State.ConfirmationStateShape>) =>
  Effect.gen(function* () {
    const state = yield* (states[0] as State.ConfirmationStateShape).seal(binding)
    const results = yield* Effect.forEach(
      Array.from({ length: 10 }, (_, i) => states[i % states.length] as State.ConfirmationStateShape),
      (one) => outcome(one.verify(state, binding)),
      { concurrency: "unbounded" },
    )
    expect(results.filter((result) => result === "Honoured")).toHaveLength(1)
  })

let set: Sentinel.SentinelSet
beforeAll(async () => {
  set = await Sentinel.start()
}, 30_000)
afterAll(() => set?.stop())

describe("the store through Redis Sentinel", () => {
  it.live(
    "finds the primary from the Sentinels, honours a confirmation once, and follows two fail-overs with no restart",
    () =>
      Effect.gen(function* () {
        const settings = yield* settingsOf({
          SVC_MCP_STORE: set.url,
          SVC_MCP_STORE_SENTINEL_PASSWORD: Sentinel.SENTINEL_PASSWORD,
        })
        expect(settings.where).toBe(
          `redis+sentinel://${set.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(",")}/${Sentinel.NAME}`,
        )
        expect(settings.where).not.toContain(Sentinel.DATA_PASSWORD)
        const logged: Array<string> = []
        const logger = Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ message }) => {
            logged.push(Array.isArray(message) ? message.join(" ") : String(message))
          }),
        )
        yield* Effect.scoped(
          Effect.gen(function* () {
            const store = yield* Store.make(settings)
            yield* waitUp(store)
            const states = yield* Effect.all([State.make(stateKey), State.make(stateKey)]).pipe(
              Effect.provideService(Store.Store, Option.some(store)),
            )
            const first = yield* Effect.promise(() => set.primaryPort())
            expect(first).toBe(set.servers[0]?.port)
            yield* honouredOnce(states)
            // Written on the primary the Sentinels name, under the prefix.
            yield* store.set("where", "first", 60_000)
            expect(yield* Effect.promise(() => set.data(first, "GET", "s:where"))).toBe("first")

            // 1. A fail-over asked of the Sentinels: the replica is promoted, the old primary demoted.
            const second = yield* Effect.promise(() => set.failover())
            expect(second).toBe(set.servers[1]?.port)
            const followed = yield* writesLandOn(store, second, "second")
            yield* Effect.logInfo(`the store's writes reached the new primary ${followed} ms after it answered as one`)
            yield* honouredOnce(states)
            expect(yield* Effect.promise(() => set.data(second, "ROLE"))).toMatch(/^master/)
            // The Sentinels demote the old primary when they next look at it (up to 10 s): only a
            // replica they know can be promoted by the next fail-over.
            yield* Effect.promise(() => set.waitForReplica(first))

            // 2. The new primary killed: the Sentinels find it down and promote the other again.
            yield* Effect.promise(() => set.servers[1]!.kill())
            const third = yield* Effect.promise(() => set.waitForPrimaryOtherThan(second))
            expect(third).toBe(first)
            const refollowed = yield* writesLandOn(store, third, "third")
            yield* Effect.logInfo(
              `after the kill, the store's writes reached the new primary ${refollowed} ms after it answered as one`,
            )
            yield* honouredOnce(states)
            expect(yield* store.get("where")).toEqual(Option.some("third"))
            // What the store said: each new primary; the killed one's loss (once per outage), and
            // its answering again as often.
            expect(logged.filter((line) => line.includes("(through Sentinel)"))).toEqual(
              [first, second, first].map(
                (port) => `the shared store's primary is 127.0.0.1:${port} (through Sentinel)`,
              ),
            )
            const lost = logged.filter((line) => / is unreachable \(Master Client \(127\.0\.0\.1:\d+\)/.test(line))
            expect(lost.length).toBeGreaterThanOrEqual(1)
            expect(logged.filter((line) => line.endsWith(" answers again"))).toHaveLength(lost.length)
            expect(logged.join("\n")).not.toContain(Sentinel.DATA_PASSWORD)
          }),
        ).pipe(Effect.provide(logger))
      }),
    60_000,
  )

  it.live(
    "Sentinels that do not answer at start: made all the same, commands fail fast, and it connects once one answers",
    () =>
      Effect.gen(function* () {
        const later = yield* Effect.promise(() => freePort())
        const settings = yield* settingsOf({
          SVC_MCP_STORE: `redis+sentinel://:${Sentinel.DATA_PASSWORD}@127.0.0.1:${later}/${Sentinel.NAME}`,
          SVC_MCP_STORE_SENTINEL_PASSWORD: Sentinel.SENTINEL_PASSWORD,
        })
        yield* Effect.scoped(
          Effect.gen(function* () {
            const store = yield* Store.make(settings)
            const status = yield* store.status
            expect(status.up).toBe(false)
            expect(status.where).toBe(`redis+sentinel://127.0.0.1:${later}/${Sentinel.NAME}`)
            const started = Date.now()
            const error = yield* Effect.flip(store.get("x"))
            expect(Date.now() - started).toBeLessThan(Store.COMMAND_TIMEOUT_MS + 1_000)
            expect(error._tag).toBe("StoreError")
            expect(error.message).toMatch(/^the shared store did not answer \(get: /)
            const stop = yield* Effect.promise(() => set.addSentinel(later))
            yield* Effect.gen(function* () {
              yield* waitUp(store)
              yield* store.set("late", "yes", 60_000)
              const primary = yield* Effect.promise(() => set.primaryPort())
              expect(yield* Effect.promise(() => set.data(primary, "GET", "s:late"))).toBe("yes")
            }).pipe(Effect.ensuring(Effect.promise(stop)))
          }),
        )
      }),
    30_000,
  )
})

describe("redis+sentinel:// settings", () => {
  it.effect("the Sentinels, the primary's name, its database and both passwords", () =>
    Effect.gen(function* () {
      const value = yield* settingsOf({
        SVC_MCP_STORE: "redis+sentinel://app:p%40ss@s1,s2:26380,[::1]:26381/mymaster/3",
        SVC_MCP_STORE_SENTINEL_PASSWORD: "sentinel-secret",
      })
      const sentinel = value.sentinel as Settings.SentinelSettings
      expect(sentinel.nodes).toEqual([
        { host: "s1", port: 26379 },
        { host: "s2", port: 26380 },
        { host: "::1", port: 26381 },
      ])
      expect(sentinel.name).toBe("mymaster")
      expect(sentinel.database).toEqual(Option.some(3))
      expect(sentinel.username).toEqual(Option.some("app"))
      expect(Option.map(sentinel.password, Redacted.value)).toEqual(Option.some("p@ss"))
      expect(Option.map(sentinel.sentinelPassword, Redacted.value)).toEqual(Option.some("sentinel-secret"))
      expect(value.where).toBe("redis+sentinel://s1:26379,s2:26380,[::1]:26381/mymaster/3")
      expect(value.cluster).toBe(false)
      const plain = yield* settingsOf({ SVC_MCP_STORE: "REDIS+SENTINEL://sentinel/primary" })
      expect(plain.where).toBe("redis+sentinel://sentinel:26379/primary")
      expect(Option.isNone((plain.sentinel as Settings.SentinelSettings).sentinelPassword)).toBe(true)
      expect((yield* settingsOf({ SVC_MCP_STORE: "redis://redis" })).sentinel).toBeUndefined()
    }),
  )

  it.effect("a malformed or conflicting setting is refused in one line that names it, never quoting a password", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[Record<string, string>, string, RegExp]> = [
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter22@/mymaster" }, "SVC_MCP_STORE", /names no Sentinel/],
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter22@s1:26379" }, "SVC_MCP_STORE", /names no primary/],
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter22@s1:26379/" }, "SVC_MCP_STORE", /names no primary/],
        [{ SVC_MCP_STORE: "redis+sentinel://s1:0/mymaster" }, "SVC_MCP_STORE", /1st Sentinel whose port/],
        [{ SVC_MCP_STORE: "redis+sentinel://s1,s2:70000/mymaster" }, "SVC_MCP_STORE", /2nd Sentinel whose port/],
        [
          { SVC_MCP_STORE: "redis+sentinel://s1,,s2/mymaster" },
          "SVC_MCP_STORE",
          /2nd Sentinel that is not host\[:port\]/,
        ],
        [
          { SVC_MCP_STORE: "redis+sentinel://:hunter22@s_1/m" },
          "SVC_MCP_STORE",
          /1st Sentinel that is not host\[:port\]/,
        ],
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter22@s1/m/x" }, "SVC_MCP_STORE", /\/primary-name\[\/db\]/],
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter22@s1/m/0/1" }, "SVC_MCP_STORE", /\/primary-name\[\/db\]/],
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter22@s1/m?x=1" }, "SVC_MCP_STORE", /query or fragment/],
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter%2@s1/m" }, "SVC_MCP_STORE", /percent-encoded/],
        // A password with an unencoded / or @ falls into the hosts or the name: neither is quoted.
        [{ SVC_MCP_STORE: "redis+sentinel://:hunter/hunter@s1/m" }, "SVC_MCP_STORE", /1st Sentinel/],
        [{ SVC_MCP_STORE: "redis+sentinel://s1/m/hunter@x" }, "SVC_MCP_STORE", /\/primary-name\[\/db\]/],
        [{ SVC_MCP_STORE: "redis+sentinel://s1/m@hunter" }, "SVC_MCP_STORE", /primary's name/],
        [{ SVC_MCP_STORE: "rediss+sentinel://:hunter22@s1/m" }, "SVC_MCP_STORE", /TLS through Sentinel/],
        [
          { SVC_MCP_STORE: "redis+sentinel://:hunter22@s1/m", SVC_MCP_STORE_CLUSTER: "true" },
          "SVC_MCP_STORE_CLUSTER",
          /names Sentinels/,
        ],
        [
          { SVC_MCP_STORE: "redis://:hunter22@redis", SVC_MCP_STORE_SENTINEL_PASSWORD: "hunter22" },
          "SVC_MCP_STORE_SENTINEL_PASSWORD",
          /does not name Sentinels/,
        ],
        [{ SVC_MCP_STORE_SENTINEL_PASSWORD: "hunter22" }, "SVC_MCP_STORE_SENTINEL_PASSWORD", /does not name Sentinels/],
        [
          {
            SVC_MCP_STORE: "redis+sentinel://s1/m",
            SVC_MCP_STORE_SENTINEL_PASSWORD: "hunter22",
            SVC_MCP_STORE_SENTINEL_PASSWORD_FILE: "/nonexistent",
          },
          "SVC_MCP_STORE_SENTINEL_PASSWORD_FILE",
          /is set, and so is SVC_MCP_STORE_SENTINEL_PASSWORD/,
        ],
        [
          { SVC_MCP_STORE: "redis+sentinel://s1/m", SVC_MCP_STORE_SENTINEL_PASSWORD_FILE: "/nonexistent/pw" },
          "SVC_MCP_STORE_SENTINEL_PASSWORD_FILE",
          /cannot be read/,
        ],
        [{ SVC_MCP_STORE: "http://redis:6379" }, "SVC_MCP_STORE", /redis\+sentinel/],
      ]
      for (const [env, variable, problem] of cases) {
        const error = yield* Effect.flip(load({ SVC_MCP_STATE_KEY: STATE_KEY, ...env }))
        expect(error.variable).toBe(variable)
        expect(error.message).toMatch(problem)
        expect(error.message).not.toContain("hunter")
        expect(error.message).not.toContain("\n")
      }
      const noKey = yield* Effect.flip(load({ SVC_MCP_STORE: "redis+sentinel://s1/m" }))
      expect(noKey.variable).toBe("SVC_MCP_STORE")
      expect(noKey.message).toMatch(/SVC_MCP_STATE_KEY/)
    }),
  )
})
