import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import { framer, Outline, type Oversized } from "../../../src/Mcp/Stdio/StdioFraming.js"
import { liveProperty, property } from "../../support/Property.js"

/** Feeds `input` to the framing in chunks of `chunkSize`: the lines out, each with a \n, and the reports. */
const run = async (input: Buffer, maxBytes: number, chunkSize: number) => {
  const reports: Array<Oversized> = []
  const out: Array<string> = []
  const framing = framer(
    maxBytes,
    (line) => out.push(`${line.toString("utf8")}\n`),
    (oversized) => reports.push(oversized),
  )
  for (let i = 0; i < input.length; i += chunkSize) framing.push(input.subarray(i, i + chunkSize))
  framing.end()
  return { lines: out.join(""), reports }
}

/** The outline of `text`, fed in chunks of `chunkSize` bytes. */
const outline = (text: string, chunkSize = 1 << 20) => {
  const kept = new Outline()
  const bytes = Buffer.from(text)
  for (let i = 0; i < bytes.length; i += chunkSize) kept.feed(bytes.subarray(i, i + chunkSize))
  return kept.value
}

const jsonValue = FastCheck.jsonValue({ maxDepth: 3 })
const id = FastCheck.oneof(
  FastCheck.integer({ min: -1e9, max: 1e9 }),
  FastCheck.string({ maxLength: 40, unit: "grapheme" }),
)

describe("the outline of a message", () => {
  property(
    "is its top level, whatever the members hold and however the bytes are cut: nested values as 0, long strings as null",
    [
      id,
      FastCheck.dictionary(FastCheck.string({ maxLength: 8 }), jsonValue, { maxKeys: 4 }),
      FastCheck.nat(5),
      FastCheck.integer({ min: 1, max: 16 }),
    ],
    ([wanted, others, at, chunkSize]) => {
      const members = Object.entries(others).filter(([key]) => key !== "id")
      members.splice(Math.min(at, members.length), 0, ["id", wanted])
      const text = `{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",")}}`
      const top = (value: unknown) =>
        typeof value === "object" && value !== null
          ? 0
          : typeof value === "string" && Buffer.byteLength(JSON.stringify(value)) - 2 > 256
            ? null
            : value
      // Each value as JSON has it: a -0 among them is written 0.
      const written = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown
      expect(outline(text, chunkSize)).toEqual(
        Object.fromEntries(members.map(([key, value]) => [key, top(written(value))])),
      )
    },
  )

  it("keeps nothing of what is nested, of a long string or of a text that is not JSON", () => {
    expect(outline('{"params":{"id":7,"s":"}"},"method":"x"}')).toEqual({ params: 0, method: "x" })
    expect(outline('[{"id":1},[2]]')).toEqual([0, 0])
    expect(outline(`{"id":"${"i".repeat(256)}","method":"${"m".repeat(257)}"}`)).toEqual({
      id: "i".repeat(256),
      method: null,
    })
    expect(outline('{ "jsonrpc" : "2.0" , "id" : "a\\"b" }')).toEqual({ jsonrpc: "2.0", id: 'a"b' })
    expect(outline('{"id":12')).toBeUndefined()
    expect(outline(`{${'"a":1,'.repeat(20_000)}"id":1}`)).toBeUndefined()
  })
})

describe("framing stdio with a bound", () => {
  // On the live runtime: it.effect would build a test environment per case, for a property that reads no clock.
  liveProperty(
    "passes every line within the bound unchanged and reports each longer one once, with its id",
    [
      FastCheck.array(FastCheck.tuple(FastCheck.nat(1000), FastCheck.integer({ min: 0, max: 300 })), {
        minLength: 1,
        maxLength: 12,
      }),
      FastCheck.integer({ min: 1, max: 97 }),
    ],
    ([messages, chunkSize]) =>
      Effect.promise(async () => {
        const max = 200
        const texts = messages.map(([n, size]) =>
          JSON.stringify({ jsonrpc: "2.0", method: "x", params: "p".repeat(size), id: n }),
        )
        const { lines, reports } = await run(Buffer.from(texts.map((t) => `${t}\n`).join("")), max, chunkSize)
        const within = texts.filter((t) => Buffer.byteLength(t) <= max)
        expect(lines).toBe(within.map((t) => `${t}\n`).join(""))
        expect(reports).toEqual(
          texts
            .filter((t) => Buffer.byteLength(t) > max)
            .map((t) => ({ id: JSON.parse(t).id, bytes: Buffer.byteLength(t) })),
        )
      }),
  )

  it("takes a line of exactly the bound, with or without \\r, and refuses one byte more", async () => {
    const exact = `{"id":1,"method":"m","p":"${"x".repeat(100 - 28)}"}`
    expect(exact).toHaveLength(100)
    const over = `{"id":2,"method":"m","p":"${"x".repeat(101 - 28)}"}`
    const { lines, reports } = await run(Buffer.from(`${exact}\n${exact}\r\n${over}\n${over}\r\n`), 100, 7)
    expect(lines).toBe(`${exact}\n${exact}\r\n`)
    expect(reports).toEqual([
      { id: 2, bytes: 101 },
      { id: 2, bytes: 101 },
    ])
  })

  it("reports an unterminated oversized last line, and hands on a short one at the end", async () => {
    expect(await run(Buffer.from(`{"id":"a","method":"m","p":"${"x".repeat(300)}"}`), 100, 64)).toMatchObject({
      lines: "",
      reports: [{ id: "a" }],
    })
    // A response is never answered, whatever its size.
    expect(await run(Buffer.from(`{"id":"r","result":"${"x".repeat(300)}"}`), 100, 64)).toMatchObject({
      reports: [{ id: undefined }],
    })
    expect(await run(Buffer.from('{"id":3}'), 100, 64)).toEqual({ lines: '{"id":3}\n', reports: [] })
  })
})

describe("the lines handed on", () => {
  it("are each line without its \\n, in order, with no line over the bound among them", () => {
    const seen: Array<string> = []
    const reports: Array<Oversized> = []
    const framing = framer(
      20,
      (line) => seen.push(line.toString("utf8")),
      (oversized) => reports.push(oversized),
    )
    framing.push(Buffer.from(`keep 1\n\nkeep 2\r\n{"id":3,"method":"m","p":"${"x".repeat(30)}"}\nke`))
    framing.push(Buffer.from("ep 4\r\nlast"))
    expect(seen).toEqual(["keep 1", "", "keep 2\r", "keep 4\r"])
    framing.end()
    expect(seen.at(-1)).toBe("last")
    expect(reports).toEqual([{ id: 3, bytes: 58 }])
  })
})
