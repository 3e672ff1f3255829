/**
 * Per-request mode: a caller key the service refused is not sent again within
 * the service's failure window (RefusedKeys). The caller gets the refusal at
 * once, from memory, and its address keeps its remaining attempts; the first
 * success with the key ends what was remembered of it.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"
import { SvcAuthError, type SvcError, type Target } from "../Service/Errors.js"
import { type NamingShape, single } from "../Settings/Naming.js"
import { describe, fingerprint, type RefusedKeysShape } from "./RefusedKeys.js"

/** The detail of a refusal answered from memory. */
const remembered = (text: string, naming: NamingShape = single): string =>
  `the service refused the caller's API key; check the ${naming.header("Key")} and ${naming.header("Secret")} the client sends, and whether the key has expired (${text})`

/** Around one request to the service on behalf of the current caller, if there is one. */
export const guarded =
  (refusedKeys: Option.Option<RefusedKeysShape>, call: Target, naming: NamingShape = single) =>
  <A, R>(self: Effect.Effect<A, SvcError, R>): Effect.Effect<A, SvcError, R> =>
    Option.isNone(refusedKeys)
      ? self
      : Effect.flatMap(CallContext.get, (context) => {
          const caller = CallContext.callerOf(context)
          if (Option.isNone(caller)) return self
          const keys = refusedKeys.value
          const id = fingerprint(caller.value.key, caller.value.secret)
          return Effect.flatMap(keys.check(id), (known) =>
            Option.isSome(known)
              ? Effect.fail(
                  new SvcAuthError({
                    call,
                    reason: "Rejected",
                    status: 401,
                    detail: remembered(describe(known.value), naming),
                  }),
                )
              : self.pipe(
                  Effect.tap(() => keys.succeeded(id)),
                  Effect.tapError((error) =>
                    error._tag === "SvcAuthError" && error.reason === "Rejected" && error.status === 401
                      ? keys.refused(id)
                      : Effect.void,
                  ),
                ),
          )
        })
