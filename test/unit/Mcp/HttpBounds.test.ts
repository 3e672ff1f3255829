/**
 * The bounds of serving over HTTP, without a network: a session's token is
 * bound to the whole credential, has one spelling and an expiry, and ends with
 * the token it was issued under; open questions are bounded per session, per
 * principal and in all, each for its lifetime; a cancellation's reason is cut;
 * the settings of these bounds refuse a malformed value in one line.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as FastCheck from "fast-check"
import * as CallContext from "../../../src/Call/Context.js"
import * as Answers from "../../../src/Mcp/Asking/Answers.js"
import * as Session from "../../../src/Mcp/Asking/Session.js"
import * as HttpGate from "../../../src/Mcp/Http/HttpGate.js"
import * as Token from "../../../src/Mcp/Http/Token.js"
import * as HttpSettings from "../../../src/Settings/Http.js"
import { property } from "../../support/Property.js"

const KEY = Redacted.make(new Uint8Array(32).fill(7))
const DAY = 86_400_000

const caller = (key: string, secret: string): CallContext.CallContext => ({
  ...CallContext.empty,
  credentials: { _tag: "Caller", caller: { key, secret: Redacted.make(secret) } },
})

const clock = (start: number) => {
  let now = start
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms
    },
  }
}

describe("a session token", () => {
  const TOKEN = Token.bindingOf(Option.some("the-server-token-0123456789"))

  it("opens with the credential it was issued for, and with no other secret of the same key", () => {
    const sessions = Session.make(KEY, { lifetimeMs: DAY })
    const alice = Session.credentialOf(caller("alice", "secret-1"), TOKEN)
    const token = sessions.issue(alice, "2025-11-25", { elicitation: {} })
    expect(Option.isSome(sessions.open(token, alice))).toBe(true)
    expect(sessions.open(token, Session.credentialOf(caller("alice", "secret-2"), TOKEN))).toEqual(Option.none())
    expect(sessions.open(token, Session.credentialOf(caller("bob", "secret-1"), TOKEN))).toEqual(Option.none())
  })

  it("ends once SVC_MCP_TOKEN changes, even under the same state key", () => {
    const sessions = Session.make(KEY, { lifetimeMs: DAY })
    const before = Session.credentialOf(CallContext.empty, TOKEN)
    const token = sessions.issue(before, "2025-11-25", {})
    const after = Session.credentialOf(CallContext.empty, Token.bindingOf(Option.some("a-new-token-0123456789abc")))
    expect(Option.isSome(sessions.open(token, before))).toBe(true)
    expect(sessions.open(token, after)).toEqual(Option.none())
  })

  it("expires after its lifetime, and is not honoured from too far ahead", () => {
    const time = clock(1_800_000_000_000)
    const sessions = Session.make(KEY, { lifetimeMs: DAY, now: time.now })
    const credential = Session.credentialOf(CallContext.empty, "")
    const token = sessions.issue(credential, "2025-11-25", {})
    time.advance(DAY - 2_000)
    expect(Option.isSome(sessions.open(token, credential))).toBe(true)
    time.advance(2_000)
    expect(sessions.open(token, credential)).toEqual(Option.none())
    const early = Session.make(KEY, { lifetimeMs: DAY, now: () => 1_800_000_000_000 - 120_000 })
    expect(early.open(sessions.issue(credential, "2025-11-25", {}), credential)).toEqual(Option.none())
  })

  property(
    "has one spelling: any other text for its signature opens nothing",
    [FastCheck.string({ minLength: 1, maxLength: 30 }), FastCheck.nat({ max: 40 })],
    ([other, at]) => {
      const sessions = Session.make(KEY, { lifetimeMs: DAY })
      const credential = Session.credentialOf(CallContext.empty, "")
      const token = sessions.issue(credential, "2025-11-25", {})
      const dot = token.lastIndexOf(".")
      const signature = token.slice(dot + 1)
      const spelled = `${signature.slice(0, at)}${other}${signature.slice(at)}`
      FastCheck.pre(spelled !== signature)
      expect(Option.isSome(sessions.open(token, credential))).toBe(true)
      expect(sessions.open(`${token.slice(0, dot + 1)}${spelled}`, credential)).toEqual(Option.none())
    },
  )

  it("refuses the spellings a lenient base64url decoder takes: padding, spare bits, stray characters", () => {
    const sessions = Session.make(KEY, { lifetimeMs: DAY })
    const credential = Session.credentialOf(CallContext.empty, "")
    const token = sessions.issue(credential, "2025-11-25", {})
    const dot = token.lastIndexOf(".")
    const head = token.slice(0, dot + 1)
    const signature = token.slice(dot + 1)
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    const last = alphabet.indexOf(signature.at(-1) as string)
    const spellings = [
      `${signature}==`,
      `${signature}=`,
      `${signature} `,
      `${signature.slice(0, 11)}!${signature.slice(11)}`,
      `${signature.slice(0, -1)}${alphabet[last ^ 1]}`,
      `${signature.slice(0, -1)}${alphabet[last ^ 2]}`,
      signature.replace(/-/g, "+").replace(/_/g, "/"),
    ].filter((s) => s !== signature)
    expect(spellings.length).toBeGreaterThan(5)
    for (const spelled of spellings) expect(sessions.open(`${head}${spelled}`, credential)).toEqual(Option.none())
    expect(Option.isSome(sessions.open(token, credential))).toBe(true)
  })
})

describe("open questions", () => {
  const limits = { questionsPerSession: 2, questionsPerPrincipal: 3, questions: 4, questionMs: 60_000 }
  const answersOf = (overrides: Partial<typeof limits> = {}) =>
    Answers.make({
      key: KEY,
      store: Option.none(),
      run: Effect.runPromise,
      warn: () => {},
      limits: { ...limits, ...overrides },
    })

  it("are refused at once past the session's, the principal's and the server's bound, and let go make room", () => {
    const answers = answersOf()
    const ask = (session: string, principal: string) => answers.question({ session, principal }, () => {})
    const s1 = [ask("s1", "p1"), ask("s1", "p1")]
    expect(s1.map((q) => q._tag)).toEqual(["Asked", "Asked"])
    const third = ask("s1", "p1")
    expect(third).toMatchObject({ _tag: "Refused", reason: expect.stringContaining("SVC_MCP_QUESTIONS_PER_SESSION=2") })
    expect(ask("s2", "p1")._tag).toBe("Asked")
    expect(ask("s3", "p1")).toMatchObject({ reason: expect.stringContaining("SVC_MCP_QUESTIONS_PER_PRINCIPAL=3") })
    expect(ask("s4", "p2")._tag).toBe("Asked")
    expect(ask("s5", "p3")).toMatchObject({ reason: expect.stringContaining("SVC_MCP_QUESTIONS_MAX=4") })
    const first = s1[0]
    if (first?._tag !== "Asked") throw new Error("the first question was not asked")
    first.release()
    expect(ask("s1", "p1")._tag).toBe("Asked")
  })

  it("end after their lifetime with an error the call receives", async () => {
    const answers = answersOf({ questionMs: 30 })
    const delivered = new Promise<unknown>((resolve) => {
      answers.question({ session: "s", principal: "p" }, resolve)
    })
    expect(await delivered).toMatchObject({
      error: { message: expect.stringContaining("no answer within 0 s (SVC_MCP_QUESTION_TIMEOUT)") },
    })
    expect(answers.question({ session: "s", principal: "p" }, () => {})._tag).toBe("Asked")
  })
})

describe("a cancellation", () => {
  it("reaches the call in flight with its reason cut to a few hundred characters", async () => {
    const answers = Answers.make({
      key: KEY,
      store: Option.none(),
      run: Effect.runPromise,
      warn: () => {},
      limits: HttpSettings.DEFAULT_LIMITS,
    })
    const reasons: Array<string | undefined> = []
    answers.call({ session: "s", principal: "p" }, 7, (reason) => reasons.push(reason))
    await answers.cancel({ session: "s", principal: "p" }, 7, "x".repeat(1_000_000))
    expect(reasons).toEqual(["x".repeat(Answers.MAX_REASON_CHARS)])
    expect(Answers.MAX_REASON_CHARS).toBeLessThanOrEqual(512)
  })
})

describe("the Host header", () => {
  it("names a host and a port, nothing else", () => {
    for (const host of ["127.0.0.1:8765", "localhost", "[::1]:80", "mcp.example.com", "10.0.0.5:443"]) {
      expect(HttpGate.validHost(host)).toBe(true)
    }
    for (const host of ["evil.com@127.0.0.1", "a b", "x/y", "", "[::1", "127.0.0.1:80:80", undefined]) {
      expect(HttpGate.validHost(host)).toBe(false)
    }
  })

  it("may be missing from an HTTP/1.0 request (a load balancer's health check), never from HTTP/1.1", () => {
    expect(HttpGate.hostAcceptable({ headers: {}, httpVersion: "1.0" })).toBe(true)
    expect(HttpGate.hostAcceptable({ headers: {}, httpVersion: "1.1" })).toBe(false)
    expect(HttpGate.hostAcceptable({ headers: { host: "evil.com@127.0.0.1" }, httpVersion: "1.0" })).toBe(false)
    expect(HttpGate.hostAcceptable({ headers: { host: "127.0.0.1:8765" }, httpVersion: "1.1" })).toBe(true)
  })
})

describe("the settings of the bounds", () => {
  const load = (env: Record<string, string>) =>
    HttpSettings.load(Option.some(8765)).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    )

  it.effect("default as docs/configuration.md says, and read durations with their units", () =>
    Effect.gen(function* () {
      const defaults = yield* load({})
      expect(Option.map(defaults, (s) => s.limits)).toEqual(
        Option.some({
          questionsPerSession: 4,
          questionsPerPrincipal: 32,
          questions: 256,
          questionMs: 300_000,
          sessionMs: 86_400_000,
          maxConnections: 1024,
          requestMs: 30_000,
        }),
      )
      const given = yield* load({
        SVC_MCP_QUESTION_TIMEOUT: "90s",
        SVC_MCP_SESSION_LIFETIME: "8h",
        SVC_MCP_REQUEST_TIMEOUT: "2m",
        SVC_MCP_MAX_CONNECTIONS: "50",
      })
      expect(Option.map(given, (s) => s.limits)).toMatchObject(
        Option.some({ questionMs: 90_000, sessionMs: 8 * 3_600_000, requestMs: 120_000, maxConnections: 50 }),
      )
    }),
  )

  it.effect.each<readonly [string, string]>([
    ["SVC_MCP_QUESTION_TIMEOUT", "10m"],
    ["SVC_MCP_QUESTION_TIMEOUT", "soon"],
    ["SVC_MCP_SESSION_LIFETIME", "0"],
    ["SVC_MCP_REQUEST_TIMEOUT", "-1s"],
    ["SVC_MCP_MAX_CONNECTIONS", "many"],
    ["SVC_MCP_QUESTIONS_PER_SESSION", "0"],
    ["SVC_MCP_QUESTIONS_PER_PRINCIPAL", "1.5"],
    ["SVC_MCP_QUESTIONS_MAX", "-3"],
  ])("%s=%s is refused in one line naming it", ([variable, value]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(load({ [variable]: value }))
      expect(error.variable).toBe(variable)
      expect(error.message).not.toContain("\n")
      expect(error.message).toContain(JSON.stringify(value))
    }),
  )
})
