/**
 * Who an audit line names, in its two fields: `caller`, the key the call was made with, and `who`,
 * the person (a signed-in identity, or a key by its fingerprint), which a secret that passed names too.
 */
import * as Option from "effect/Option"
import * as CallContext from "../Call/Context.js"

/** Who an audit line names: the caller's key as it is, a signed-in identity as its principal, or the server. */
export const auditCaller = (context: CallContext.CallContext): string =>
  Option.match(Option.isSome(context.identity) ? Option.none() : CallContext.namedCallerOf(context), {
    onNone: () => CallContext.principalOf(context),
    onSome: (caller) => caller.key,
  })

const Crypto = () => process.getBuiltinModule("node:crypto")

/**
 * Who an intent names: the signed-in identity, else the caller key's fingerprint (a digest of
 * the key id, never of its secret), else the server.
 */
export const whoOf = (context: CallContext.CallContext): string => {
  if (Option.isSome(context.identity)) return CallContext.principalOf(context)
  return Option.match(CallContext.namedCallerOf(context), {
    onNone: () => CallContext.SERVER_PRINCIPAL,
    onSome: (caller) =>
      `key:sha256:${Crypto().createHash("sha256").update(caller.key).digest("base64url").slice(0, 16)}`,
  })
}
