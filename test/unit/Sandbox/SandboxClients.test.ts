/**
 * The sandbox counts failed authentications per client, as the service does:
 * by the first X-Forwarded-For entry, else X-Real-IP, else the TCP peer, the
 * headers believed only from a private or loopback peer. Callers come from
 * distinct loopback addresses.
 */
import * as Http from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { callerAddress } from "../../../src/Callers/Address.js"
import * as RefusedKeys from "../../../src/Callers/RefusedKeys.js"
import { clientAddress, isPrivateOrLoopback } from "../../../src/Sandbox/ClientAddress.js"
import * as Store from "../../../src/Store/Store.js"
import * as Sandboxes from "../../support/Sandbox.js"
import * as Servers from "../../support/Servers.js"

interface Reply {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  readonly body: any
  readonly headers: Http.IncomingHttpHeaders
}

/** A POST from `from` (a loopback address this machine answers on). */
const postFrom = (url: string, from: string, path: string, headers: Record<string, string>) =>
  Effect.async<Reply>((resume) => {
    const body = "{}"
    const req = Http.request(
      path === "" ? url : `${url}/${path}`,
      {
        method: "POST",
        localAddress: from,
        agent: false,
        headers: { "content-type": "application/json", "content-length": body.length, ...headers },
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          resume(
            Effect.succeed({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
              headers: res.headers,
            }),
          ),
        )
      },
    )
    req.on("error", (error) => resume(Effect.die(error)))
    req.end(body)
  })

const key = (k: { key: string; secret: string }) => ({ "x-api-key": k.key, "x-api-secret": k.secret })
const WRONG = key({ key: "wrong", secret: "wrong" })

describe("the sandbox's failure limit, per client", () => {
  it.scopedLive("seven bad keys from one address lock that address only; the others are still served", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const call = (from: string, headers: Record<string, string>) =>
        postFrom(sandbox.url, from, "read/ListStacks", headers)
      const answers: Array<Reply> = []
      for (let i = 0; i < 7; i++) answers.push(yield* call("127.0.0.2", WRONG))
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429, 429])
      expect(answers[4]?.body).toEqual({
        error: "Invalid user credentials | You have 0 attempts remaining",
        trace: [],
      })
      // The service's words, and no Retry-After header: it sends none.
      expect(answers[5]?.body.error).toMatch(/^Too many attempts \| Try again in (1[0-5]|[1-9])s$/)
      expect(answers[5]?.headers["retry-after"]).toBeUndefined()
      // The right key from the locked address is refused too; from the others it is served.
      expect((yield* call("127.0.0.2", key(sandbox.apiKey))).status).toBe(429)
      expect((yield* call("127.0.0.3", key(sandbox.apiKey))).status).toBe(200)
      expect((yield* call("127.0.0.4", key(sandbox.viewer.apiKey))).status).toBe(200)
      // And another address's first failure has its whole budget.
      expect((yield* call("127.0.0.3", WRONG)).body.error).toBe(
        "Invalid user credentials | You have 4 attempts remaining",
      )
    }),
  )

  it.scopedLive("a loopback peer's X-Forwarded-For (first entry) names the client, else its X-Real-IP", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const call = (from: string, headers: Record<string, string>) =>
        postFrom(sandbox.url, from, "read/ListStacks", headers)
      // A proxy on 127.0.0.5 fails five times for the client 203.0.113.7.
      for (let i = 0; i < 5; i++) {
        yield* call("127.0.0.5", { ...WRONG, "x-forwarded-for": "203.0.113.7, 10.0.0.9" })
      }
      // That client is locked whichever proxy it comes through, and by X-Real-IP alike.
      const viaOther = yield* call("127.0.0.6", { ...key(sandbox.apiKey), "x-forwarded-for": "203.0.113.7" })
      expect(viaOther.status).toBe(429)
      expect((yield* call("127.0.0.6", { ...key(sandbox.apiKey), "x-real-ip": "203.0.113.7" })).status).toBe(429)
      // X-Forwarded-For wins over X-Real-IP.
      const both = { ...key(sandbox.apiKey), "x-forwarded-for": "198.51.100.1", "x-real-ip": "203.0.113.7" }
      expect((yield* call("127.0.0.6", both)).status).toBe(200)
      // The proxy itself, and the last entry of the chain, are not.
      expect((yield* call("127.0.0.5", key(sandbox.apiKey))).status).toBe(200)
      expect((yield* call("127.0.0.5", { ...key(sandbox.apiKey), "x-forwarded-for": "10.0.0.9" })).status).toBe(200)
    }),
  )
})

describe("the client address the sandbox counts", () => {
  const request = (remoteAddress: string, headers: Http.IncomingHttpHeaders) =>
    ({ socket: { remoteAddress }, headers }) as unknown as Http.IncomingMessage

  it("believes the headers only from a private or loopback peer", () => {
    const headers = { "x-forwarded-for": "203.0.113.7", "x-real-ip": "198.51.100.1" }
    expect(clientAddress(request("127.0.0.2", headers))).toBe("203.0.113.7")
    expect(clientAddress(request("10.1.2.3", headers))).toBe("203.0.113.7")
    expect(clientAddress(request("::ffff:192.168.1.4", headers))).toBe("203.0.113.7")
    expect(clientAddress(request("203.0.113.99", headers))).toBe("203.0.113.99")
    expect(clientAddress(request("::ffff:8.8.8.8", headers))).toBe("8.8.8.8")
    expect(clientAddress(request("127.0.0.2", { "x-real-ip": "198.51.100.1" }))).toBe("198.51.100.1")
    // A header that is not an address is passed over.
    expect(clientAddress(request("127.0.0.2", { "x-forwarded-for": "unknown" }))).toBe("127.0.0.2")
  })

  it("counts an IPv6 client by its /64 prefix", () => {
    expect(clientAddress(request("2001:db8:1:2::5", {}))).toBe("2001:0db8:0001:0002::/64")
    expect(clientAddress(request("2001:db8:1:2:ffff::9", {}))).toBe("2001:0db8:0001:0002::/64")
    expect(clientAddress(request("::1", { "x-forwarded-for": "2001:db8::1" }))).toBe("2001:0db8:0000:0000::/64")
  })

  it("knows the private and loopback ranges", () => {
    for (const a of ["127.0.0.1", "127.255.0.2", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.0.1", "::1"]) {
      expect(isPrivateOrLoopback(a), a).toBe(true)
    }
    for (const a of ["fd12::1", "fc00::2", "::ffff:10.0.0.1"]) expect(isPrivateOrLoopback(a), a).toBe(true)
    for (const a of ["172.15.0.1", "172.32.0.1", "192.169.0.1", "8.8.8.8", "2001:db8::1", "fe80::1", "not-an-ip"]) {
      expect(isPrivateOrLoopback(a), a).toBe(false)
    }
  })
})

describe("a server in front of the sandbox, for many callers", () => {
  /**
   * What the server does for each call over HTTP: it names its caller's address
   * in X-Forwarded-For (Callers/Address) and holds back a key the service
   * refused (Callers/RefusedKeys); `naming: false` is a server that does neither.
   */
  const front = (target: string, naming: boolean) =>
    Effect.acquireRelease(
      Effect.promise(async () => {
        const refused = Effect.runSync(RefusedKeys.make.pipe(Effect.provide(Store.layerOff)))
        const server = Http.createServer((req, res) => {
          const key = String(req.headers["x-api-key"] ?? "")
          const id = RefusedKeys.fingerprint(key, Redacted.make(String(req.headers["x-api-secret"] ?? "")))
          const answer = (status: number, body: unknown) => {
            res.writeHead(status, { "content-type": "application/json" })
            res.end(JSON.stringify(body))
          }
          const held = naming ? Effect.runSync(refused.check(id)) : Option.none()
          if (Option.isSome(held)) return answer(401, { error: RefusedKeys.describe(held.value), remembered: true })
          const address = callerAddress(req.socket.remoteAddress ?? "", req.headers, [])
          fetch(`${target}/read/ListStacks`, {
            method: "POST",
            body: "{}",
            headers: {
              "content-type": "application/json",
              "x-api-key": key,
              "x-api-secret": String(req.headers["x-api-secret"] ?? ""),
              ...(naming ? { "x-forwarded-for": address } : {}),
            },
          }).then(async (r) => {
            const body = await r.json()
            if (naming && r.status === 401) Effect.runSync(refused.refused(id))
            if (naming && r.status === 200) Effect.runSync(refused.succeeded(id))
            answer(r.status, body)
          })
        })
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
        return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }
      }),
      ({ server }) => Effect.promise(() => Servers.close(server)),
    )

  it.scopedLive("one caller's bad key spends only its own budget, once; the others are served", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { url } = yield* front(sandbox.url, true)
      const call = (from: string, headers: Record<string, string>) => postFrom(url, from, "", headers)
      const bad = yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7], () => call("127.0.0.2", WRONG))
      expect(bad[0]?.body.error).toBe("Invalid user credentials | You have 4 attempts remaining")
      // The next six are answered from memory: never sent, so never counted.
      for (const reply of bad.slice(1)) {
        expect(reply.status).toBe(401)
        expect(reply.body.remembered).toBe(true)
        expect(reply.body.error).toMatch(/^the service refused this API key at .+; remembered/)
      }
      expect((yield* call("127.0.0.3", key(sandbox.apiKey))).status).toBe(200)
      expect((yield* call("127.0.0.2", key(sandbox.apiKey))).status).toBe(200)
      // Another bad key from the first caller: its second counted failure.
      expect((yield* call("127.0.0.2", key({ key: "other", secret: "wrong" }))).body.error).toBe(
        "Invalid user credentials | You have 3 attempts remaining",
      )
      // A caller that names another address in its own headers is still counted as itself.
      for (let i = 0; i < 5; i++) {
        yield* call("127.0.0.4", { ...key({ key: `k${i}`, secret: "x" }), "x-forwarded-for": `198.51.100.${i}` })
      }
      expect((yield* call("127.0.0.4", key(sandbox.apiKey))).status).toBe(429)
      expect((yield* call("127.0.0.5", key(sandbox.apiKey))).status).toBe(200)
    }),
  )

  it.scopedLive("without naming callers, one caller's failures lock every caller out", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { url } = yield* front(sandbox.url, false)
      for (let i = 0; i < 5; i++) yield* postFrom(url, "127.0.0.2", "", WRONG)
      expect((yield* postFrom(url, "127.0.0.3", "", key(sandbox.apiKey))).status).toBe(429)
    }),
  )
})
