/**
 * An answer cut at the byte cap, made a value: every prefix of every JSON text
 * closes into valid JSON that keeps only what arrived whole (a string value cut
 * short to its last whole line), and SVC_MAX_ANSWER_BYTES reads as every
 * setting does, forty output budgets when unset.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"
import * as Config from "../../../src/Config.js"
import { complete } from "../../../src/Service/CutJson.js"

/** Whether `part` is what arrived of `whole`: the same, or less of it at any depth (a string: a prefix). */
const within = (part: unknown, whole: unknown): boolean => {
  if (typeof part === "string") return typeof whole === "string" && whole.startsWith(part)
  if (Array.isArray(part)) {
    return Array.isArray(whole) && part.length <= whole.length && part.every((item, i) => within(item, whole[i]))
  }
  if (typeof part === "object" && part !== null) {
    if (typeof whole !== "object" || whole === null || Array.isArray(whole)) return false
    const keys = Object.keys(whole as object)
    return Object.entries(part).every(
      ([key, value], i) => keys[i] === key && within(value, (whole as Record<string, unknown>)[key]),
    )
  }
  return part === whole
}

describe("an answer cut at the byte cap", () => {
  it("every prefix of a JSON text closes into JSON that holds only what arrived", () =>
    FastCheck.assert(
      FastCheck.property(
        FastCheck.oneof(
          FastCheck.array(FastCheck.jsonValue()),
          FastCheck.dictionary(FastCheck.string(), FastCheck.jsonValue()),
        ),
        FastCheck.nat(),
        (value, at) => {
          const text = JSON.stringify(value)
          const prefix = text.slice(0, at % (text.length + 1))
          const closed = complete(prefix)
          // Nothing arrives whole of an empty text; of any other prefix of an array or object, at least its opening.
          expect(closed === undefined).toBe(prefix === "")
          if (closed !== undefined) expect(within(JSON.parse(closed), value), `${prefix} -> ${closed}`).toBe(true)
          // The whole text is the whole value.
          expect(JSON.parse(complete(text) as string)).toEqual(JSON.parse(text))
        },
      ),
    ))

  it("a log's text cut short keeps its whole lines; a list keeps its whole items, the last one's fields that arrived", () => {
    const log = JSON.stringify({ stage: "Get Log", stdout: "one\ntwo\nthree and more", stderr: "" })
    expect(JSON.parse(complete(log.slice(0, log.indexOf("more"))) as string)).toEqual({
      stage: "Get Log",
      stdout: "one\ntwo",
    })
    const list = JSON.stringify([
      { name: "a", state: "ok" },
      { name: "b", state: "down" },
    ])
    expect(JSON.parse(complete(list.slice(0, list.indexOf('"state":"down"'))) as string)).toEqual([
      { name: "a", state: "ok" },
      { name: "b" },
    ])
    // An escape cut in its middle is left out whole.
    expect(JSON.parse(complete('["ab\\u00') as string)).toEqual(["ab"])
    expect(complete("12345")).toBeUndefined()
  })
})

describe("SVC_MAX_ANSWER_BYTES", () => {
  const maxFrom = (env: Record<string, string>) =>
    Config.loadFor("server").pipe(
      Effect.map((config) => config.maxAnswerBytes),
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map(Object.entries({ SVC_URL: "http://svc.test", SVC_API_KEY: "k", SVC_API_SECRET: "s", ...env })),
        ),
      ),
    )

  it.effect("forty output budgets unless set; a whole number of bytes from 1024 when set; anything else refused", () =>
    Effect.gen(function* () {
      expect(yield* maxFrom({})).toBe(2_000_000)
      expect(yield* maxFrom({ SVC_MAX_OUTPUT_CHARS: "30000" })).toBe(1_200_000)
      expect(yield* maxFrom({ SVC_MAX_ANSWER_BYTES: "8000000" })).toBe(8_000_000)
      const refused = yield* Effect.flip(maxFrom({ SVC_MAX_ANSWER_BYTES: "12mb" }))
      expect(refused.message).toMatch(/^SVC_MAX_ANSWER_BYTES is not a whole number of bytes from 1024 \("12mb"\)/)
    }),
  )
})
