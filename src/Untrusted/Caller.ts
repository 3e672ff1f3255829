/**
 * Who a call's caller is, for the guard's window: over HTTP the signed-in
 * identity or the caller's own service key (as audit lines name them), else
 * the session a 2025-era client was issued, else (a 2026-07-28 client with
 * shared credentials, which has no session) its address; over stdio the
 * connection, which is the process's one.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"

/** A call with no identity, key nor address came over stdio: one connection per process. */
export const STDIO = "stdio"

/** The caller of the call being run. */
export const callerOf: Effect.Effect<string> = Effect.map(CallContext.get, (context) => {
  const principal = CallContext.principalOf(context)
  if (principal !== CallContext.SERVER_PRINCIPAL) return principal
  if (Option.isSome(context.session)) return `session:${context.session.value}`
  return Option.match(context.address, { onNone: () => STDIO, onSome: (address) => `address:${address}` })
})
