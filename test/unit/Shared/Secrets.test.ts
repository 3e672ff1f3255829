/**
 * Secrets are scrubbed in any of the forms a service may echo them in: as
 * they are, in another case, JSON-escaped, URL-encoded, and in base64 at any
 * alignment. Each check decodes the scrubbed text independently and looks for
 * the secret there.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { inJson, REDACTED, scrub, scrubValue } from "../../../src/Shared/Secrets.js"

const PRINTABLE = FastCheck.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code))
const secretArb = FastCheck.array(PRINTABLE, { minLength: 4, maxLength: 40 }).map((units) => units.join(""))
const wordArb = FastCheck.stringMatching(/^[a-z0-9 ,.:]{0,20}$/)

const escapeAll = (text: string) =>
  Array.from(text, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")
const escapeSome = (text: string, mask: ReadonlyArray<boolean>) =>
  Array.from(text, (unit, at) => (mask[at % mask.length] ? escapeAll(unit) : JSON.stringify(unit).slice(1, -1))).join(
    "",
  )
const mixCase = (text: string, mask: ReadonlyArray<boolean>) =>
  Array.from(text, (unit, at) => (mask[at % mask.length] ? unit.toUpperCase() : unit.toLowerCase())).join("")

/** The JSON string's content, decoded: escapes of REDACTED's characters are never cut in half. */
const fromJson = (text: string) => JSON.parse(`"${text}"`) as string
const fromUrl = (text: string) => decodeURIComponent(text.replaceAll("+", " "))
/** Every base64 run of the text, decoded at each of its four starting offsets, in both alphabets. */
const base64Decodings = (text: string) =>
  (text.match(/[A-Za-z0-9+/_-]+/g) ?? []).flatMap((run) =>
    [0, 1, 2, 3].map((offset) => Buffer.from(run.slice(offset), "base64").toString("latin1")),
  )

const contains = (haystack: string, secret: string) => haystack.toLowerCase().includes(secret.toLowerCase())

describe("scrubbing through encodings", () => {
  it("a secret in another case, JSON-escaped (every character or some), or URL-encoded is scrubbed", () => {
    FastCheck.assert(
      FastCheck.property(
        secretArb,
        wordArb,
        wordArb,
        FastCheck.array(FastCheck.boolean(), { minLength: 1, maxLength: 8 }),
        (secret, before, after, mask) => {
          const cased = `${before}${mixCase(secret, mask)}${after}`
          expect(contains(scrub(cased, [secret]), secret)).toBe(false)
          for (const escaped of [
            escapeAll(secret),
            escapeSome(secret, mask),
            escapeSome(mixCase(secret, mask), mask),
          ]) {
            const text = `${before}${escaped}${after}`
            expect(inJson(text, [secret])).toBe(true)
            const scrubbed = scrub(text, [secret])
            expect(contains(fromJson(scrubbed), secret)).toBe(false)
            expect(scrubbed).toContain(REDACTED)
          }
          for (const encoded of [encodeURIComponent(secret), encodeURIComponent(secret).replaceAll("%20", "+")]) {
            const scrubbed = scrub(`${before}${encoded}${after}`, [secret])
            expect(contains(fromUrl(scrubbed.replaceAll(REDACTED, "")), secret)).toBe(false)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it("a secret in base64, standard or URL-safe, at any alignment, padded or not, is scrubbed", () => {
    FastCheck.assert(
      FastCheck.property(
        secretArb,
        FastCheck.uint8Array({ maxLength: 10 }),
        FastCheck.uint8Array({ maxLength: 10 }),
        FastCheck.boolean(),
        FastCheck.boolean(),
        (secret, before, after, urlSafe, padded) => {
          const bytes = Buffer.concat([before, Buffer.from(secret), after])
          let encoded = bytes.toString(urlSafe ? "base64url" : "base64")
          encoded = padded ? encoded.padEnd(Math.ceil(encoded.length / 4) * 4, "=") : encoded.replace(/=+$/, "")
          expect(base64Decodings(encoded).some((decoded) => decoded.includes(secret))).toBe(true)
          const scrubbed = scrub(`answer: ${encoded}.`, [secret])
          expect(base64Decodings(scrubbed).filter((decoded) => decoded.includes(secret))).toEqual([])
        },
      ),
      { numRuns: 300 },
    )
  })

  it("a text holds a secret exactly where scrubbing it changes it, whatever the form and the secrets' characters", () => {
    const forms = (secret: string, mask: ReadonlyArray<boolean>, pad: Uint8Array): ReadonlyArray<string> => [
      secret,
      mixCase(secret, mask),
      escapeSome(secret, mask),
      encodeURIComponent(secret),
      Buffer.concat([pad, Buffer.from(secret)]).toString("base64"),
      Buffer.concat([pad, Buffer.from(secret)]).toString("base64url"),
      // A near miss: the secret with its last character changed.
      `${secret.slice(0, -1)}${secret.at(-1) === "~" ? "}" : "~"}`,
    ]
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(secretArb, { minLength: 1, maxLength: 3 }),
        FastCheck.array(FastCheck.boolean(), { minLength: 1, maxLength: 8 }),
        FastCheck.uint8Array({ maxLength: 2 }),
        FastCheck.nat(7),
        FastCheck.nat(2),
        FastCheck.string({ maxLength: 40 }),
        FastCheck.string({ maxLength: 40 }),
        (secrets, mask, pad, form, which, before, after) => {
          const secret = secrets[which % secrets.length] as string
          const shown = form === 7 ? "" : (forms(secret, mask, pad)[form] as string)
          const text = JSON.stringify({ before, shown, after })
          expect(inJson(text, secrets)).toBe(scrub(text, secrets) !== text)
        },
      ),
      { numRuns: 500 },
    )
  })

  it("a secret is found in another case for every character that has one, however the answer folds", () => {
    let checked = 0
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue
      const unit = String.fromCodePoint(code)
      const lower = unit.toLowerCase()
      if (lower === unit || Array.from(lower).length !== 1) continue
      const secret = lower.repeat(4)
      // The second text holds a character whose lowercase is longer, which the text is folded around.
      for (const text of [JSON.stringify(`x ${unit.repeat(4)}`), JSON.stringify(`\u0130 ${unit.repeat(4)}`)]) {
        expect(inJson(text, [secret])).toBe(scrub(text, [secret]) !== text)
      }
      // A capital sigma ending a word folds to the final small one instead (below).
      if (code !== 0x3a3) expect(inJson(JSON.stringify(unit.repeat(4)), [secret])).toBe(true)
      checked++
    }
    // Every letter of a cased script is among them: A to Z, the Greek and Cyrillic capitals, Deseret's.
    expect(checked).toBeGreaterThan(1400)
    // A final capital sigma is folded to a final small one, in context.
    expect(inJson(JSON.stringify("x \u03a3\u03a3\u03a3\u03a3"), ["\u03c3\u03c3\u03c3\u03c2"])).toBe(true)
  })

  it("text that holds no secret comes back as it was, the same string", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ maxLength: 200 }), (text) => {
        const secret = "secret-api-value-5678"
        FastCheck.pre(!contains(text, secret))
        expect(scrub(text, [secret])).toBe(text)
      }),
    )
  })

  it("short values are left alone, and every string of a JSON value is scrubbed, keys included", () => {
    expect(scrub("a ab abc", ["ab"])).toBe("a ab abc")
    const secret = "Hunter2-Pass"
    expect(scrubValue({ [secret.toUpperCase()]: ["x HUNTER2-pass y", 3, null] }, [secret])).toEqual({
      [REDACTED]: [`x ${REDACTED} y`, 3, null],
    })
    // A plain backslash in a secret is found as it is, not read as an escape.
    expect(scrub("key a\\nb!", ["a\\nb!"])).toBe(`key ${REDACTED}`)
  })
})
