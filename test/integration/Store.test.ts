/**
 * The shared store against a real redis-server (Debian's): its commands, the
 * single winner of concurrent takes, fast failures while it is down, the
 * connection coming back by itself, and its settings' refusals.
 */
import * as Crypto from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Bundle from "../../src/Bundle/All.js"
import * as RefusedKeys from "../../src/Callers/RefusedKeys.js"
import * as State from "../../src/Confirmation/State.js"
import * as Settings from "../../src/Settings/Store.js"
import * as Team from "../../src/Settings/Team.js"
import * as Store from "../../src/Store/Store.js"
import * as Redis from "../support/Redis.js"

const STATE_KEY = "0123456789abcdef0123456789abcdef-state-key"

const settingsFor = (url: string, prefix = "t:"): Settings.StoreSettings => ({
  url: Redacted.make(url),
  where: url,
  tls: false,
  password: Option.none(),
  prefix,
  cluster: false,
  cache: true,
  stateKey: Redacted.make(new Uint8Array(Buffer.from(STATE_KEY))),
})

const usingStore = <A, E>(
  url: string,
  use: (store: Store.StoreShape) => Effect.Effect<A, E>,
  prefix?: string,
  cluster = false,
  cache = true,
) => Effect.scoped(Effect.flatMap(Store.make({ ...settingsFor(url, prefix), cluster, cache }), use))

const until = async (condition: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error("condition not met in time")
}

let redis: Redis.RedisServer
beforeAll(async () => {
  redis = await Redis.start()
})
afterAll(() => redis.stop())

describe("Store over redis-server", () => {
  it.live("sets, gets, replaces only what is there, and sets only what is absent, under its prefix", () =>
    usingStore(
      redis.url,
      (store) =>
        Effect.gen(function* () {
          yield* store.set("a", "1", 10_000)
          expect(yield* store.get("a")).toEqual(Option.some("1"))
          expect(yield* Effect.promise(() => redis.command("GET", "p1:a"))).toBe("1")
          expect(yield* store.setIfAbsent("a", "2", 10_000)).toBe(false)
          expect(yield* store.setIfAbsent("b", "2", 10_000)).toBe(true)
          expect(yield* store.replaceIfPresent("a", "3", 10_000)).toEqual(Option.some("1"))
          expect(yield* store.get("a")).toEqual(Option.some("3"))
          expect(yield* store.replaceIfPresent("gone", "3", 10_000)).toEqual(Option.none())
          expect(yield* store.get("gone")).toEqual(Option.none())
          yield* store.remove("a")
          expect(yield* store.get("a")).toEqual(Option.none())
          yield* store.remove("b")
          expect(yield* store.get("b")).toEqual(Option.none())
          const ttl = Number(yield* Effect.promise(() => redis.command("PTTL", "p1:b")))
          expect(ttl).toBeLessThan(0)
          yield* store.set("c", "x", 10_000)
          const left = Number(yield* Effect.promise(() => redis.command("PTTL", "p1:c")))
          expect(left).toBeGreaterThan(9_000)
          expect(left).toBeLessThanOrEqual(10_000)
          expect((yield* store.status).up).toBe(true)
        }),
      "p1:",
    ),
  )

  it.live("of 50 concurrent replaces of one key, exactly one sees what was there before", () =>
    usingStore(redis.url, (store) =>
      Effect.gen(function* () {
        for (let round = 0; round < 5; round++) {
          yield* store.set(`once-${round}`, "v", 10_000)
          const got = yield* Effect.forEach(
            Array.from({ length: 50 }),
            () => store.replaceIfPresent(`once-${round}`, "taken", 10_000),
            { concurrency: "unbounded" },
          )
          expect(got.filter((was) => Option.contains(was, "v"))).toHaveLength(1)
          expect(got.filter((was) => Option.contains(was, "taken"))).toHaveLength(49)
        }
      }),
    ),
  )

  it.live("a read is answered from this process's copy until another client changes the key", () =>
    usingStore(redis.url, (one) =>
      usingStore(redis.url, (other) =>
        Effect.gen(function* () {
          const gets = async () => {
            const stats = String(await redis.command("INFO", "commandstats"))
            return Number(/cmdstat_get:calls=(\d+)/.exec(stats)?.[1] ?? 0)
          }
          // Absent keys too: most calls find no refusal and no window, and read nothing from the store.
          for (const value of [Option.none(), Option.some("1")]) {
            if (Option.isSome(value)) yield* other.set("copied", value.value, 60_000)
            yield* Effect.promise(() =>
              until(async () =>
                Option.getEquivalence((a: string, b: string) => a === b)(
                  await Effect.runPromise(one.get("copied")),
                  value,
                ),
              ),
            )
            const before = yield* Effect.promise(gets)
            for (let i = 0; i < 20; i++) expect(yield* one.get("copied")).toEqual(value)
            expect((yield* Effect.promise(gets)) - before).toBe(0)
          }
          // Changed by another client, or expired: the store says so, and the next read sees it.
          yield* other.set("copied", "2", 300)
          yield* Effect.promise(() =>
            until(async () => Option.contains(await Effect.runPromise(one.get("copied")), "2")),
          )
          yield* Effect.promise(() => until(async () => Option.isNone(await Effect.runPromise(one.get("copied")))))
        }),
      ),
    ),
  )

  it.live("SVC_MCP_STORE_CACHE=off: every read goes to the store", () =>
    usingStore(
      redis.url,
      (store) =>
        Effect.gen(function* () {
          const gets = async () =>
            Number(/cmdstat_get:calls=(\d+)/.exec(String(await redis.command("INFO", "commandstats")))?.[1] ?? 0)
          yield* store.set("uncached", "1", 60_000)
          const before = yield* Effect.promise(gets)
          for (let i = 0; i < 20; i++) expect(yield* store.get("uncached")).toEqual(Option.some("1"))
          expect((yield* Effect.promise(gets)) - before).toBe(20)
        }),
      undefined,
      false,
      false,
    ),
  )

  it.live("keyed hashes are stable, differ by text, and never hold the text", () =>
    usingStore(redis.url, (store) =>
      Effect.sync(() => {
        // Every replica's, across versions: HMAC-SHA256 under the state key, of the text after the store's label.
        const expected = Crypto.createHmac("sha256", Buffer.from(STATE_KEY))
          .update("svc-mcp store key\u0000")
          .update("fingerprint")
          .digest("base64url")
        expect(store.keyed("fingerprint")).toBe(expected)
        expect(store.keyed("fingerprint")).toBe(expected)
        expect(store.keyed("fingerprint")).not.toBe(store.keyed("fingerprinT"))
        expect(store.keyed("fingerprint")).not.toContain("fingerprint")
        expect(store.keyed("fingerprint")).toMatch(/^[\w-]{43}$/)
      }),
    ),
  )

  it.live("down: commands fail fast with StoreError; back, empty: answers again with no new client", () =>
    usingStore(redis.url, (store) =>
      Effect.gen(function* () {
        yield* store.set("k", "v", 60_000)
        // Read first, so that this process holds a copy: one lost with the connection, never answered while down.
        expect(yield* store.get("k")).toEqual(Option.some("v"))
        yield* Effect.promise(() => redis.kill())
        const started = Date.now()
        const failed = yield* Effect.exit(store.replaceIfPresent("k", "w", 60_000))
        expect(Date.now() - started).toBeLessThan(Store.COMMAND_TIMEOUT_MS + 1_000)
        expect(Exit.isFailure(failed)).toBe(true)
        // Once the connection is known lost, so is the copy: a read fails rather than answer from it.
        yield* Effect.promise(() => until(async () => !(await Effect.runPromise(store.status)).up))
        expect(Exit.isFailure(yield* Effect.exit(store.get("k")))).toBe(true)
        const error = yield* Effect.flip(store.replaceIfPresent("k", "w", 60_000))
        expect(error._tag).toBe("StoreError")
        expect(error.message).toMatch(/^the shared store did not answer \(replace: /)
        const status = yield* store.status
        expect(status.up).toBe(false)
        expect(status.detail).toBeDefined()
        yield* Effect.promise(() => redis.restart())
        yield* Effect.promise(() => until(async () => (await Effect.runPromise(store.status)).up))
        // Empty: what was there before is gone, and new keys work.
        expect(yield* store.get("k")).toEqual(Option.none())
        yield* store.set("k2", "v2", 60_000)
        expect(yield* store.get("k2")).toEqual(Option.some("v2"))
      }),
    ),
  )

  it.live("stalled (SIGSTOP): every command fails at its time-out, the status says down; SIGCONT: answers again", () =>
    Effect.gen(function* () {
      const stalling = yield* Effect.promise(() => Redis.start())
      yield* usingStore(
        stalling.url,
        (store) =>
          Effect.gen(function* () {
            yield* store.set("k", "v", 60_000)
            stalling.pause()
            // The connection stays open and says nothing: each command ends at the store's own time-out,
            // well within the generous bound put around it here, rather than waiting on the socket.
            const bounded = <A>(effect: Effect.Effect<A, Store.StoreError>) =>
              Effect.flip(Effect.timeoutFail(effect, { duration: "5 seconds", onTimeout: () => "hung" as const }))
            for (const command of [
              store.get("absent"),
              store.set("k", "w", 60_000),
              store.setIfAbsent("lock", "1", 60_000),
              store.replaceIfPresent("k", "w", 60_000),
              store.remove("k"),
            ] as ReadonlyArray<Effect.Effect<unknown, Store.StoreError>>) {
              const error = yield* bounded(command)
              expect(error).not.toBe("hung")
              expect((error as Store.StoreError).detail).toBe(`no answer within ${Store.COMMAND_TIMEOUT_MS} ms`)
            }
            expect(yield* store.status).toMatchObject({
              up: false,
              detail: `no answer within ${Store.COMMAND_TIMEOUT_MS} ms`,
            })
            stalling.resume()
            yield* Effect.promise(() => until(async () => (await Effect.runPromise(store.status)).up))
            // A command that timed out may still be done once the store wakes: its outcome is unknown,
            // which is why each caller takes the failure as the outcome that risks nothing.
            yield* store.set("after", "1", 60_000)
            expect(yield* store.get("after")).toEqual(Option.some("1"))
          }),
        "stall:",
      ).pipe(Effect.ensuring(Effect.promise(() => stalling.stop())))
    }),
  )

  it.live("unreachable at start: made all the same, and it connects once the store answers", () =>
    Effect.gen(function* () {
      const later = yield* Effect.promise(() => Redis.start())
      yield* Effect.promise(() => later.kill())
      yield* usingStore(later.url, (store) =>
        Effect.gen(function* () {
          expect((yield* store.status).up).toBe(false)
          expect((yield* Effect.flip(store.get("x")))._tag).toBe("StoreError")
          yield* Effect.promise(() => later.restart())
          yield* Effect.promise(() => until(async () => (await Effect.runPromise(store.status)).up))
          yield* store.set("x", "1", 1_000)
          expect(yield* store.get("x")).toEqual(Option.some("1"))
        }),
      ).pipe(Effect.ensuring(Effect.promise(() => later.stop())))
    }),
  )
})

const binding: State.Binding = { tool: "svc_delete", selector: "tag", args: { id: "prod" }, principal: "key:k" }
const stateKey = Redacted.make(new Uint8Array(Buffer.from(STATE_KEY)))
const outcome = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.either(effect), (result) =>
    result._tag === "Right"
      ? "Honoured"
      : ((result.left as { reason?: string; _tag: string }).reason ?? (result.left as { _tag: string })._tag),
  )

describe("confirmations through the store", () => {
  it.live("two processes: asked by one, honoured once by the other; of 20 concurrent answers exactly one wins", () =>
    usingStore(redis.url, (store) =>
      Effect.gen(function* () {
        const [one, two] = yield* Effect.all([State.make(stateKey), State.make(stateKey)]).pipe(
          Effect.provideService(Store.Store, Option.some(store)),
        )
        const state = yield* one.seal(binding)
        const results = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two)),
          (states) => outcome(states.verify(state, binding)),
          { concurrency: "unbounded" },
        )
        expect(results.filter((r) => r === "Honoured")).toHaveLength(1)
        // The winner's call is out and not yet recorded as done: the others are told it was sent.
        expect(results.filter((r) => r === "Sent").length + results.filter((r) => r === "Reused").length).toBe(19)
        expect(yield* outcome(two.verify(state, binding))).toBe("Sent")
      }),
    ),
  )

  it.live(
    "a replay while the call is out is refused as sent; once its outcome is recorded, asked again; a store that lost its data honours nothing old",
    () =>
      usingStore(
        redis.url,
        (store) =>
          Effect.gen(function* () {
            const states = yield* State.make(stateKey).pipe(Effect.provideService(Store.Store, Option.some(store)))
            const state = yield* states.seal(binding)
            const honoured = yield* states.verify(state, binding)
            expect(yield* outcome(states.verify(state, binding))).toBe("Sent")
            yield* honoured.sent
            const nonce = JSON.parse(Buffer.from(state.split(".")[0] ?? "", "base64url").toString("utf8")).n
            const record = () => redis.command("GET", `replay:confirm:${nonce}`)
            yield* Effect.promise(() => until(async () => (await record()) === "done"))
            expect(yield* outcome(states.verify(state, binding))).toBe("Reused")
            // The replay that lost leaves the record as its call left it.
            yield* Effect.promise(() => until(async () => (await record()) === "done"))
            expect(yield* outcome(states.verify(state, binding))).toBe("Reused")
            const older = yield* states.seal(binding)
            yield* Effect.promise(() => redis.command("FLUSHALL"))
            expect(yield* outcome(states.verify(older, binding))).toBe("Reused")
          }),
        "replay:",
      ),
  )

  it.live("a store that does not answer: no question is sealed and no answer honoured (fail closed)", () =>
    Effect.gen(function* () {
      const gone = yield* Effect.promise(() => Redis.start())
      yield* usingStore(gone.url, (store) =>
        Effect.gen(function* () {
          const states = yield* State.make(stateKey).pipe(Effect.provideService(Store.Store, Option.some(store)))
          const state = yield* states.seal(binding)
          yield* Effect.promise(() => gone.kill())
          expect(yield* outcome(states.verify(state, binding))).toBe("ConfirmationUnrecorded")
          expect(yield* outcome(states.seal(binding))).toBe("ConfirmationUnrecorded")
        }),
      ).pipe(Effect.ensuring(Effect.promise(() => gone.stop())))
    }),
  )
})

describe("an embedding program that provides the store", () => {
  it.live("has single use of a confirmation across its replicas, naming nothing of the confirmations", () =>
    usingStore(redis.url, (store) =>
      Effect.gen(function* () {
        // Two replicas: the tools' bundle built twice, over the store and the replicas' one key.
        const replica = Bundle.tools.pipe(
          Layer.provide(Layer.succeed(Store.Store, Option.some(store))),
          Layer.provide(Layer.succeed(Team.TeamSettings, { ...Team.DEFAULT, stateKey: Option.some(stateKey) })),
        )
        const [one, two] = yield* Effect.all([Layer.build(replica), Layer.build(replica)]).pipe(
          Effect.map((built) => built.map((context) => Context.get(context, State.ConfirmationState))),
        )
        const state = yield* (one as State.ConfirmationStateShape).seal(binding)
        expect(yield* outcome((two as State.ConfirmationStateShape).verify(state, binding))).toBe("Honoured")
        // The first replica never saw it answered, and refuses it all the same: the store remembers.
        expect(["Sent", "Reused"]).toContain(
          yield* outcome((one as State.ConfirmationStateShape).verify(state, binding)),
        )
      }).pipe(Effect.scoped, Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))),
    ),
  )
})

describe("refused keys through the store", () => {
  it.live(
    "one process's refusal is known to another, and ended by its own success; a store that does not answer falls back to each one's own",
    () =>
      Effect.gen(function* () {
        const own = yield* Effect.promise(() => Redis.start())
        yield* usingStore(own.url, (store) =>
          Effect.gen(function* () {
            const [one, two] = yield* Effect.all([RefusedKeys.make, RefusedKeys.make]).pipe(
              Effect.provideService(Store.Store, Option.some(store)),
            )
            yield* one.refused("fingerprint-1")
            expect(Option.isSome(yield* two.check("fingerprint-1"))).toBe(true)
            const held = yield* Effect.promise(() => own.command("KEYS", "*"))
            expect(held).not.toContain("fingerprint-1")
            // Another process's success (a call it sent while the refusal was being recorded) leaves the
            // refusal standing, the cautious side; the success of the process that refused the key ends it.
            yield* two.succeeded("fingerprint-1")
            expect(Option.isSome(yield* one.check("fingerprint-1"))).toBe(true)
            yield* one.succeeded("fingerprint-1")
            expect(Option.isNone(yield* two.check("fingerprint-1"))).toBe(true)
            yield* Effect.promise(() => own.kill())
            yield* one.refused("fingerprint-2")
            expect(Option.isSome(yield* one.check("fingerprint-2"))).toBe(true)
            expect(Option.isNone(yield* two.check("fingerprint-2"))).toBe(true)
          }),
        ).pipe(Effect.ensuring(Effect.promise(() => own.stop())))
      }),
  )
})

describe("a Redis Cluster (SVC_MCP_STORE_CLUSTER=true)", () => {
  it.live("keys spread over its nodes, each command at its slot; concurrent answers: exactly one honoured", () =>
    Effect.gen(function* () {
      const cluster = yield* Effect.promise(() => Redis.startCluster())
      yield* usingStore(
        cluster.url,
        (store) =>
          Effect.gen(function* () {
            for (let i = 0; i < 30; i++) yield* store.set(`k${i}`, String(i), 60_000)
            const sizes = yield* Effect.promise(() => Promise.all(cluster.nodes.map((node) => node.command("DBSIZE"))))
            expect(sizes.filter((size) => Number(size) > 0).length).toBeGreaterThan(1)
            for (let i = 0; i < 30; i++) expect(yield* store.get(`k${i}`)).toEqual(Option.some(String(i)))
            expect((yield* store.status).up).toBe(true)
            const [one, two] = yield* Effect.all([State.make(stateKey), State.make(stateKey)]).pipe(
              Effect.provideService(Store.Store, Option.some(store)),
            )
            for (let round = 0; round < 5; round++) {
              const state = yield* one.seal(binding)
              const results = yield* Effect.forEach(
                Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : two)),
                (states) => outcome(states.verify(state, binding)),
                { concurrency: "unbounded" },
              )
              expect(results.filter((r) => r === "Honoured")).toHaveLength(1)
            }
          }),
        "c:",
        true,
      ).pipe(Effect.ensuring(Effect.promise(() => cluster.stop())))
    }),
  )
})

const load = (env: Record<string, string>) =>
  Settings.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("Store settings", () => {
  it.effect("unset: no store; set: the URL, the default prefix, the shared key", () =>
    Effect.gen(function* () {
      expect(yield* load({})).toEqual(Option.none())
      const settings = yield* load({ SVC_MCP_STORE: "redis://:pw@redis:6380/2", SVC_MCP_STATE_KEY: STATE_KEY })
      const value = Option.getOrThrow(settings)
      expect(value.where).toBe("redis://redis:6380/2")
      expect(value.prefix).toBe(Settings.DEFAULT_PREFIX)
      expect(value.tls).toBe(false)
      const tls = Option.getOrThrow(
        yield* load({ SVC_MCP_STORE: "rediss://cache", SVC_MCP_STATE_KEY: STATE_KEY, SVC_MCP_STORE_PREFIX: "a:" }),
      )
      expect(tls.where).toBe("rediss://cache:6379")
      expect(tls.tls).toBe(true)
      expect(tls.prefix).toBe("a:")
      expect(tls.cluster).toBe(false)
      expect(tls.cache).toBe(true)
      const uncached = yield* load({
        SVC_MCP_STORE: "redis://n1",
        SVC_MCP_STATE_KEY: STATE_KEY,
        SVC_MCP_STORE_CACHE: "off",
      })
      expect(Option.getOrThrow(uncached).cache).toBe(false)
      const cluster = yield* load({
        SVC_MCP_STORE: "redis://n1",
        SVC_MCP_STATE_KEY: STATE_KEY,
        SVC_MCP_STORE_CLUSTER: "TRUE",
      })
      expect(Option.getOrThrow(cluster).cluster).toBe(true)
    }),
  )

  it.effect("a malformed setting is refused in one line that names it, never quoting a password", () =>
    Effect.gen(function* () {
      const refused = (env: Record<string, string>) => Effect.flip(load({ SVC_MCP_STATE_KEY: STATE_KEY, ...env }))
      const cases: ReadonlyArray<[Record<string, string>, string, RegExp]> = [
        [{ SVC_MCP_STORE: "http://redis:6379" }, "SVC_MCP_STORE", /scheme "http"/],
        [{ SVC_MCP_STORE: "redis://:hunter22@" }, "SVC_MCP_STORE", /not a URL|names no host/],
        [{ SVC_MCP_STORE: "redis://:hunter22@redis/x" }, "SVC_MCP_STORE", /database number/],
        [{ SVC_MCP_STORE: "redis://redis", SVC_MCP_STORE_PREFIX: "a b" }, "SVC_MCP_STORE_PREFIX", /"a b"/],
        [{ SVC_MCP_STORE: "redis://redis", SVC_MCP_STORE_CLUSTER: "yes" }, "SVC_MCP_STORE_CLUSTER", /"yes"/],
        [{ SVC_MCP_STORE: "redis://redis", SVC_MCP_STORE_CACHE: "no" }, "SVC_MCP_STORE_CACHE", /"no"/],
        [
          { SVC_MCP_STORE: "redis://redis", SVC_MCP_STORE_PASSWORD_FILE: "/nonexistent/pw" },
          "SVC_MCP_STORE_PASSWORD_FILE",
          /cannot be read/,
        ],
      ]
      for (const [env, variable, problem] of cases) {
        const error = yield* refused(env)
        expect(error.variable).toBe(variable)
        expect(error.message).toMatch(problem)
        expect(error.message).not.toContain("hunter22")
        expect(error.message).not.toContain("\n")
      }
      const noKey = yield* Effect.flip(load({ SVC_MCP_STORE: "redis://redis" }))
      expect(noKey.variable).toBe("SVC_MCP_STORE")
      expect(noKey.message).toMatch(/SVC_MCP_STATE_KEY/)
    }),
  )
})
