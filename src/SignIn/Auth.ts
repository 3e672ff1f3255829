/**
 * The Auth of a server with sign-in: a call whose identity is mapped to a key
 * of its own sends exactly that key (in the call's context, set by
 * Identity.signedIn); any other call sends the server's own credentials. A mapped
 * key the service refuses is not tried again: the service counts failures per
 * address, and a login cannot make another person's key valid.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Auth, type AuthShape, type Credential } from "../Auth.js"
import * as CallContext from "../Call/Context.js"
import { SvcAuthError } from "../Service/Errors.js"
import type { ConfigError } from "../Settings/Read.js"
import * as SignInSettings from "../Settings/SignIn.js"

/** The generation of a mapped key's headers: never renewed. */
const MAPPED = -1

export const withIdentities = (server: AuthShape): AuthShape => ({
  method: server.method,
  credential: Effect.flatMap(Effect.map(CallContext.get, CallContext.callerOf), (caller) =>
    Option.isNone(caller)
      ? server.credential
      : Effect.succeed<Credential>({
          headers: { "x-api-key": caller.value.key, "x-api-secret": Redacted.value(caller.value.secret) },
          generation: MAPPED,
        }),
  ),
  // Only a server that logs in renews; a mapped key is never renewed.
  renew: Option.map(
    server.renew,
    (renew) => (stale: Credential) =>
      stale.generation === MAPPED
        ? Effect.fail(
            new SvcAuthError({
              call: { group: "auth", endpoint: "identity" },
              reason: "Rejected",
              status: 401,
              detail:
                "the service refused the API key SVC_MCP_IDENTITIES maps this identity to; it is not tried again (check the key's files and whether it has expired)",
            }),
          )
        : renew(stale),
  ),
  secrets: Effect.flatMap(Effect.map(CallContext.get, CallContext.callerOf), (caller) =>
    Effect.map(server.secrets, (own) => (Option.isSome(caller) ? [...own, Redacted.value(caller.value.secret)] : own)),
  ),
})

/** Auth, made to send each mapped identity's own key; the server's Auth beneath it. */
export const layer: Layer.Layer<Auth, never, Auth> = Layer.effect(Auth, Effect.map(Auth, withIdentities))

/**
 * Whether calls may carry an identity's own key (sign-in is configured): the
 * client's bundle then wraps its Auth (`layer`) and keeps the refused-key
 * guard. Off by default.
 */
export class IdentityKeys extends Context.Reference<IdentityKeys>()("svc-mcp/SignIn/IdentityKeys", {
  defaultValue: (): boolean => false,
}) {}

/** On when SVC_MCP_OAUTH_ISSUER is set; provide it beneath the client's bundle, which reads it. */
export const layerConfig: Layer.Layer<IdentityKeys, ConfigError> = Layer.effect(IdentityKeys, SignInSettings.enabled)
