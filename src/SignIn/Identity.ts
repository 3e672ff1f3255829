/**
 * Who signed in, as a call carries it (Call/Context.ts): the identity the
 * verified token names, and the service credentials its mapping gives.
 * `signedIn` is the one place a call is put in that identity's hands.
 */
import * as Option from "effect/Option"
import type * as CallContext from "../Call/Context.js"
import type * as Identities from "../Settings/Identities.js"

export type Identity = CallContext.Identity

const callerOf = (pair: Identities.KeyPair): CallContext.Caller => ({ key: pair.key, secret: pair.secret })

const credentialsOf = (entry: Identities.Entry, person: string): CallContext.Credentials => {
  if (entry._tag === "All") {
    switch (entry.credentials._tag) {
      case "Key":
        return { _tag: "Caller", caller: callerOf(entry.credentials.pair) }
      case "Mint":
        return { _tag: "Minted", person, grant: entry.credentials.grant }
      case "Server":
        return { _tag: "Server" }
    }
  }
  const callers = new Map<string, CallContext.Caller>()
  for (const [service, credentials] of entry.services) {
    if (credentials._tag === "Key") callers.set(service, callerOf(credentials.pair))
  }
  return callers.size === 0 ? { _tag: "Server" } : { _tag: "PerService", callers }
}

/**
 * A request's context as `identity`'s, sending what its entry maps it to: its
 * own key (for every service, or for each service it names), a key minted for
 * it, else the server's own credentials.
 */
export const signedIn =
  (identity: Identity, entry: Identities.Entry) =>
  (context: CallContext.CallContext): CallContext.CallContext => ({
    ...context,
    identity: Option.some(identity),
    credentials: credentialsOf(entry, identity.name),
  })
