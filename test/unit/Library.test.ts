/**
 * Another Effect program composing the package's layers, without MCP,
 * through the package's own entry point.
 */

import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Bundle, Definitions, Invoke, SvcClient, SvcTransport, VERSION } from "../../src/index.js"
import * as PatternReader from "../../src/Shared/PatternReader.js"
import * as ParamsCheck from "../../src/Tools/Params/ParamsCheck.js"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"

const services = Bundle.client.pipe(Layer.provide(SvcTransport.layer))

describe("the package as a library", () => {
  it.scoped("composes Config (from any ConfigProvider), Auth and SvcClient, and runs tool programs", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ users: { [Layers.USER]: Layers.PASSWORD } })
      const env = new Map([
        ["SVC_URL", double.url],
        ["SVC_INIT_ADMIN_USERNAME", Layers.USER],
        ["SVC_INIT_ADMIN_PASSWORD", Layers.PASSWORD],
      ])
      const program = Effect.gen(function* () {
        const client = yield* SvcClient.SvcClient
        const direct = yield* client.call("read", "GetVersion", {})
        const viaTool = yield* Invoke.invoke(Definitions.svc_get, { resource_type: "stack", params: { stack: "web" } })
        return { direct, viaTool }
      })
      const { direct, viaTool } = yield* program.pipe(
        Effect.provide(services),
        Effect.withConfigProvider(ConfigProvider.fromMap(env)),
      )
      expect(direct).toEqual({ endpoint: "read/GetVersion", params: {} })
      expect(viaTool.data).toEqual({ endpoint: "read/GetStack", params: { stack: "web" } })
      expect(double.logins).toBe(1)
    }).pipe(Effect.provide(ParamsCheck.layerLazy), Effect.provide(PatternReader.layer)),
  )

  it("declares its version as package.json does", () => {
    const pkg = JSON.parse(Fs.readFileSync(Path.resolve(Path.dirname(import.meta.dirname), "../package.json"), "utf8"))
    expect(VERSION).toBe(pkg.version)
  })
})
