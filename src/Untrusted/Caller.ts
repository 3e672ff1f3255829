/**
 * Whose window a call falls in (the guard's, Guard.ts): the person who reads
 * and who changes, not the service the call is for, so that text read from one
 * service holds the same person's changes on every other.
 *
 * A call names the person by every name its request brings: the signed-in
 * identity and each service key it sent (among several services, every pair,
 * not only the one of the call's service). Its conversation is the session a
 * 2025-era client was issued over HTTP, or the stdio connection. A reading is
 * noted under each name, and a change looks under each: the window is one
 * person's in every conversation and one conversation's under every key.
 * Only a 2026-07-28 client over HTTP with the shared credentials and no
 * sign-in has none of these names: it is known by its address.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"

/** The stdio connection: one per process. */
export const STDIO = "stdio"

export interface Callers {
  /**
   * The names of the person: `oauth:` the identity (its issuer and subject), `key:` each key id
   * the request brought; else, with no conversation either, `address:` its address.
   */
  readonly person: ReadonlyArray<string>
  /** The conversation: `session:` a 2025-era client's session over HTTP, or the stdio connection; none for a 2026-07-28 client over HTTP. */
  readonly conversation: Option.Option<string>
}

const keysOf = (credentials: CallContext.Credentials): ReadonlyArray<string> => {
  switch (credentials._tag) {
    case "Server":
    case "Minted":
      return []
    case "Caller":
      return [`key:${credentials.caller.key}`]
    case "PerService":
      return [...new Set([...credentials.callers.values()].map((caller) => `key:${caller.key}`))]
  }
}

/** The names of a call with this context. */
export const callersIn = (context: CallContext.CallContext): Callers => {
  const identity = Option.match(context.identity, {
    onNone: () => [],
    onSome: (who) => [`oauth:${JSON.stringify([who.issuer, who.subject])}`],
  })
  const person = [...identity, ...keysOf(context.credentials)]
  const conversation = Option.isSome(context.session)
    ? Option.some(`session:${context.session.value}`)
    : Option.isNone(context.address)
      ? Option.some(STDIO)
      : Option.none()
  // No name but the address: a 2026-07-28 client with the shared credentials (Option.isNone(conversation) says there is one).
  if (person.length === 0 && Option.isNone(conversation) && Option.isSome(context.address)) {
    return { person: [`address:${context.address.value}`], conversation }
  }
  return { person, conversation }
}

/** The names of the call being run. */
export const callersOf: Effect.Effect<Callers> = Effect.map(CallContext.get, callersIn)
