/**
 * `check`'s sign-in steps (and `/readyz`'s, which reads the same): an issuer
 * that cannot be reached is one failed step whose detail says why, once,
 * rather than each metadata URL's bare "fetch failed".
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as SignInCheck from "../../../src/Diagnosis/IdentityProvider.js"
import * as Ports from "../../support/Ports.js"

describe("check's issuer step", () => {
  it.live("an issuer nothing answers at: failed, with the cause said once", () =>
    Effect.gen(function* () {
      const issuer = `http://127.0.0.1:${yield* Ports.closedPort}/realms/team`
      const [step] = yield* SignInCheck.issuerSteps([issuer])
      expect(step).toMatchObject({ name: "issuer", status: "fail" })
      expect(step?.detail).toBe(
        `no metadata for ${issuer}: fetch failed (connect ECONNREFUSED ${issuer.slice(7, -12)})`,
      )
      expect(step?.hint).toContain("SVC_MCP_OAUTH_ISSUER")
    }),
  )

  it.live("an issuer whose two documents fail differently: each cause, once", () =>
    Effect.gen(function* () {
      const issuer = "https://login.example.test/realms/team"
      const fetcher: typeof fetch = (input) =>
        String(input).includes("oauth-authorization-server")
          ? Promise.resolve(new Response("not found", { status: 404 }))
          : Promise.reject(
              new TypeError("fetch failed", { cause: Object.assign(new Error(""), { code: "ENOTFOUND" }) }),
            )
      const [step] = yield* SignInCheck.issuerSteps([issuer], fetcher)
      expect(step?.detail).toBe(
        `no metadata for ${issuer}: https://login.example.test/.well-known/oauth-authorization-server/realms/team answered 404; fetch failed (ENOTFOUND)`,
      )
    }),
  )
})
