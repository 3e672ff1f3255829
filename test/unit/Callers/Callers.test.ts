/**
 * Who a caller is to the service: its address (the TCP peer, or behind a trusted
 * proxy the client the proxy reports, never what an untrusted caller claims),
 * CIDR matching for IPv4, IPv6 and IPv4-mapped IPv6, and a refused key held back
 * for the service's window.
 */
import * as Net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as FastCheck from "fast-check"
import { callerAddress } from "../../../src/Callers/Address.js"
import * as RefusedKeys from "../../../src/Callers/RefusedKeys.js"
import * as Team from "../../../src/Settings/Team.js"
import * as Cidr from "../../../src/Shared/Cidr.js"
import * as Store from "../../../src/Store/Store.js"
import { property } from "../../support/Property.js"

const cidr = (text: string) => Either.getOrThrow(Cidr.parse(text))
const ipv4 = FastCheck.ipV4()
const ipv6 = FastCheck.ipV6()
const ip = FastCheck.oneof(ipv4, ipv6)

/**
 * The expected values, written here apart from the code under test: an address
 * as its 128-bit number (IPv4 as its IPv4-mapped form), from the forms
 * fast-check writes (dotted quads, IPv6 groups with "::" and a dotted tail).
 */
const MAPPED = 0xffffn << 32n
const fromV4 = (text: string) => text.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n)
const toBigInt = (address: string): bigint => {
  if (!address.includes(":")) return MAPPED | fromV4(address)
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)
  const body = dotted === null ? address : `${address.slice(0, dotted.index)}0:0`
  const [head = "", tail] = body.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
  const n = groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n)
  return dotted === null ? n : (n & ~0xffffffffn) | fromV4(dotted[1] as string)
}
const sameBits = (a: string, b: string, bits: number) =>
  bits === 0 || toBigInt(a) >> BigInt(128 - bits) === toBigInt(b) >> BigInt(128 - bits)

/** The usual form of an address, as RFC 5952 has it: IPv4 (mapped too) dotted, IPv6 lower case, the longest run of zero groups as "::". */
const usual = (address: string): string => {
  const n = toBigInt(address)
  if (n >> 32n === 0xffffn) return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 0xffn)).join(".")
  const groups = Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16))
  const runs = groups.map((_, i) => {
    let j = i
    while (groups[j] === "0") j++
    return j - i
  })
  const longest = Math.max(...runs)
  if (longest < 2) return groups.join(":")
  const at = runs.indexOf(longest)
  return `${groups.slice(0, at).join(":")}::${groups.slice(at + longest).join(":")}`
}

/** In 10.0.0.0/8 or fd00::/8, the proxies below, by the numbers. */
const inProxies = (address: string) => {
  const n = toBigInt(address)
  return n >> 24n === (MAPPED | (10n << 24n)) >> 24n || n >> 120n === 0xfdn
}

describe("CIDR ranges", () => {
  property(
    "an IPv4 /n holds exactly the addresses that share its first n bits",
    { a: ipv4, b: ipv4, n: FastCheck.integer({ min: 0, max: 32 }) },
    ({ a, b, n }) => {
      expect(Cidr.contains(cidr(`${a}/${n}`), b)).toBe(sameBits(a, b, 96 + n))
      // The same address as an IPv4-mapped IPv6 peer is held alike.
      expect(Cidr.contains(cidr(`${a}/${n}`), `::ffff:${b}`)).toBe(sameBits(a, b, 96 + n))
    },
  )

  property(
    "an IPv6 /n holds exactly the addresses that share its first n bits",
    { a: ipv6, b: ip, n: FastCheck.integer({ min: 0, max: 128 }) },
    ({ a, b, n }) => {
      expect(Cidr.contains(cidr(`${a}/${n}`), b)).toBe(sameBits(a, b, n))
    },
  )

  property("a bare address holds itself only; formatting keeps the address", { a: ip, b: ip }, ({ a, b }) => {
    expect(Cidr.contains(cidr(a), a)).toBe(true)
    expect(Cidr.contains(cidr(a), b)).toBe(toBigInt(a) === toBigInt(b))
    const formatted = Option.getOrThrow(Cidr.normalize(a))
    expect(Net.isIP(formatted)).not.toBe(0)
    expect(formatted).toBe(usual(a))
  })

  it("reads the usual forms and refuses the rest", () => {
    expect(Cidr.contains(cidr("127.0.0.0/8"), "::ffff:127.0.0.2")).toBe(true)
    expect(Cidr.contains(cidr("::ffff:127.0.0.0/104"), "127.9.9.9")).toBe(true)
    expect(Cidr.contains(cidr("10.0.0.0/8"), "11.0.0.1")).toBe(false)
    expect(Cidr.contains(cidr("fd00::/8"), "fd12:3456::1")).toBe(true)
    expect(Cidr.contains(cidr("fd00::/8"), "fe80::1")).toBe(false)
    expect(Cidr.contains(cidr("0.0.0.0/0"), "2001:db8::1")).toBe(false)
    expect(Cidr.contains(cidr("::/0"), "2001:db8::1")).toBe(true)
    expect(Cidr.contains(cidr("10.0.0.0/8"), "not-an-ip")).toBe(false)
    expect(Cidr.normalize("::ffff:127.0.0.2")).toEqual(Option.some("127.0.0.2"))
    expect(Cidr.normalize("2001:0db8:0000:0000:0000:0000:0000:0001")).toEqual(Option.some("2001:db8::1"))
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0/8", "host.example", "10.0.0.0/8/8", "1.2.3.4/x"]) {
      expect(Either.isLeft(Cidr.parse(bad)), bad).toBe(true)
    }
  })
})

describe("the caller's address", () => {
  const proxies = [cidr("10.0.0.0/8"), cidr("fd00::/8")]

  property(
    "an untrusted peer is its own address, whatever it sends",
    { peer: ip.filter((a) => !inProxies(a)), claimed: FastCheck.array(ip), realIp: ip },
    ({ peer, claimed, realIp }) => {
      const headers = { "x-forwarded-for": claimed.join(", "), "x-real-ip": realIp }
      expect(callerAddress(peer, headers, proxies)).toBe(usual(peer))
      expect(callerAddress(peer, headers, [])).toBe(usual(peer))
    },
  )

  property(
    "behind trusted proxies, the rightmost untrusted entry of the chain; what the client put left of it is ignored",
    {
      forged: FastCheck.array(ip, { maxLength: 3 }),
      client: ip.filter((a) => !inProxies(a)),
      hops: FastCheck.array(FastCheck.constantFrom("10.1.2.3", "fd00::7", "10.9.9.9"), { maxLength: 3 }),
    },
    ({ forged, client, hops }) => {
      const headers = { "x-forwarded-for": [...forged, client, ...hops].join(", ") }
      expect(callerAddress("10.0.0.1", headers, proxies)).toBe(usual(client))
      expect(callerAddress("::ffff:10.0.0.1", headers, proxies)).toBe(usual(client))
    },
  )

  it("reads repeated headers as one chain, and stops at an entry that is no address", () => {
    expect(callerAddress("10.0.0.1", { "x-forwarded-for": ["198.51.100.1", "10.0.0.2"] }, proxies)).toBe("198.51.100.1")
    expect(callerAddress("10.0.0.1", { "x-forwarded-for": "198.51.100.1, garbage, 10.0.0.2" }, proxies)).toBe(
      "10.0.0.2",
    )
    // A trusted proxy that reports nothing: the proxy itself.
    expect(callerAddress("10.0.0.1", {}, proxies)).toBe("10.0.0.1")
    // Only trusted hops: the leftmost.
    expect(callerAddress("10.0.0.1", { "x-forwarded-for": "10.0.0.5, 10.0.0.2" }, proxies)).toBe("10.0.0.5")
    // X-Real-IP is never believed: only the chain a trusted proxy extends.
    expect(callerAddress("10.0.0.1", { "x-real-ip": "198.51.100.1" }, proxies)).toBe("10.0.0.1")
    expect(callerAddress("::ffff:127.0.0.2", { "x-forwarded-for": "198.51.100.1" }, [cidr("127.0.0.0/8")])).toBe(
      "198.51.100.1",
    )
    expect(callerAddress("::ffff:127.0.0.2", { "x-forwarded-for": "198.51.100.1" }, [])).toBe("127.0.0.2")
  })
})

describe("the team settings", () => {
  const load = (env: Record<string, string>) =>
    Effect.either(Team.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

  it.effect("read the state key and the trusted proxies, each malformed value refused in one line", () =>
    Effect.gen(function* () {
      const none = Either.getOrThrow(yield* load({}))
      expect(Option.isNone(none.stateKey)).toBe(true)
      expect(none.trustedProxies).toEqual([])
      const given = Either.getOrThrow(
        yield* load({ SVC_MCP_STATE_KEY: "x".repeat(32), SVC_MCP_TRUSTED_PROXIES: " 10.0.0.0/8, fd00::/8 ,127.0.0.1" }),
      )
      expect(given.trustedProxies.map((c) => c.text)).toEqual(["10.0.0.0/8", "fd00::/8", "127.0.0.1"])
      expect(Option.map(given.stateKey, (k) => Redacted.value(k).length)).toEqual(Option.some(32))
      const short = yield* load({ SVC_MCP_STATE_KEY: "short-secret-value" })
      expect(Either.isLeft(short) && short.left.message).toBe(
        "SVC_MCP_STATE_KEY is 18 bytes long, shorter than 32: give at least 32 random bytes, e.g. the output of `openssl rand -base64 48`",
      )
      expect(JSON.stringify(short)).not.toContain("short-secret-value")
      const bad = yield* load({ SVC_MCP_TRUSTED_PROXIES: "10.0.0.0/8,proxy.internal" })
      expect(Either.isLeft(bad) && bad.left.message).toBe(
        'SVC_MCP_TRUSTED_PROXIES holds "proxy.internal" is not an address or CIDR: give comma-separated addresses or CIDRs, e.g. SVC_MCP_TRUSTED_PROXIES=10.0.0.0/8,fd00::/8',
      )
      const both = yield* load({ SVC_MCP_STATE_KEY: "x".repeat(32), SVC_MCP_STATE_KEY_FILE: "/nonexistent" })
      expect(Either.isLeft(both) && both.left.variable).toBe("SVC_MCP_STATE_KEY_FILE")
    }),
  )
})

describe("refused keys", () => {
  const alice = RefusedKeys.fingerprint("alice-key", Redacted.make("alice-secret"))
  const bob = RefusedKeys.fingerprint("bob-key", Redacted.make("bob-secret"))

  it.effect("a refusal is remembered for 15 s; other keys are untouched; a success ends it", () =>
    Effect.gen(function* () {
      const keys = yield* RefusedKeys.make
      yield* TestClock.adjust("1000 millis")
      expect(yield* keys.check(alice)).toEqual(Option.none())
      yield* keys.refused(alice)
      expect(yield* keys.check(alice)).toEqual(Option.some({ at: 1000, until: 16_000 }))
      expect(yield* keys.check(bob)).toEqual(Option.none())
      yield* TestClock.adjust("14999 millis")
      const held = yield* keys.check(alice)
      expect(Option.map(held, RefusedKeys.describe)).toEqual(
        Option.some(
          "the service refused this API key at 1970-01-01T00:00:01.000Z; remembered, so it is not sent again until 1970-01-01T00:00:16.000Z",
        ),
      )
      yield* TestClock.adjust("1 millis")
      expect(yield* keys.check(alice)).toEqual(Option.none())
      yield* keys.refused(bob)
      yield* keys.succeeded(bob)
      expect(yield* keys.check(bob)).toEqual(Option.none())
    }).pipe(Effect.provide(Store.layerOff)),
  )

  property(
    "a fingerprint names the pair and holds neither part",
    {
      key: FastCheck.string({ minLength: 4 }),
      secret: FastCheck.string({ minLength: 4 }),
      other: FastCheck.string({ minLength: 4 }),
    },
    ({ key, secret, other }) => {
      const print = RefusedKeys.fingerprint(key, Redacted.make(secret))
      expect(print).not.toContain(secret)
      expect(print).toBe(RefusedKeys.fingerprint(key, Redacted.make(secret)))
      if (other !== secret) expect(RefusedKeys.fingerprint(key, Redacted.make(other))).not.toBe(print)
    },
  )
})
