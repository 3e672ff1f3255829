/**
 * `svc-mcp check` with sign-in configured: each issuer's metadata and JWKS
 * fetched as the server will fetch them, and what was found said: where the
 * keys are, how many, with which algorithms; the resource and audience tokens
 * must name; how many identities the mapping holds.
 */
import * as Effect from "effect/Effect"
import type { SignInSettingsShape } from "../Settings/SignIn.js"
import * as Scopes from "../SignIn/Scopes.js"
import * as Verifier from "../SignIn/Verifier.js"
import type { Step } from "./Check.js"

const mark = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const

/** Each issuer's metadata and JWKS, fetched as the server fetches them: a step for each. */
export const issuerSteps = (
  issuers: ReadonlyArray<string>,
  fetcher: typeof fetch = fetch,
): Effect.Effect<ReadonlyArray<Step>> =>
  Effect.forEach(issuers, (issuer) =>
    Effect.map(Effect.either(Verifier.fetchJwks(fetcher, issuer)), (found): Step => {
      if (found._tag === "Left") {
        return {
          name: "issuer",
          status: "fail",
          detail: found.left,
          hint: "check SVC_MCP_OAUTH_ISSUER: it must be the issuer exactly as the provider's metadata names it, reachable from here",
        }
      }
      const keys = found.right.jwks.keys
      const usable = keys.filter(
        (key) => key.use !== "enc" && (key.alg === undefined || Verifier.ALGORITHMS.includes(key.alg)),
      )
      const algorithms = [...new Set(usable.map((key) => key.alg ?? key.kty ?? "?"))].join(", ")
      return {
        name: "issuer",
        status: usable.length > 0 ? "ok" : "fail",
        detail: `${issuer}: ${usable.length} signing key(s) (${algorithms || "none"}) at ${found.right.uri}`,
        ...(usable.length > 0
          ? {}
          : { hint: "the JWKS holds no asymmetric signing key; tokens signed with HMAC or none are refused" }),
      }
    }),
  )

export const run = (settings: SignInSettingsShape, fetcher: typeof fetch = fetch): Effect.Effect<ReadonlyArray<Step>> =>
  Effect.gen(function* () {
    const steps: Array<Step> = [...(yield* issuerSteps(settings.issuers, fetcher))]
    steps.push({
      name: "resource",
      status: "ok",
      detail: `${settings.resource} (audience ${settings.audience}; scopes ${Scopes.make(settings.scopePrefix).all.join(", ")})`,
    })
    const mapped = settings.identities.entries.size
    steps.push({
      name: "people",
      status: "ok",
      detail:
        Array.from(settings.identities.entries.keys()).includes("*") || mapped === 0
          ? `claim ${settings.identities.claim}; ${mapped} entr${mapped === 1 ? "y" : "ies"}, * admits anyone signed in`
          : `claim ${settings.identities.claim}; ${mapped} entr${mapped === 1 ? "y" : "ies"}; anyone else is refused`,
    })
    return steps
  })

/** The sign-in steps as lines, as the check's own report shows its steps. */
export const format = (steps: ReadonlyArray<Step>): string =>
  [
    "Sign-in:",
    ...steps.flatMap((step) => [
      `  [${mark[step.status]}] ${step.name.padEnd(8)} ${step.detail}`,
      ...(step.hint === undefined ? [] : [`           ${"".padEnd(8)} -> ${step.hint}`]),
    ]),
  ].join("\n")
