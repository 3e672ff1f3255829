/**
 * What a start costs in Effect's steps before it serves: the settings read and the parts made,
 * counted by the scheduler the command's fibers inherit (its `shouldYield` is asked once a step).
 * At a start every step runs effect's code cold, so a layer built (a hundred and fifty steps)
 * or a setting read through an Effect per node (a hundred) is what the start slid by before
 * (docs/benchmark.md, "The start's steps"). Counted so, this took 6,073 steps before the settings
 * were read in one walk and the parts made without layers, 827 after. The command stops where
 * serving would begin: stdio refuses per-request credentials once everything is made.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as CommandLine from "../../../src/Cli/CommandLine.js"
import * as Commands from "../../../src/Cli/Commands.js"
import * as Environment from "../../../src/Settings/Environment.js"
import * as Steps from "../../support/Steps.js"

const ENVIRONMENT = { SVC_URL: "http://127.0.0.1:9/svc", SVC_MCP_CREDENTIALS: "per-request" }

describe("a start's steps", () => {
  it.live("reading the settings and making the parts takes at most 1,000", () => {
    const counting = Steps.counter()
    const written = vi.spyOn(console, "error").mockImplementation(() => {})
    const saved = process.env
    process.env = { ...ENVIRONMENT }
    return Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Commands.run(CommandLine.parse([])).pipe(
          Effect.withConfigProvider(Environment.provider),
          Effect.withScheduler(counting.scheduler),
        ),
      )
      // Everything was made: the refusal is the one serve makes last, before it listens.
      expect(written.mock.calls.map(([line]) => String(line))).toEqual([
        expect.stringMatching(/^svc-mcp: SVC_MCP_CREDENTIALS is per-request, which needs HTTP/),
      ])
      expect(exit).toEqual(Exit.fail(new Commands.ExitCode({ code: 2 })))
      expect(counting.steps()).toBeGreaterThan(100)
      expect(counting.steps()).toBeLessThanOrEqual(1_000)
    }).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          process.env = saved
          written.mockRestore()
        }),
      ),
    )
  })
})
