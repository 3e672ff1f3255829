/**
 * A log entry is one line on stderr, whatever it holds: text from outside (a service's error
 * echoing a name) cannot end the line and forge one of its own, nor turn its order.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as HashMap from "effect/HashMap"
import * as List from "effect/List"
import * as LogLevel from "effect/LogLevel"
import * as LogSpan from "effect/LogSpan"
import * as FastCheck from "fast-check"
import { format } from "../../../src/Operations/Logging.js"
import { escapeControls } from "../../../src/Shared/Controls.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

/** What may not stand in a line as it is: controls, separators, bidirectional controls. */
const unsafe = (c: string) => {
  const p = c.codePointAt(0) ?? 0
  return (
    p < 0x20 ||
    (p >= 0x7f && p <= 0x9f) ||
    [0x061c, 0x200e, 0x200f, 0x2028, 0x2029].includes(p) ||
    (p >= 0x202a && p <= 0x202e) ||
    (p >= 0x2066 && p <= 0x2069)
  )
}

const FORGED = "\n2026-11-28T00:00:00.000Z INFO fake: admin approved everything"
const DATE = new Date("2026-11-28T12:00:00.000Z")

const entry = (message: unknown, more: Partial<Parameters<typeof format>[0]> = {}) =>
  format({
    logLevel: LogLevel.Warning,
    message,
    cause: Cause.empty,
    annotations: HashMap.empty(),
    spans: List.empty(),
    date: DATE,
    ...more,
  })

describe("a log line", () => {
  it("holds a service's error that echoes a forged line on its one line, the forgery escaped", () => {
    const line = entry(`read/GetStack failed: the service answered 500: did not find any Stack matching x${FORGED}`)
    expect(line.split("\n")).toHaveLength(1)
    expect(line).toBe(
      "2026-11-28T12:00:00.000Z WARN read/GetStack failed: the service answered 500: did not find any Stack matching x\\n2026-11-28T00:00:00.000Z INFO fake: admin approved everything",
    )
  })

  it("escapes every part: the message's, each annotation's key and value, a span's label, the cause", () => {
    const line = entry(["first\r", { said: `x\u2028y` }], {
      annotations: HashMap.make([`key${FORGED}`, `value${FORGED}`], ["plain", "ok"]),
      spans: List.make(LogSpan.make(`span\u202e${FORGED}`, DATE.getTime() - 5)),
      cause: Cause.fail(new Error(`boom${FORGED}`)),
    })
    expect(line.split(/[\n\r\u2028\u2029\u202a-\u202e\u2066-\u2069]/)).toHaveLength(1)
    expect(line).toContain("first\\r")
    expect(line).toContain('{"said":"x\\u2028y"}')
    expect(line).toContain("key\\n2026-11-28T00:00:00.000Z INFO fake: admin approved everything=")
    expect(line).toContain(' plain="ok"')
    expect(line).toContain("span\\u202e\\n2026-11-28T00:00:00.000Z INFO fake: admin approved everything=5ms")
    expect(line).toContain(" cause=Error: boom\\n2026-11-28T00:00:00.000Z INFO fake: admin approved everything")
  })

  property(
    "is one line, free of separators and bidirectional controls, for any message",
    { message: FastCheck.string({ unit: "binary" }), key: FastCheck.string({ unit: "binary" }) },
    ({ message, key }) => {
      const line = entry(message, { annotations: HashMap.make([key, message]) })
      expect(Array.from(line).filter(unsafe)).toEqual([])
    },
    { fastCheck: { numRuns: runs(500) } },
  )
})

describe("escaping control characters", () => {
  it("writes line ends as themselves escaped, others by their code, and keeps the rest as it is", () => {
    expect(escapeControls("a\nb\rc\td")).toBe("a\\nb\\rc\\td")
    expect(escapeControls("\u0000\u001b[31m\u007f\u0085")).toBe("\\u0000\\u001b[31m\\u007f\\u0085")
    expect(escapeControls("\u2028\u2029\u202a\u202e\u2066\u2069\u200e\u200f\u061c")).toBe(
      "\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069\\u200e\\u200f\\u061c",
    )
    expect(escapeControls("été 日本 😀 \\n")).toBe("été 日本 😀 \\n")
  })
})
