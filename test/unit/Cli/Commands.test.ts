/**
 * How a command's end becomes the process's exit code: through the runtime's
 * main (its teardown), after the program's scopes are closed, not by exiting
 * from inside the program.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Commands from "../../../src/Cli/Commands.js"

const codeOf = (exit: Exit.Exit<unknown, unknown>) => {
  let code: number | undefined
  Commands.teardown(exit, (c) => {
    code = c
  })
  return code
}

describe("exit codes", () => {
  it("an ExitCode sets its code; any other failure 1; success and a signal's interruption 0", () => {
    expect(codeOf(Exit.fail(new Commands.ExitCode({ code: 2 })))).toBe(2)
    expect(codeOf(Exit.fail(new Commands.ExitCode({ code: 1 })))).toBe(1)
    expect(codeOf(Exit.die(new Error("a defect")))).toBe(1)
    expect(codeOf(Exit.fail("another error"))).toBe(1)
    expect(codeOf(Exit.void)).toBe(0)
    expect(codeOf(Exit.failCause(Cause.interrupt(FiberId.none)))).toBe(0)
  })

  it.effect(
    "a command line that is refused says why on stderr and fails with ExitCode 2; nothing exits the process",
    () => {
      // The runtime's teardown sets the code once the scopes are closed; a command that exited
      // by itself would skip them.
      const exited = vi.spyOn(process, "exit").mockImplementation(() => {
        throw new Error("process.exit called from inside the program")
      })
      const written = vi.spyOn(console, "error").mockImplementation(() => {})
      return Effect.gen(function* () {
        const exit = yield* Effect.exit(Commands.run({ _tag: "Invalid", message: "unknown argument" }))
        expect(exited).not.toHaveBeenCalled()
        expect(written.mock.calls).toEqual([["svc-mcp: unknown argument; see svc-mcp --help"]])
        expect(exit).toEqual(Exit.fail(new Commands.ExitCode({ code: 2 })))
        expect(codeOf(exit)).toBe(2)
      }).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            exited.mockRestore()
            written.mockRestore()
          }),
        ),
      )
    },
  )
})
