/**
 * The names SVC_SERVICES may give: each service reads its own variables under
 * its name, so a name whose variables are the server's own settings is refused.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { GROUPS } from "../../../src/Cli/Variables.js"
import { PER_SERVICE, variable } from "../../../src/Settings/Naming.js"
import { load, SERVER_WIDE } from "../../../src/Settings/Registry.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("the services' names", () => {
  it("SERVER_WIDE holds every variable the server reads that has the form of a service's own", () => {
    const suffixes = PER_SERVICE.map((suffix) => `_${suffix}`)
    const shaped = GROUPS.flatMap((group) => group.variables.map((v) => v.name)).filter((name) =>
      suffixes.some((suffix) => name.startsWith("SVC_") && name.endsWith(suffix) && name.length > 4 + suffix.length),
    )
    expect(new Set(shaped)).toEqual(SERVER_WIDE)
    // Each is the own variable of some service name, which the refusal names.
    for (const name of SERVER_WIDE) {
      const suffix = PER_SERVICE.find((s) => name.endsWith(`_${s}`)) as string
      const service = name
        .slice("SVC_".length, -(suffix.length + 1))
        .toLowerCase()
        .replace(/_/g, "-")
      expect(variable(service, `SVC_${suffix}`)).toBe(name)
    }
  })

  it.effect("a service named wait is refused: its time-out would be SVC_WAIT_TIMEOUT_MS, a server-wide setting", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(load.pipe(withEnv({ SVC_SERVICES: "prod,wait" })))
      expect(error.variable).toBe("SVC_SERVICES")
      expect(error.message).toMatch(/"wait", whose SVC_WAIT_TIMEOUT_MS is a server-wide setting/)
      expect(error.message).toMatch(/rename the service/)
    }),
  )

  it.effect("a service named mcp-public is refused: its URL would be SVC_MCP_PUBLIC_URL, sign-in's public URL", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(load.pipe(withEnv({ SVC_SERVICES: "prod,mcp-public" })))
      expect(error.message).toMatch(/"mcp-public", whose SVC_MCP_PUBLIC_URL is a server-wide setting/)
    }),
  )

  it.effect("names whose variables are their own are taken, in their order", () =>
    Effect.gen(function* () {
      const names = yield* load.pipe(withEnv({ SVC_SERVICES: "prod,staging,waiting" }))
      expect(names).toEqual(Option.some(["prod", "staging", "waiting"]))
    }),
  )
})
