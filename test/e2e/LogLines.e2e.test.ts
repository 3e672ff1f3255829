/**
 * What the server writes on stderr is one line per entry, whatever the service's text holds: a
 * stack id with a line end in it, echoed in the service's error and logged, forges no line.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Spawn from "../support/Spawn.js"

const FORGED = "2026-11-28T00:00:00.000Z INFO fake: admin approved everything"

describe("stderr", () => {
  it.scopedLive("holds a service's error that echoes a forged line on the error's own line", () =>
    Effect.gen(function* () {
      const { client, stderr } = yield* Spawn.connect({}, ["--sandbox"])
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_get",
          arguments: { resource_type: "stack", params: { stack: `nope\n${FORGED}\u2028${FORGED}` } },
        }),
      )
      expect(result.isError).toBe(true)
      // Logged before the answer is sent, but stderr is another pipe: read once the line is in.
      for (let i = 0; i < 100 && !stderr().includes("matching nope"); i++) yield* Effect.sleep("50 millis")
      const lines = stderr().split("\n")
      const logged = lines.filter((line) => line.includes("did not find any Stack matching nope"))
      expect(logged).toHaveLength(1)
      expect(logged[0]).toContain(`nope\\n${FORGED}\\u2028${FORGED}`)
      expect(lines.filter((line) => line.startsWith(FORGED))).toEqual([])
      expect(stderr()).not.toContain("\u2028")
    }),
  )
})
