/**
 * Who signed in, as a call carries it: the identity the verified token names,
 * and the service credentials its mapping gives. `within` is the one place a
 * call is put in that identity's hands.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as CallerCredentials from "../Service/CallerCredentials.js"
import * as ServiceCallers from "../Service/ServiceCallers.js"
import type * as Identities from "./Identities.js"

export interface Identity {
  readonly issuer: string
  readonly subject: string
  /** The configured claim's value, e.g. an email: how the person is named in audit lines. */
  readonly name: string
  readonly scopes: ReadonlyArray<string>
}

/** The identity of the call this fiber serves; None without sign-in. */
export const current: FiberRef.FiberRef<Option.Option<Identity>> = FiberRef.unsafeMake(Option.none<Identity>())

/** How audit lines name a signed-in caller. */
export const principalOf = (identity: Identity): string => `oauth:${identity.name}`

/** What confirmation states are bound to: the issuer and the subject, which no other identity shares. */
export const bindingOf = (identity: Identity): string => `oauth:${JSON.stringify([identity.issuer, identity.subject])}`

const callerOf = (pair: Identities.KeyPair): CallerCredentials.Caller => ({ key: pair.key, secret: pair.secret })

/**
 * Runs `self` as `identity`, sending what its entry maps it to: its own key
 * (for every service, or for each service it names), else the server's own.
 */
export const within =
  (identity: Identity, entry: Identities.Entry) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    let program = Effect.locally(self, current, Option.some(identity))
    if (entry._tag === "All") {
      if (entry.credentials._tag === "Key") program = CallerCredentials.as(callerOf(entry.credentials.pair))(program)
    } else {
      const callers = new Map<string, CallerCredentials.Caller>()
      for (const [service, credentials] of entry.services) {
        if (credentials._tag === "Key") callers.set(service, callerOf(credentials.pair))
      }
      program = ServiceCallers.as(callers)(program)
    }
    return program
  }
