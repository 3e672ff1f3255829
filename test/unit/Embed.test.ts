/**
 * examples/embed.ts, shown in docs/embedding.md: a program of its own composes
 * the package's layers with its ConfigProvider and its HttpClient, runs a tool
 * program, and serves the tools over MCP. Run here in this process; as the program a
 * reader runs, with the documented commands (test/e2e/Readme.e2e.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { main } from "../../examples/embed.js"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"

describe("the embedding example", () => {
  it.live("serves the tools its settings allow, and answers the same through MCP as by the tool program", () =>
    Effect.gen(function* () {
      const { url, tools, direct, viaMcp, text } = yield* main
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      // SVC_MODE=read-only came from the program's own ConfigProvider.
      expect(tools).toEqual(Definitions.all.filter((tool) => tool.group === "read").map((tool) => tool.name))
      expect(direct).toContain("web")
      expect(viaMcp).toEqual(direct)
      // The rendered answer: the stacks as rows, the column names said once in its first line.
      expect(text).toContain('["web","')
      expect(text.split("\n")[0]).toContain('["name","id","state"')
    }),
  )
})
