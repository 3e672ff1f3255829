import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import { framer, IdScanner, type Oversized } from "../src/Mcp/StdioFraming.js"

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

const scan = (text: string) => {
  const scanner = new IdScanner()
  scanner.feed(Buffer.from(text))
  return scanner.id
}

const jsonValue = FastCheck.jsonValue({ maxDepth: 3 })
const id = FastCheck.oneof(
  FastCheck.integer({ min: -1e9, max: 1e9 }),
  FastCheck.string({ maxLength: 40, unit: "grapheme" }),
)

describe("the top-level id of a message", () => {
  it.prop(
    "is read wherever it stands among the members, whatever the others hold",
    [id, FastCheck.dictionary(FastCheck.string({ maxLength: 8 }), jsonValue, { maxKeys: 4 }), FastCheck.nat(5)],
    ([wanted, others, at]) => {
      const members = Object.entries(others).filter(([key]) => key !== "id")
      members.splice(Math.min(at, members.length), 0, ["id", wanted])
      const text = `{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",")}}`
      expect(scan(text)).toEqual(wanted)
    },
  )

  it("is not taken from a nested object, a batch or a value that is no id", () => {
    expect(scan('{"params":{"id":7},"method":"x"}')).toBeUndefined()
    expect(scan('[{"id":1}]')).toBeUndefined()
    expect(scan('{"id":null}')).toBeUndefined()
    expect(scan('{"id":{"a":1}}')).toBeUndefined()
    expect(scan('{ "jsonrpc" : "2.0" , "id" : "a\\"b" }')).toBe('a"b')
    expect(scan('{"id":12')).toBe(12)
  })
})

describe("framing stdio with a bound", () => {
  it.effect.prop(
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
    const exact = `{"id":1,"p":"${"x".repeat(100 - 15)}"}`
    expect(exact).toHaveLength(100)
    const over = `{"id":2,"p":"${"x".repeat(101 - 15)}"}`
    const { lines, reports } = await run(Buffer.from(`${exact}\n${exact}\r\n${over}\n${over}\r\n`), 100, 7)
    expect(lines).toBe(`${exact}\n${exact}\r\n`)
    expect(reports).toEqual([
      { id: 2, bytes: 101 },
      { id: 2, bytes: 101 },
    ])
  })

  it("reports an unterminated oversized last line, and hands on a short one at the end", async () => {
    expect(await run(Buffer.from(`{"id":"a","p":"${"x".repeat(300)}"}`), 100, 64)).toMatchObject({
      lines: "",
      reports: [{ id: "a" }],
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
    framing.push(Buffer.from(`keep 1\n\nkeep 2\r\n{"id":3,"p":"${"x".repeat(30)}"}\nke`))
    framing.push(Buffer.from("ep 4\r\nlast"))
    expect(seen).toEqual(["keep 1", "", "keep 2\r", "keep 4\r"])
    framing.end()
    expect(seen.at(-1)).toBe("last")
    expect(reports).toEqual([{ id: 3, bytes: 45 }])
  })
})
