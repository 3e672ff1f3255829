/**
 * `/readyz` with sign-in: ready only when signed-in people can be served.
 * Each issuer's metadata and keys are fetched as the server fetches them (the
 * same steps `svc-mcp check` prints): an issuer that cannot be read, or
 * publishes no signing key, leaves a token nothing to be checked against. And
 * where some person's entry says `mint`, the shared store must answer: while
 * it does not, no key can be minted (Mint/Outage.ts), so a person's first
 * call, or one whose key has expired, is refused. The people this replica
 * holds a key for are still served meanwhile; a balancer that should keep
 * sending them here probes `/healthz` instead (docs/replicas.md).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Step } from "../Diagnosis/Check.js"
import * as SignInCheck from "../Diagnosis/IdentityProvider.js"
import { SignIn, type SignInShape } from "../SignIn/Resource.js"

/** What this judges of readiness's finding (Readiness.ts' ReadyState, which imports this). */
interface ReadyState {
  readonly ready: boolean
  readonly reason?: string
  readonly store?: { readonly status: "up" | "down"; readonly where: string; readonly detail?: string }
}

/** Whether the identities mapping in force gives some person a minted key. */
const mints = (signIn: SignInShape): Effect.Effect<boolean> =>
  Effect.map(signIn.mapping, (mapping) =>
    [...mapping.entries.values()].some((entry) => entry._tag === "All" && entry.credentials._tag === "Mint"),
  )

/** Not ready: the issuer's, or the store's, when minting needs it and it does not answer. */
const judged = <S extends ReadyState>(state: S, issuers: ReadonlyArray<Step>, minted: boolean): S => {
  if (!state.ready) return state
  const failed = issuers.find((step) => step.status === "fail")
  if (failed !== undefined) {
    return {
      ...state,
      ready: false,
      reason: `issuer: ${failed.detail}${failed.hint === undefined ? "" : ` (${failed.hint})`}`,
    }
  }
  if (minted && state.store?.status === "down") {
    return {
      ...state,
      ready: false,
      reason: `store: the shared store at ${state.store.where} does not answer (${state.store.detail ?? "down"}): no key can be minted for signed-in people until it answers, so their first calls are refused; the people this replica holds a key for are still served`,
    }
  }
  return state
}

/**
 * The check, judged with sign-in when it is on (the SignIn provided) and `minting` is set up (the
 * server's own credentials mint keys); as it is otherwise.
 */
export const withSignIn = <S extends ReadyState>(
  check: Effect.Effect<S>,
  minting: boolean,
): Effect.Effect<Effect.Effect<S>> =>
  Effect.map(
    SignIn,
    Option.match({
      onNone: () => check,
      onSome: (signIn) =>
        Effect.map(
          Effect.all(
            [check, SignInCheck.issuerSteps(signIn.settings.issuers), minting ? mints(signIn) : Effect.succeed(false)],
            { concurrency: "unbounded" },
          ),
          ([state, issuers, minted]) => judged(state, issuers, minted),
        ),
    }),
  )
