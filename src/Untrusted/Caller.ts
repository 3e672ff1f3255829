/**
 * Who a call's caller is, for the guard's window: over HTTP the caller's own
 * service key (per-request mode), else its address; over stdio the
 * connection, which is the process's one. One function, so that the call's
 * context can take its place.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as CallerAddress from "../Callers/Address.js"
import * as CallerCredentials from "../Service/CallerCredentials.js"

/** A call with neither key nor address came over stdio: one connection per process. */
export const STDIO = "stdio"

/** The caller of the call being run. */
export const callerOf: Effect.Effect<string> = Effect.map(
  Effect.zip(FiberRef.get(CallerCredentials.current), FiberRef.get(CallerAddress.current)),
  ([credentials, address]) =>
    Option.isSome(credentials)
      ? `key:${credentials.value.key}`
      : Option.isSome(address)
        ? `address:${address.value}`
        : STDIO,
)
