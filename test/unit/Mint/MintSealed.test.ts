/**
 * What the store keeps of a minted key is sealed: for every text and name it
 * opens back to the text under the same name and key, and to nothing under
 * another name, another key, or with any character changed; it never holds
 * the text in clear.
 */
import { describe, expect } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as FastCheck from "fast-check"
import * as Sealed from "../../../src/Store/Sealed.js"
import { property } from "../../support/Property.js"

const key = (text: string) => Redacted.make(new Uint8Array(Buffer.from(text.padEnd(32, "."), "utf8")))
const one = Sealed.make(key("the replicas' shared state key, one"))
const other = Sealed.make(key("the replicas' shared state key, two"))

describe("a sealed record", () => {
  property(
    "opens under its own name and key only, and holds nothing in clear",
    { text: FastCheck.string({ minLength: 8, maxLength: 200 }), label: FastCheck.string({ maxLength: 40 }) },
    ({ text, label }) => {
      const sealed = one.seal(text, label)
      expect(one.open(sealed, label)).toEqual(Option.some(text))
      expect(one.open(sealed, `${label}x`)).toEqual(Option.none())
      expect(other.open(sealed, label)).toEqual(Option.none())
      expect(sealed).not.toContain(text)
      // The same text sealed twice: two different records, each with a nonce of its own.
      expect(one.seal(text, label)).not.toBe(sealed)
    },
  )

  property(
    "any character changed opens to nothing",
    { text: FastCheck.string({ minLength: 1, maxLength: 80 }), at: FastCheck.nat() },
    ({ text, at }) => {
      const sealed = one.seal(text, "mint:x")
      const index = at % sealed.length
      const changed = `${sealed.slice(0, index)}${sealed[index] === "A" ? "B" : "A"}${sealed.slice(index + 1)}`
      expect(one.open(changed, "mint:x")).toEqual(Option.none())
    },
  )
})
