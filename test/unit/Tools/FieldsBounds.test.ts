/**
 * `fields` through the protocol, against the sandbox: kept after redaction, so
 * a secret stays hidden whichever paths are asked; and before the output
 * budget, so that a shaped list fits where the whole one was cut.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

/** The sandbox's one secret variable's value (DB_PASSWORD). */
const SECRET = "s3cr3t-db-passw0rd"

describe("fields within the answer's bounds", () => {
  it.scoped("a secret variable's value stays redacted when only the value is asked for, in both eras", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      for (const era of ["legacy", "modern"] as const) {
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), {}, { era })
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "svc_list", arguments: { resource_type: "variable", fields: ["value", "name"] } }),
        )
        const text = Mcp.text(result)
        expect(text).not.toContain(SECRET)
        expect(JSON.stringify(result.structuredContent)).not.toContain(SECRET)
        const rows = JSON.parse(text) as Array<Record<string, unknown>>
        expect(rows.find((row) => row.name === "DB_PASSWORD")).toEqual({ value: "[redacted]", name: "DB_PASSWORD" })
        expect(rows.find((row) => row.name === "LOG_LEVEL")).toEqual({ value: "info", name: "LOG_LEVEL" })
        expect(result.structuredContent).toEqual({ result: rows })
      }
    }),
  )

  it.scoped("a list cut to fit the budget whole fits once shaped, and the cut note advises fields", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connect(Sandboxes.apiKeyConfig(sandbox), { maxOutputChars: 1_500 })
      const call = (args: Record<string, unknown>) =>
        Effect.promise(() =>
          client.callTool({ name: "svc_list_detail", arguments: { list_type: "all_containers", ...args } }),
        )

      const whole = yield* call({ fields: ["*"] })
      const [json, note] = Mcp.unfenced(Mcp.text(whole)).split("\n")
      const shown = JSON.parse(json ?? "") as Array<unknown>
      expect(note).toMatch(
        new RegExp(
          `^\\[svc-mcp: output cut to fit 1500 characters: showing ${shown.length} of (\\d+) items; narrow the request: .*or fields \\(the paths to keep\\)\\]$`,
        ),
      )
      const total = Number(/of (\d+) items/.exec(note ?? "")?.[1])
      expect(shown.length).toBeLessThan(total)
      expect(whole.structuredContent).toMatchObject({ truncated: true })

      const shaped = yield* call({ fields: ["name", "state"] })
      const text = Mcp.text(shaped)
      expect(text).not.toContain("\n")
      const rows = JSON.parse(text) as Array<Record<string, unknown>>
      expect(rows).toHaveLength(total)
      for (const row of rows) expect(Object.keys(row)).toEqual(["name", "state"])
      expect(shaped.structuredContent).toEqual({ result: rows })
    }),
  )
})
