/**
 * The Auth of a server with sign-in: a call whose identity is mapped to a key
 * of its own sends exactly that key (in the call's context, set by
 * Identity.signedIn); one whose entry says `mint` sends the key minted for the
 * person (Mint/); any other call sends the server's own credentials. A mapped
 * key the service refuses is not tried again: the service counts failures per
 * address, and a login cannot make another person's key valid. A minted key
 * the service refuses is minted again, once.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Auth, type AuthShape, type Credential } from "../Auth.js"
import * as CallContext from "../Call/Context.js"
import * as Mint from "../Mint/Shape.js"
import { SvcAuthError } from "../Service/Errors.js"
import * as MintSettings from "../Settings/Mint.js"
import type { ConfigError } from "../Settings/Read.js"
import * as SignInSettings from "../Settings/SignIn.js"

/** The generation of a mapped key's headers: never renewed. */
const MAPPED = -1
/** The generation of a minted key's headers: a refusal mints another, once. */
const MINTED = -2

const MINT_CALL = { group: "auth", endpoint: "mint" } as const

/** The service refused a key minted for the person, and the one minted again for the retry too. */
const MINTED_REFUSED =
  "the service refused the key minted for this person, and the one minted again at once; check the server's own credentials are an admin's and the service user's permissions (svc-mcp people)"

const mintFailure = (error: Mint.MintError) =>
  new SvcAuthError({ call: MINT_CALL, reason: "Rejected", status: 503, detail: error.message })

const mintedCredential = (held: Mint.Held): Credential => ({
  headers: { "x-api-key": held.key, "x-api-secret": Redacted.value(held.secret) },
  generation: MINTED,
  refusal: MINTED_REFUSED,
})

type Minted = Extract<CallContext.Credentials, { readonly _tag: "Minted" }>

const mintedOf = (context: CallContext.CallContext): Minted | undefined =>
  context.credentials._tag === "Minted" ? context.credentials : undefined

const MAPPED_REFUSED = new SvcAuthError({
  call: { group: "auth", endpoint: "identity" },
  reason: "Rejected",
  status: 401,
  detail:
    "the service refused the API key SVC_MCP_IDENTITIES maps this identity to; it is not tried again (check the key's files and whether it has expired)",
})

/** What a refused credential is replaced with: a minted key minted again, a server's login renewed, a mapped key never. */
const renewOf = (server: AuthShape, minting: Option.Option<Mint.MintShape>) => {
  if (Option.isNone(server.renew) && Option.isNone(minting)) return Option.none()
  return Option.some((stale: Credential) => {
    if (stale.generation === MAPPED) return Effect.fail(MAPPED_REFUSED)
    if (stale.generation === MINTED && Option.isSome(minting)) {
      return Effect.flatMap(CallContext.get, (context) => {
        const minted = mintedOf(context)
        if (minted === undefined) return Effect.fail(MAPPED_REFUSED)
        return minting.value
          .refused(minted.person, minted.grant, stale.headers["x-api-key"] ?? "")
          .pipe(Effect.mapBoth({ onFailure: mintFailure, onSuccess: mintedCredential }))
      })
    }
    return Option.isSome(server.renew) ? server.renew.value(stale) : Effect.fail(MAPPED_REFUSED)
  })
}

/**
 * The server's Auth, made to send each signed-in person's credentials: a
 * mapped key of their own, or the key minted for them (`minting`), else the
 * server's own.
 */
export const withIdentities = (
  server: AuthShape,
  minting: Option.Option<Mint.MintShape> = Option.none(),
): AuthShape => ({
  method: server.method,
  credential: Effect.flatMap(CallContext.get, (context) => {
    const minted = mintedOf(context)
    if (minted !== undefined) {
      return Option.isNone(minting)
        ? Effect.fail(
            mintFailure(new Mint.MintError({ person: minted.person, reason: "minting is not set up on this server" })),
          )
        : minting.value
            .credential(minted.person, minted.grant)
            .pipe(Effect.mapBoth({ onFailure: mintFailure, onSuccess: mintedCredential }))
    }
    const caller = CallContext.callerOf(context)
    return Option.isNone(caller)
      ? server.credential
      : Effect.succeed<Credential>({
          headers: { "x-api-key": caller.value.key, "x-api-secret": Redacted.value(caller.value.secret) },
          generation: MAPPED,
        })
  }),
  renew: renewOf(server, minting),
  secrets: Effect.flatMap(CallContext.get, (context) => {
    const caller = CallContext.callerOf(context)
    const minted = mintedOf(context)
    const held = minted === undefined || Option.isNone(minting) ? Option.none() : minting.value.held(minted.person)
    return Effect.map(server.secrets, (own) => [
      ...own,
      ...Option.toArray(Option.map(caller, (c) => Redacted.value(c.secret))),
      ...Option.toArray(Option.map(held, (h) => Redacted.value(h.secret))),
    ])
  }),
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

/**
 * On when SVC_MCP_OAUTH_ISSUER is set, with the minted keys' lifetime (SVC_MCP_MINT_LIFETIME);
 * provide it beneath the client's bundle, which reads both.
 */
export const layerConfig: Layer.Layer<IdentityKeys | MintSettings.MintSettings, ConfigError> = Layer.unwrapEffect(
  Effect.flatMap(SignInSettings.enabled, (enabled) =>
    Effect.map(enabled ? MintSettings.load : MintSettings.MintSettings, (settings) =>
      Layer.merge(Layer.succeed(IdentityKeys, enabled), Layer.succeed(MintSettings.MintSettings, settings)),
    ),
  ),
)
