/**
 * Fuzzing the protocol itself: arbitrary JSON-RPC messages (wrong types, huge and
 * fractional ids, unknown methods, batches, notifications with ids, responses to
 * requests never made, deep nesting, invalid UTF-8, garbage lines) sent to the
 * built server over stdio and over Streamable HTTP, in both protocol eras. Each is
 * answered or ignored as the protocol says, and the server serves on.
 *
 * The cases of one stdio era stream into one process; HTTP cases go a few at a
 * time. FUZZ_RUNS (200 by default; 10,000 for a longer run) is the total, split 30/30/20/20 between
 * stdio legacy, stdio 2026-07-28, HTTP legacy and HTTP 2026-07-28; FUZZ_SEED
 * replays a run.
 */
import * as ChildProcess from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { parseJSONRPCMessage } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import * as Spawn from "../support/Spawn.js"

const RUNS = Number(process.env.FUZZ_RUNS ?? 200)
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const SPLIT = { stdio: { legacy: 0.3, modern: 0.3 }, http: { legacy: 0.2, modern: 0.2 } }
/** In every case's content: it must never reach stderr. */
const MARKER = "fuzz-marker-7c1d"

type Era = "legacy" | "modern"
type Id = string | number

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// ---- the cases ----

type IdKind = "int" | "negative" | "string" | "long" | "fraction" | "huge" | "unsafe" | "null" | "object" | "none"

/** The id of case `i`, unique in its run, as JSON text. */
const idText = (kind: IdKind, i: number): string | undefined => {
  switch (kind) {
    case "int":
      return String(1_000_000 + i)
    case "negative":
      return String(-1 - i)
    case "string":
      return JSON.stringify(`c-${i}-${MARKER}`)
    case "long":
      return JSON.stringify(`${i}-${"é".repeat(300)}`)
    case "fraction":
      return `${i}.5`
    case "huge":
      return `${i + 1}e300`
    case "unsafe":
      // Past 2^53: the digits sent are not the double a parser keeps.
      return (2n ** 53n + 4n * BigInt(i) + 1n).toString()
    case "null":
      return "null"
    case "object":
      return `{"n":${i}}`
    case "none":
      return undefined
  }
}

const METHODS = [
  "ping",
  "tools/list",
  "tools/call",
  "initialize",
  "server/discover",
  "logging/setLevel",
  "resources/list",
  "prompts/get",
  "completion/complete",
  "no/such/method",
  "notifications/initialized",
  "notifications/progress",
  "notifications/roots/list_changed",
  "notifications/no-such",
]

const json = FastCheck.jsonValue({ maxDepth: 3 })
const shortText = FastCheck.string({ maxLength: 20 })

const toolArguments = FastCheck.oneof(
  json,
  FastCheck.record(
    {
      resource_type: FastCheck.oneof(FastCheck.constantFrom("stack", "server", "tag", "nope"), json),
      params: FastCheck.oneof(FastCheck.dictionary(shortText, json, { maxKeys: 3 }), json),
    },
    { requiredKeys: [] },
  ),
)

const meta = (era: Era) =>
  FastCheck.oneof(
    { weight: 8, arbitrary: FastCheck.constant(era === "modern" ? ENVELOPE : undefined) },
    FastCheck.record(
      {
        progressToken: FastCheck.oneof(FastCheck.string(), FastCheck.integer(), json),
        "io.modelcontextprotocol/protocolVersion": FastCheck.oneof(
          FastCheck.constantFrom("2026-07-28", "2025-11-25", "1999-01-01"),
          json,
        ),
        "io.modelcontextprotocol/clientInfo": json,
        "io.modelcontextprotocol/clientCapabilities": json,
      },
      { requiredKeys: [] },
    ),
    json,
  )

const params = (era: Era) =>
  FastCheck.oneof(
    { weight: 6, arbitrary: FastCheck.record({ _meta: meta(era) }) },
    {
      weight: 3,
      arbitrary: FastCheck.record(
        {
          _meta: meta(era),
          name: FastCheck.oneof(FastCheck.constantFrom("svc_list", "svc_get", "svc_nope"), json),
          arguments: toolArguments,
          level: FastCheck.oneof(FastCheck.constantFrom("debug", "error", "bogus"), json),
          protocolVersion: FastCheck.constantFrom("2025-11-25", "2025-06-18", "1.0"),
          capabilities: FastCheck.constant({}),
          clientInfo: FastCheck.constant({ name: "fuzz", version: "1" }),
          extra: json,
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: json },
    { weight: 1, arbitrary: FastCheck.constant(undefined) },
  )

interface Shape {
  readonly jsonrpc: unknown
  readonly id: IdKind
  readonly method: unknown
  readonly params: unknown
  readonly result: unknown
  readonly error: unknown
  readonly extra: unknown
}

const shape = (era: Era): FastCheck.Arbitrary<Shape> =>
  FastCheck.record({
    jsonrpc: FastCheck.oneof(
      { weight: 12, arbitrary: FastCheck.constant("2.0") },
      FastCheck.constantFrom("1.0", 2, null, undefined),
    ),
    id: FastCheck.oneof(
      { weight: 6, arbitrary: FastCheck.constantFrom<IdKind>("int", "string") },
      { weight: 3, arbitrary: FastCheck.constant<IdKind>("none") },
      FastCheck.constantFrom<IdKind>("negative", "long", "fraction", "huge", "unsafe", "null", "object"),
    ),
    method: FastCheck.oneof(
      { weight: 10, arbitrary: FastCheck.constantFrom(...METHODS) },
      { weight: 2, arbitrary: FastCheck.constant(undefined) },
      shortText,
      json,
    ),
    params: params(era),
    result: FastCheck.oneof({ weight: 10, arbitrary: FastCheck.constant(undefined) }, FastCheck.constant({}), json),
    error: FastCheck.oneof(
      { weight: 10, arbitrary: FastCheck.constant(undefined) },
      FastCheck.constant({ code: -32000, message: "client side" }),
      json,
    ),
    extra: FastCheck.oneof({ weight: 10, arbitrary: FastCheck.constant(undefined) }, json),
  })

/** One message's JSON text, its id spliced in as text so that huge and unsafe ids go out digit for digit. */
const messageText = (s: Shape, i: number): string => {
  const members: Array<string> = []
  if (s.jsonrpc !== undefined) members.push(`"jsonrpc":${JSON.stringify(s.jsonrpc)}`)
  const id = idText(s.id, i)
  if (id !== undefined) members.push(`"id":${id}`)
  if (s.method !== undefined) members.push(`"method":${JSON.stringify(s.method)}`)
  const withMarker = isObject(s.params) ? { ...s.params, marker: MARKER } : s.params
  if (withMarker !== undefined) members.push(`"params":${JSON.stringify(withMarker)}`)
  if (s.result !== undefined) members.push(`"result":${JSON.stringify(s.result)}`)
  if (s.error !== undefined) members.push(`"error":${JSON.stringify(s.error)}`)
  if (s.extra !== undefined) members.push(`"extra":${JSON.stringify(s.extra)}`)
  return `{${members.join(",")}}`
}

type Form =
  | { readonly _tag: "message"; readonly shape: Shape }
  | { readonly _tag: "batch"; readonly shapes: ReadonlyArray<Shape> }
  | { readonly _tag: "garbage"; readonly text: string }
  | { readonly _tag: "invalidUtf8"; readonly shape: Shape; readonly at: number }
  | { readonly _tag: "deep"; readonly shape: Shape; readonly depth: number }

const form = (era: Era): FastCheck.Arbitrary<Form> =>
  FastCheck.oneof(
    { weight: 20, arbitrary: shape(era).map((s) => ({ _tag: "message" as const, shape: s })) },
    {
      weight: 2,
      arbitrary: FastCheck.array(shape(era), { maxLength: 3 }).map((shapes) => ({ _tag: "batch" as const, shapes })),
    },
    {
      weight: 2,
      arbitrary: FastCheck.string({ unit: "binary", maxLength: 60 })
        .filter((text) => !text.includes("\n"))
        .map((text) => ({ _tag: "garbage" as const, text })),
    },
    {
      weight: 1,
      arbitrary: FastCheck.record({ shape: shape(era), at: FastCheck.nat() }).map((r) => ({
        _tag: "invalidUtf8" as const,
        ...r,
      })),
    },
    {
      weight: 1,
      arbitrary: FastCheck.record({ shape: shape(era), depth: FastCheck.integer({ min: 50, max: 5000 }) }).map((r) => ({
        _tag: "deep" as const,
        ...r,
      })),
    },
  )

interface Case {
  /** The bytes sent, without a line end. */
  readonly bytes: Buffer
  /** A request with a readable id: answered exactly once, with this id. */
  readonly answered: Id | undefined
  /** Every readable id the case carries: the only ones an answer may name. */
  readonly ids: ReadonlyArray<Id>
  /** The method named, for the 2026-07-28 headers. */
  readonly method: unknown
  readonly params: unknown
  /** Not JSON: over stdio, answered with a parse error and a null id. */
  readonly unparsable: boolean
}

const readableId = (value: unknown): Id | undefined => {
  if (!isObject(value)) return undefined
  return typeof value.id === "string" || typeof value.id === "number" ? value.id : undefined
}

/** The case as the protocol sees it, the way the server reads it: the bytes as UTF-8, then JSON. */
const materialize = (f: Form, i: number): Case => {
  let bytes: Buffer
  switch (f._tag) {
    case "message":
      bytes = Buffer.from(messageText(f.shape, i))
      break
    case "batch":
      bytes = Buffer.from(`[${f.shapes.map((s, k) => messageText(s, 10_000_000 + i * 4 + k)).join(",")}]`)
      break
    case "garbage":
      bytes = Buffer.from(f.text)
      break
    case "invalidUtf8": {
      const text = Buffer.from(messageText(f.shape, i))
      const at = f.at % (text.length + 1)
      bytes = Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xc3]), text.subarray(at)])
      break
    }
    case "deep": {
      const text = messageText({ ...f.shape, extra: undefined }, i)
      const deep = `${"[".repeat(f.depth)}"${MARKER}"${"]".repeat(f.depth)}`
      bytes = Buffer.from(`${text.slice(0, -1)}${text.length > 2 ? "," : ""}"deep":${deep}}`)
      break
    }
  }
  let value: unknown
  let unparsable = false
  try {
    value = JSON.parse(bytes.toString("utf8"))
  } catch {
    value = undefined
    // A line of JSON whitespace alone is no message at all.
    unparsable = !/^[ \t\r\n]*$/.test(bytes.toString("utf8"))
  }
  const isRequest = isObject(value) && "method" in value
  const answered = isRequest ? readableId(value) : undefined
  const ids = Array.isArray(value) ? value.map(readableId) : [readableId(value)]
  return {
    bytes,
    answered,
    ids: ids.filter((id): id is Id => id !== undefined),
    method: isObject(value) ? value.method : undefined,
    params: isObject(value) ? value.params : undefined,
    unparsable,
  }
}

const cases = (era: Era, count: number, seed: number) =>
  FastCheck.sample(form(era), { numRuns: count, seed }).map((f, i) => materialize(f, i))

const failing = (c: Case, why: string) => `${why}; seed ${SEED}; case ${c.bytes.toString("utf8").slice(0, 300)}`

// ---- over stdio ----

interface Answer {
  readonly line: string
  readonly message: Record<string, unknown>
}

const openers = (era: Era): Array<string> =>
  era === "modern"
    ? // server/discover does not pin the era; the first request with the envelope does.
      [
        JSON.stringify({ jsonrpc: "2.0", id: "open", method: "server/discover", params: { _meta: ENVELOPE } }),
        JSON.stringify({ jsonrpc: "2.0", id: "pin", method: "tools/list", params: { _meta: ENVELOPE } }),
      ]
    : [
        JSON.stringify({
          jsonrpc: "2.0",
          id: "open",
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
        }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      ]

/** The last request, after every case: a ping, or server/discover on 2026-07-28, which has no ping (-32601). */
const finalPing = (era: Era) =>
  JSON.stringify(
    era === "modern"
      ? { jsonrpc: "2.0", id: "final", method: "server/discover", params: { _meta: ENVELOPE } }
      : { jsonrpc: "2.0", id: "final", method: "ping" },
  )

/** Streams the cases into one server, pings once they are all sent, then closes stdin. */
const streamStdio = (era: Era, all: ReadonlyArray<Case>) =>
  Effect.async<{ answers: Array<Answer>; stdout: string; stderr: string; code: number | null }>((resume) => {
    const child = ChildProcess.spawn(process.execPath, [Spawn.ENTRY, "--sandbox"], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["pipe", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    let pinged = false
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      // Serving goes on after every case: the last ping is answered, and only then is stdin closed.
      if (!pinged && stdout.includes(`"id":"final"`)) {
        pinged = true
        child.stdin.end()
      }
    })
    child.stdin.on("error", () => undefined)
    child.on("close", (code) => {
      const answers = stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          try {
            return { line, message: JSON.parse(line) as Record<string, unknown> }
          } catch {
            return { line, message: { notJson: line.slice(0, 200) } }
          }
        })
      resume(Effect.succeed({ answers, stdout, stderr, code }))
    })
    for (const line of openers(era)) child.stdin.write(`${line}\n`)
    all.forEach((c, i) => {
      child.stdin.write(Buffer.concat([c.bytes, Buffer.from(i % 7 === 0 ? "\r\n" : "\n")]))
    })
    child.stdin.write(`${finalPing(era)}\n`)
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const key = (id: unknown) => JSON.stringify(id)

describe.each<Era>(["legacy", "modern"])("over stdio, the %s era", (era) => {
  const count = Math.round(RUNS * SPLIT.stdio[era])
  it.live(
    `${count} arbitrary messages: each request with a readable id answered once with it, nothing else answered, exit 0`,
    () =>
      Effect.gen(function* () {
        const all = cases(era, count, SEED + (era === "modern" ? 1 : 0))
        const { answers, stderr, code } = yield* streamStdio(era, all)
        // stdout holds JSON-RPC only.
        for (const { message } of answers) {
          expect(message.jsonrpc, JSON.stringify(message).slice(0, 200)).toBe("2.0")
          expect("id" in message || typeof message.method === "string").toBe(true)
        }
        const responses = answers.filter(({ message }) => "result" in message || "error" in message)
        const byId = new Map<string, Array<Answer>>()
        for (const answer of responses) {
          const k = key(answer.message.id)
          byId.set(k, [...(byId.get(k) ?? []), answer])
        }
        expect(byId.get(key("open"))).toHaveLength(1)
        const final = byId.get(key("final"))?.[0]?.message
        expect(final?.result, `seed ${SEED}: ${JSON.stringify(final)}`).toBeDefined()
        if (era === "modern") expect(byId.get(key("pin"))?.[0]?.message.result).toBeDefined()
        const expected = new Set([key("open"), key("pin"), key("final")])
        const tally = { valid: 0, invalid: 0, unanswered: 0 }
        for (const c of all) {
          if (c.answered === undefined) {
            tally.unanswered++
            continue
          }
          expected.add(key(c.answered))
          const got = byId.get(key(c.answered)) ?? []
          expect(got.length, failing(c, "answered exactly once")).toBe(1)
          const answer = got[0] as Answer
          let valid = true
          try {
            parseJSONRPCMessage(JSON.parse(c.bytes.toString("utf8")))
          } catch {
            valid = false
          }
          tally[valid ? "valid" : "invalid"]++
          if (!valid) {
            expect(answer.message.error, failing(c, "an invalid request")).toMatchObject({
              code: -32600,
              message: expect.stringMatching(/^Invalid Request: /),
            })
          }
        }
        // Each line that is not JSON gets JSON-RPC's parse error, with a null id.
        const unparsable = all.filter((c) => c.unparsable).length
        const parseErrors = byId.get(key(null)) ?? []
        expect(parseErrors).toHaveLength(unparsable)
        for (const { message } of parseErrors) expect(message.error).toMatchObject({ code: -32700 })
        if (unparsable > 0) expected.add(key(null))
        for (const k of byId.keys()) expect(expected.has(k), `an answer to an id never sent: ${k}`).toBe(true)
        // Each kind of case reached the server (how well the generator mixes them: the test below, on a fixed seed).
        for (const n of Object.values(tally)) expect(n, JSON.stringify(tally)).toBeGreaterThan(0)
        expect(code).toBe(0)
        // One short line per skipped message, never its content.
        expect(stderr).not.toContain(MARKER)
        for (const line of stderr.split("\n")) expect(line.length, line.slice(0, 200)).toBeLessThan(400)
      }),
    120_000,
  )
})

/** How a sample of cases splits: valid requests, invalid ones (answered -32600), and those with nothing to answer. */
const kindsOf = (sample: ReadonlyArray<Case>) => {
  const tally = { valid: 0, invalid: 0, unanswered: 0 }
  for (const c of sample) {
    if (c.answered === undefined) tally.unanswered++
    else {
      try {
        parseJSONRPCMessage(JSON.parse(c.bytes.toString("utf8")))
        tally.valid++
      } catch {
        tally.invalid++
      }
    }
  }
  return tally
}

// A run's own sample is drawn from a new seed each time, so how it splits varies; the generator's
// mix is held here, on a fixed seed, so that no kind of case can quietly vanish from the runs.
describe.each<Era>(["legacy", "modern"])("the arbitrary messages of the %s era", (era) => {
  it("mix the three kinds, each at least a tenth of 2,000", () => {
    const tally = kindsOf(cases(era, 2_000, 20_261_125))
    for (const n of Object.values(tally)) expect(n, JSON.stringify(tally)).toBeGreaterThan(200)
  })
})

describe("over stdio, each fault named in the issue", () => {
  const faults: ReadonlyArray<readonly [string, string, string]> = [
    ["an id of 1e300", `{"jsonrpc":"2.0","id":1e300,"method":"ping"}`, "1e300"],
    ["an integer id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, "9007199254740993"],
    ["a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "1.5"],
    ["jsonrpc 1.0", `{"jsonrpc":"1.0","id":6,"method":"ping"}`, "6"],
    ["a method that is a number", `{"jsonrpc":"2.0","id":5,"method":5}`, "5"],
    ["params that are an array", `{"jsonrpc":"2.0","id":"p","method":"ping","params":[1]}`, `"p"`],
    [
      "a progress token that is an object",
      `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"progressToken":{}}}}`,
      "7",
    ],
  ]
  it.live("each request is answered -32600 with its id; the rest are skipped with one line each", () =>
    Effect.gen(function* () {
      const skipped = [
        "not json at all",
        `[{"jsonrpc":"2.0","id":20,"method":"ping"}]`,
        `{"jsonrpc":"2.0","id":21,"result":{}}`,
        `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
        `{"jsonrpc":"1.0","method":"notifications/initialized"}`,
      ]
      const input = [...openers("legacy"), ...faults.map(([, line]) => line), ...skipped, finalPing("legacy"), ""]
      const { stdout, stderr, code } = yield* Spawn.run({}, ["--sandbox"], input.join("\n"))
      const lines = stdout.split("\n").filter((line) => line !== "")
      const messages = lines.map((line) => JSON.parse(line) as { id: unknown; error?: unknown })
      for (const [what, , id] of faults) {
        // The id as parsed: past 2^53 the nearest double, as the SDK answers over HTTP.
        const answer = messages.filter((m) => m.id === JSON.parse(id))
        expect(answer, what).toHaveLength(1)
        expect(answer[0]?.error, what).toMatchObject({
          code: -32600,
          message: expect.stringMatching(/^Invalid Request: /),
        })
      }
      // initialize, the faults, the line that is not JSON (a parse error, id null), the final ping.
      expect(lines).toHaveLength(faults.length + 3)
      expect(messages.filter((m) => m.id === null).map((m) => m.error)).toEqual([
        { code: -32700, message: "Parse error: not JSON" },
      ])
      expect(code).toBe(0)
      const warnings = stderr.split("\n").filter((line) => line.includes("a message was skipped"))
      expect(warnings.map((line) => line.replace(/^.*skipped: /, ""))).toEqual([
        "not JSON",
        "a batch (MCP has none)",
        "id is not a string or a number",
        "jsonrpc is not 2.0",
      ])
    }),
  )
})

// ---- over Streamable HTTP ----

const headers = (era: Era, c: Case, i: number): Record<string, string> => {
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream" }
  if (era === "legacy") return i % 2 === 0 ? base : { ...base, "mcp-protocol-version": "2025-11-25" }
  // A header holds Latin-1 only: a client could send no other.
  const header = (value: unknown) => typeof value === "string" && /^[\x20-\x7e]*$/.test(value)
  const name = isObject(c.params) && header(c.params.name) ? { "mcp-name": c.params.name as string } : {}
  // Now and then the headers are missing or disagree with the body.
  if (i % 11 === 0) return { ...base, "mcp-protocol-version": "2026-07-28" }
  return {
    ...base,
    "mcp-protocol-version": "2026-07-28",
    ...(header(c.method) ? { "mcp-method": i % 13 === 0 ? "ping" : (c.method as string) } : {}),
    ...name,
  }
}

/** The JSON-RPC messages in a body: JSON, or the events of a stream. */
const messagesOf = (contentType: string | null, text: string): Array<Record<string, unknown>> => {
  if (text === "") return []
  if (contentType?.startsWith("text/event-stream") === true) {
    return text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>)
  }
  const parsed = JSON.parse(text) as unknown
  return (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>
}

const post = (url: string, era: Era, c: Case, i: number) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "POST", headers: headers(era, c, i), body: c.bytes })
    const text = await response.text()
    return { status: response.status, messages: messagesOf(response.headers.get("content-type"), text) }
  })

describe.each<Era>(["legacy", "modern"])("over Streamable HTTP, the %s era", (era) => {
  const count = Math.round(RUNS * SPLIT.http[era])
  it.scopedLive(
    `${count} arbitrary messages: each answered with its own id or null, never a 5xx, and serving goes on`,
    () =>
      Effect.gen(function* () {
        const server = yield* Spawn.serveHttp({}, ["--sandbox"])
        const all = cases(era, count, SEED + (era === "modern" ? 3 : 2))
        yield* Effect.forEach(
          all,
          (c, i) =>
            Effect.map(post(server.url, era, c, i), ({ status, messages }) => {
              expect(status, failing(c, "a status")).toBeLessThan(500)
              const allowed = new Set([key(null), ...c.ids.map(key)])
              const responses = messages.filter((m) => "result" in m || "error" in m)
              for (const m of messages) expect(m.jsonrpc, failing(c, "JSON-RPC")).toBe("2.0")
              for (const m of responses) expect(allowed.has(key(m.id)), failing(c, "an id sent")).toBe(true)
              if (c.answered !== undefined) {
                expect(responses, failing(c, "one answer")).toHaveLength(1)
                if (status >= 400) expect(responses[0]?.error, failing(c, "an error")).toBeDefined()
              } else if (status === 202) {
                expect(messages, failing(c, "nothing for a notification")).toEqual([])
              }
            }),
          { concurrency: 8, discard: true },
        )
        const ping = yield* post(
          server.url,
          era,
          materialize({ _tag: "garbage", text: finalPing(era) }, 0),
          era === "modern" ? 1 : 0,
        )
        expect(ping.messages).toMatchObject([{ id: "final", result: expect.any(Object) }])
        expect(server.child.exitCode).toBe(null)
        expect(server.stderr()).not.toContain(MARKER)
      }),
    120_000,
  )
})
