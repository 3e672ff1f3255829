/**
 * No silent setting: a variable beginning with SVC_ that no setting reads is named, with the
 * setting nearest its name (SVC_MDOE: SVC_MODE); each service's own forms of the settings
 * (SVC_PROD_MODE) are settings when SVC_SERVICES names the service. And `check` says which calls
 * that remove or stop something are offered and asked of no one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { ALL } from "../../../src/Cli/Variables.js"
import * as Destructive from "../../../src/Diagnosis/Destructive.js"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Unknown from "../../../src/Settings/Unknown.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"

const KNOWN = ALL.map((variable) => variable.name)

describe("a variable no setting reads", () => {
  it("is named with the setting nearest its name, or as ignored when none is near", () => {
    const found = Unknown.among(["SVC_MDOE", "SVC_CONFRIM", "SVC_MODE", "PATH", "SVC_NOTHING_LIKE_IT_AT_ALL"], KNOWN)
    expect(found.map(Unknown.words)).toEqual([
      "SVC_CONFRIM is no setting; did you mean SVC_CONFIRM?",
      "SVC_MDOE is no setting; did you mean SVC_MODE?",
      "SVC_NOTHING_LIKE_IT_AT_ALL is no setting of svc-mcp, and is ignored (svc-mcp --help lists them)",
    ])
  })

  it("is none of a service's own settings, where SVC_SERVICES names it; a typo of one says it", () => {
    expect(Unknown.among(["SVC_PROD_MODE", "SVC_PROD_URL", "SVC_PROD_API_KEY_FILE"], KNOWN, ["prod"])).toEqual([])
    expect(Unknown.among(["SVC_PROD_MDOE"], KNOWN, ["prod"]).map(Unknown.words)).toEqual([
      "SVC_PROD_MDOE is no setting; did you mean SVC_PROD_MODE?",
    ])
    // Without SVC_SERVICES, a service's form is no setting.
    expect(Unknown.among(["SVC_PROD_MODE"], KNOWN)).toHaveLength(1)
  })

  it("is named twenty at most, however many are set", () => {
    const many = Array.from({ length: 500 }, (_, i) => `SVC_X${i}`)
    expect(Unknown.among(many, KNOWN)).toHaveLength(20)
  })
})

const policyOf = (env: Record<string, string>) =>
  Settings.loadSettings.pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    Effect.flatMap((settings) => Policy.make(settings)),
  )

describe("check's step on the calls that lose data", () => {
  it.effect("names each one the mode offers that no setting asks before, and is ok once SVC_CONFIRM=destructive", () =>
    Effect.gen(function* () {
      const documented = Destructive.stepOf(
        yield* policyOf({ SVC_CONFIRM: "svc_delete:*,svc_execute:destroy_*,svc_execute:prune_*" }),
      )
      expect(documented.status).toBe("warn")
      for (const left of ["run_server_prune_images", "delete_volume", "batch_destroy_stack", "remove_swarm_stacks"]) {
        expect(documented.detail).toContain(left)
      }
      expect(documented.detail).not.toMatch(/svc_delete/)
      expect(documented.hint).toMatch(/SVC_CONFIRM=destructive/)
      expect(Destructive.stepOf(yield* policyOf({ SVC_CONFIRM: "destructive" })).status).toBe("ok")
      // Read-only offers none of them.
      expect(Destructive.stepOf(yield* policyOf({ SVC_MODE: "read-only" })).status).toBe("ok")
      // Operate offers svc_execute's, not svc_delete's.
      const operate = Destructive.stepOf(yield* policyOf({ SVC_MODE: "operate" }))
      expect(operate.detail).toMatch(/svc_execute: /)
      expect(operate.detail).not.toMatch(/svc_delete/)
    }),
  )
})
