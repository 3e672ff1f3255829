/**
 * A value from outside as it stands in a question: on one line, whatever it
 * holds. For any string, the quoted form holds no line break, no other control
 * character, no line or paragraph separator, no bidirectional control and no
 * lone surrogate; it is bounded; and what it shows reads back (as JSON) as the
 * value itself, or as its beginning where it was cut.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { listed, oneLine, quote, word } from "../../../src/Shared/Quote.js"

/** What may never stand in a line as itself, by code point: written here apart from the code's own test. */
const forbidden = (text: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
      found.push(unit)
      continue
    }
    const bad =
      unit < 0x20 ||
      (unit >= 0x7f && unit <= 0x9f) ||
      (unit >= 0xdc00 && unit <= 0xdfff) ||
      unit === 0x2028 ||
      unit === 0x2029 ||
      (unit >= 0x202a && unit <= 0x202e) ||
      (unit >= 0x2066 && unit <= 0x2069) ||
      unit === 0x200e ||
      unit === 0x200f ||
      unit === 0x061c
    if (bad) found.push(unit)
  }
  return found
}

/** The characters an attack would use, among any other UTF-16 units (lone surrogates too). */
const hostileUnit = FastCheck.oneof(
  FastCheck.constantFrom(
    "\n",
    "\r",
    "\t",
    "\u0000",
    "\u001b",
    "\u007f",
    "\u0085",
    "\u2028",
    "\u2029",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
    "\u200f",
    '"',
    "\\",
    "…",
    "\ud83d",
    "\ude00",
    "\ud83d\ude00",
  ),
  FastCheck.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
  FastCheck.constantFrom("a", "b", " ", "-"),
)
const hostile = FastCheck.array(hostileUnit, { maxLength: 400 }).map((units) => units.join(""))

describe("a value quoted in a question", () => {
  it("is one line with no control, separator, bidirectional control or lone surrogate, bounded, and reads back", () => {
    FastCheck.assert(
      FastCheck.property(hostile, FastCheck.integer({ min: 1, max: 300 }), (text, max) => {
        const quoted = quote(text, max)
        expect(forbidden(quoted)).toEqual([])
        expect(quoted.split(/\r\n|\r|\n/).length).toBe(1)
        expect(quoted.length).toBeLessThanOrEqual(max + 3)
        const cut = quoted.endsWith('"…')
        const shown = JSON.parse(cut ? quoted.slice(0, -1) : quoted) as string
        if (cut) {
          expect(text.startsWith(shown)).toBe(true)
          expect(shown.length).toBeLessThan(text.length)
        } else expect(shown).toBe(text)
      }),
    )
  })

  it("without quotes (a service's words in a sentence): one line, bounded, only the hidden escaped", () => {
    FastCheck.assert(
      FastCheck.property(hostile, (text) => {
        const line = oneLine(text)
        expect(forbidden(line)).toEqual([])
        expect(line.length).toBeLessThanOrEqual(201)
      }),
    )
    expect(oneLine('read/GetStack failed: "x\\y"')).toBe('read/GetStack failed: "x\\y"')
    expect(oneLine("a\nb\u2028c\u202ed")).toBe("a\\nb\\u2028c\\u202ed")
    expect(oneLine("x".repeat(250))).toBe(`${"x".repeat(200)}…`)
  })

  it("shows what it escapes, and where it was cut", () => {
    expect(quote("web")).toBe('"web"')
    expect(quote('say "hi"\\')).toBe('"say \\"hi\\"\\\\"')
    expect(quote("cache\n- resources: nothing\nSend it?")).toBe('"cache\\n- resources: nothing\\nSend it?"')
    expect(quote("\u202eevil\u2066\u2028\u0000\u0085")).toBe('"\\u202eevil\\u2066\\u2028\\u0000\\u0085"')
    expect(quote("x".repeat(250))).toBe(`"${"x".repeat(200)}"…`)
    // An escape is never cut in half: it is left out whole.
    expect(quote(`${"x".repeat(9)}\n`, 10)).toBe(`"${"x".repeat(9)}"…`)
    // A value that ends in the marker inside its quotes was not cut.
    expect(quote("ab…")).toBe('"ab…"')
  })

  it("a name, a type or a hash of one word stands as it is; anything else quoted", () => {
    expect(word("Stack")).toBe("Stack")
    expect(word("c41e7d2")).toBe("c41e7d2")
    expect(word("acme/web")).toBe("acme/web")
    expect(word("K-fb2e8ed529abe7c127a7c6e2")).toBe("K-fb2e8ed529abe7c127a7c6e2")
    expect(word("Stack\nSend it?")).toBe('"Stack\\nSend it?"')
    expect(word("two words")).toBe('"two words"')
    expect(word("")).toBe('""')
  })

  it("a list is bounded, the rest counted", () => {
    expect(listed([])).toBe("none")
    expect(listed(["a", "b\n"])).toBe('"a", "b\\n"')
    const names = Array.from({ length: 25 }, (_, i) => `s${i + 1}`)
    expect(listed(names)).toBe(
      `${names
        .slice(0, 20)
        .map((n) => `"${n}"`)
        .join(", ")}, … and 5 more`,
    )
  })
})
