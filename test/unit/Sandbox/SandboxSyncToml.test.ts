/**
 * The sandbox's TOML of a sync's files: what it writes, it reads back as it
 * was, for any fields; and what is not TOML is refused with where.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as SyncToml from "../../../src/Sandbox/Resources/SyncToml.js"

// Names a table's prototype lends among them: a field is read as the text gives it, never as inherited.
const key = FastCheck.oneof(
  FastCheck.stringMatching(/^[A-Za-z0-9_ -]{1,8}$/),
  FastCheck.constantFrom("toString", "constructor", "hasOwnProperty"),
)
const leaf = FastCheck.oneof(
  FastCheck.string(),
  FastCheck.integer(),
  FastCheck.boolean(),
  FastCheck.array(FastCheck.string(), { maxLength: 3 }),
)
const { tree } = FastCheck.letrec((tie) => ({
  tree: FastCheck.dictionary(key, FastCheck.oneof({ depthSize: "small" }, leaf, tie("tree")), { maxKeys: 4 }),
}))

describe("a sync's TOML", () => {
  it("reads back what it writes, for any fields: strings of any text, numbers, flags, lists, nested tables", () => {
    FastCheck.assert(
      FastCheck.property(tree, (fields) => {
        const text = [
          "[[deployment]]",
          'name = "api"',
          "",
          "[deployment.config]",
          ...SyncToml.lines(SyncToml.leavesOf(fields)),
        ]
        const read = SyncToml.parse(text.join("\n"))
        expect(read).toEqual({ deployment: [{ name: "api", config: fields }] })
      }),
    )
  })

  it("reads the forms people write by hand: comments, literal strings, lists over lines, inline tables", () => {
    const text = [
      "# the estate",
      "[[stack]]",
      "name = 'web' # literal",
      "[stack.config]",
      "file_paths = [",
      '  "compose.yaml",',
      '  "compose.prod.yaml",',
      "]",
      'environment = { LOG = "debug", "MAX WORKERS" = 4 }',
      "[[stack]]",
      'name = "cache"',
      "deploy = true",
    ].join("\n")
    expect(SyncToml.parse(text)).toEqual({
      stack: [
        {
          name: "web",
          config: {
            file_paths: ["compose.yaml", "compose.prod.yaml"],
            environment: { LOG: "debug", "MAX WORKERS": 4 },
          },
        },
        { name: "cache", deploy: true },
      ],
    })
  })

  it("refuses what is not TOML, saying where", () => {
    for (const [text, error] of [
      ['name = "api', "line 1: an unclosed string"],
      ["[[stack]\nname = 1", "line 1: an unclosed table header"],
      ["a = 1\na = 2", "line 2: a is defined twice"],
      ["a = [1, 2", "line 1: an unclosed array"],
      ["a = nope", 'line 1: an unknown value "nope"'],
      ["a = 1 b = 2", "line 1: expected the end of the line"],
    ] as const) {
      expect(() => SyncToml.parse(text), text).toThrow(`TOML parse error at ${error}`)
    }
  })
})
