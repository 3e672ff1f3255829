/**
 * The HTTP server as an OAuth 2.1 protected resource: what it publishes (RFC
 * 9728 metadata), how it challenges (RFC 6750), and what it decides for each
 * request: the token verified, the person it names mapped to credentials, the
 * scope each tool call needs. The adapter (Mcp/Http/BearerGate.ts) puts this on the
 * wire; nothing here knows the MCP SDK.
 *
 * An optional part: on when its layer is provided (SVC_MCP_OAUTH_ISSUER set),
 * and nothing to name when off.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { Minting, type MintShape, type Revoked } from "../Mint/Shape.js"
import { Services } from "../Registry/Registry.js"
import * as Identities from "../Settings/Identities.js"
import type { ConfigError } from "../Settings/Read.js"
import type { SignInSettingsShape } from "../Settings/SignIn.js"
import * as SignInSettings from "../Settings/SignIn.js"
import { isObject } from "../Shared/JsonShape.js"
import * as Runner from "../Shared/Runner.js"
import * as Definitions from "../Tools/Catalog/Definitions.js"
import type { Tier } from "../Tools/Catalog/Tool.js"
import type { Identity } from "./Identity.js"
import * as Scopes from "./Scopes.js"
import * as Verifier from "./Verifier.js"

export const METADATA_PATH = "/.well-known/oauth-protected-resource"

/** A request let in: who it is, and what their calls send. */
export interface Admitted {
  readonly identity: Identity
  readonly entry: Identities.Entry
  readonly expiresAt: number
}

/** Why a request is refused, and how to answer it. */
export type Refusal =
  | { readonly _tag: "Unauthorized"; readonly reason: Option.Option<string> }
  | { readonly _tag: "Unavailable"; readonly reason: string }
  | {
      readonly _tag: "Forbidden"
      readonly reason: string
      /** Whom a verified token names, for the audit: `oauth:<name>`, or its issuer and subject. */
      readonly who?: string
    }
  | { readonly _tag: "InsufficientScope"; readonly scope: string; readonly reason: string }

export interface SignInShape {
  readonly settings: SignInSettingsShape
  readonly scopes: Scopes.Scopes
  /** Where the resource's metadata is published: its RFC 9728 path-aware URL. */
  readonly metadataUrl: string
  /** The RFC 9728 document. */
  readonly metadata: Readonly<Record<string, unknown>>
  /** The paths that serve the document: the path-aware one and the root one. */
  readonly metadataPaths: ReadonlyArray<string>
  /** The `WWW-Authenticate` value of a refusal (none for a 503 or a plain 403). */
  readonly challenge: (refusal: Refusal) => string | undefined
  /** The request's token verified and its person mapped, or why not. */
  readonly admit: (token: Option.Option<string>) => Effect.Effect<Admitted, Refusal>
  /** For each JSON-RPC message of a body: a refusal of a tool call this person may not make. */
  readonly screen: (admitted: Admitted, body: unknown) => Option.Option<Refusal>
  /** The identities file read again (SIGHUP): its fault, or none. */
  readonly reload: Effect.Effect<Option.Option<string>>
  /** The identities mapping in force. */
  readonly mapping: Effect.Effect<Identities.Identities>
}

/** Sign-in when it is on; None, the default, when it is off (no layer of it provided). */
export class SignIn extends Context.Reference<SignIn>()("svc-mcp/SignIn", {
  defaultValue: (): Option.Option<SignInShape> => Option.none(),
}) {}

const quoted = (value: string) => `"${value.replaceAll(/[\\"]/g, "\\$&").replaceAll(/[^\u0020-\u007E]/g, " ")}"`

const TIERS = new Map<string, Tier>(Definitions.all.map((tool) => [tool.name, tool.tier]))

const NOT_NAMED = (claim: string) =>
  `the token has no ${claim} claim, which names people on this server (SVC_MCP_IDENTITIES' claim)`

/** The `WWW-Authenticate` value of a refusal, pointing at the metadata and the basic scope. */
const challengeOf = (refusal: Refusal, metadataUrl: string, basic: string): string | undefined => {
  switch (refusal._tag) {
    case "Unauthorized":
      // RFC 6750 3.1: a request with no token gets no error code.
      return Option.isNone(refusal.reason)
        ? `Bearer resource_metadata=${quoted(metadataUrl)}, scope=${quoted(basic)}`
        : `Bearer error="invalid_token", error_description=${quoted(refusal.reason.value)}, resource_metadata=${quoted(metadataUrl)}, scope=${quoted(basic)}`
    case "InsufficientScope":
      return `Bearer error="insufficient_scope", scope=${quoted(refusal.scope)}, resource_metadata=${quoted(metadataUrl)}`
    default:
      return undefined
  }
}

/** The token verified, and the person it names found in the identities mapping. */
const admitWith = (
  verifier: Verifier.Verifier,
  identities: Ref.Ref<Identities.Identities>,
  token: Option.Option<string>,
): Effect.Effect<Admitted, Refusal> =>
  Effect.gen(function* () {
    if (Option.isNone(token)) return yield* Effect.fail<Refusal>({ _tag: "Unauthorized", reason: Option.none() })
    const verified = yield* verifier
      .verify(token.value)
      .pipe(
        Effect.mapError(
          (error): Refusal =>
            error._tag === "KeysUnavailable"
              ? { _tag: "Unavailable", reason: error.reason }
              : { _tag: "Unauthorized", reason: Option.some(error.reason) },
        ),
      )
    const mapping = yield* Ref.get(identities)
    const named = verified.claims[mapping.claim]
    if (typeof named !== "string" && typeof named !== "number") {
      const who = `oauth:${JSON.stringify([verified.issuer, verified.subject])}`
      return yield* Effect.fail<Refusal>({ _tag: "Forbidden", reason: NOT_NAMED(mapping.claim), who })
    }
    // An identity is its issuer and its claim: among several issuers, its name says which.
    const name = Identities.nameOf(mapping, verified.issuer, String(named))
    const entry = Identities.entryFor(mapping, name)
    if (entry === undefined) {
      return yield* Effect.fail<Refusal>({
        _tag: "Forbidden",
        reason: `the identity ${JSON.stringify(name)} has no entry in SVC_MCP_IDENTITIES, so it may not call the service; ask the server's operator to add it`,
        who: `oauth:${name}`,
      })
    }
    return {
      identity: { issuer: verified.issuer, subject: verified.subject, name, scopes: verified.scopes },
      entry,
      expiresAt: verified.expiresAt,
    }
  })

/** A refusal of one JSON-RPC message: a tool call whose scope the token lacks, or for a service the person has no credentials for. */
const screenOne = (
  scopes: Scopes.Scopes,
  services: ReadonlyArray<string>,
  admitted: Admitted,
  message: unknown,
): Option.Option<Refusal> => {
  if (!isObject(message) || message.method !== "tools/call" || !isObject(message.params)) return Option.none()
  const tier = typeof message.params.name === "string" ? TIERS.get(message.params.name) : undefined
  // An unknown tool is the policy's to refuse, with the list of tools.
  if (tier === undefined) return Option.none()
  if (!scopes.allows(admitted.identity.scopes, tier)) {
    const scope = scopes.needed(tier)
    return Option.some({
      _tag: "InsufficientScope",
      scope,
      reason: `${message.params.name} needs the scope ${scope} (or a broader one), which the token does not carry`,
    })
  }
  if (admitted.entry._tag === "PerService" && services.length > 0) {
    const args = message.params.arguments
    const service = isObject(args) && typeof args.service === "string" ? args.service : services[0]
    if (service !== undefined && services.includes(service) && !admitted.entry.services.has(service)) {
      return Option.some({
        _tag: "Forbidden",
        reason: `the identity ${JSON.stringify(admitted.identity.name)} has no credentials for the service ${service} in SVC_MCP_IDENTITIES`,
      })
    }
  }
  return Option.none()
}

/** The identities file read again into the mapping: its fault, or none (and the mapping unchanged). */
const reloadInto = (
  settings: SignInSettingsShape,
  services: ReadonlyArray<string>,
  identities: Ref.Ref<Identities.Identities>,
): Effect.Effect<Option.Option<string>> =>
  Effect.gen(function* () {
    if (Option.isNone(settings.identitiesPath)) return Option.none<string>()
    const loaded = Identities.load(settings.identitiesPath.value, services, settings.issuers)
    if (Either.isLeft(loaded)) return Option.some(loaded.left)
    yield* Ref.set(identities, loaded.right)
    return Option.none<string>()
  })

export const make = (
  settings: SignInSettingsShape,
  services: ReadonlyArray<string> = [],
  options: { readonly fetch?: typeof globalThis.fetch } = {},
): Effect.Effect<SignInShape> =>
  Effect.gen(function* () {
    const verifier = yield* Verifier.make({
      issuers: settings.issuers,
      audience: settings.audience,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    })
    const scopes = Scopes.make(settings.scopePrefix)
    const identities = yield* Ref.make(settings.identities)
    const resource = new URL(settings.resource)
    const metadataUrl = `${resource.origin}${METADATA_PATH}${resource.pathname}`
    const basic = scopes.all[0] as string
    return {
      settings,
      scopes,
      metadataUrl,
      metadata: {
        resource: settings.resource,
        authorization_servers: settings.issuers,
        // The minimal set for basic use: reading. Broader scopes are asked for by step-up.
        scopes_supported: scopes.all,
        bearer_methods_supported: ["header"],
        resource_name: "svc-mcp",
      },
      metadataPaths: [`${METADATA_PATH}${resource.pathname}`, METADATA_PATH],
      challenge: (refusal) => challengeOf(refusal, metadataUrl, basic),
      admit: (token) => admitWith(verifier, identities, token),
      screen: (admitted, body) => {
        if (!Array.isArray(body)) return screenOne(scopes, services, admitted, body)
        for (const message of body) {
          const refusal = screenOne(scopes, services, admitted, message)
          if (Option.isSome(refusal)) return refusal
        }
        return Option.none()
      },
      reload: reloadInto(settings, services, identities),
      mapping: Ref.get(identities),
    }
  })

/** The grant the mapping gives a person whose entry says `mint`; none for anyone else. */
const grantIn = (mapping: Identities.Identities) => (person: string) => {
  const entry = Identities.entryFor(mapping, person)
  return entry?._tag === "All" && entry.credentials._tag === "Mint" ? entry.credentials.grant : undefined
}

const mintsAny = (mapping: Identities.Identities) =>
  [...mapping.entries.values()].some((e) => e._tag === "All" && e.credentials._tag === "Mint")

/** A person's keys revoked on reload, and what it did: for the audit log. */
export type OnRevoked = (revoked: Revoked & { readonly person: string }) => Effect.Effect<void>

/** The people with an entry of their own that mints in `before` and none in `after`. */
const removed = (before: Identities.Identities, after: Identities.Identities): ReadonlyArray<string> => {
  const now = grantIn(after)
  return [...before.entries.keys()].filter(
    (name) => name !== "*" && !name.endsWith("#*") && grantIn(before)(name) !== undefined && now(name) === undefined,
  )
}

/**
 * Each service's minting: no key is minted any more but for the identities now in force; the keys
 * of people whose entry went or changed are deleted at the service, and the service users of
 * those whose entry went are disabled.
 */
const revokeGone = (
  signIn: SignInShape,
  minters: ReadonlyArray<MintShape>,
  before: Identities.Identities,
  onRevoked: OnRevoked,
) =>
  Effect.gen(function* () {
    const after = yield* signIn.mapping
    const grantOf = grantIn(after)
    const named = removed(before, after)
    for (const minter of minters) {
      yield* minter.reconcile(grantOf, named).pipe(
        Effect.tap((gone) => Effect.forEach(gone, onRevoked, { discard: true })),
        Effect.flatMap((gone) =>
          gone.length === 0
            ? Effect.void
            : Effect.logInfo(`revoked the minted keys of ${gone.map((r) => JSON.stringify(r.person)).join(", ")}`),
        ),
        Effect.catchAll((error) => Effect.logWarning(`${error.message}; the keys are revoked at the next SIGHUP`)),
      )
    }
  })

/** Minting of the one service, or of each of several (SVC_SERVICES). */
const mintersIn = Effect.gen(function* () {
  const services = yield* Services
  const all = services.length === 0 ? [yield* Minting] : services.map((s) => Context.get(s.context, Minting))
  return all.flatMap((minter) => Option.toArray(minter))
})

/**
 * SIGHUP reads SVC_MCP_IDENTITIES again for the life of the scope; a bad file leaves the mapping in
 * force. A good one ends the minted keys of those whose entry went or changed.
 */
const reloadOnHangUp = (signIn: SignInShape, onRevoked: OnRevoked) =>
  Effect.gen(function* () {
    if (Option.isNone(signIn.settings.identitiesPath)) return
    const runner = yield* Runner.current
    const path = signIn.settings.identitiesPath.value
    const minters = yield* mintersIn
    const onHangUp = () =>
      runner.fork(
        Effect.gen(function* () {
          const before = yield* signIn.mapping
          const fault = yield* signIn.reload
          if (Option.isSome(fault)) {
            return yield* Effect.logWarning(
              `SVC_MCP_IDENTITIES (${JSON.stringify(path)}) ${fault.value}: the previous mapping stays in force`,
            )
          }
          yield* Effect.logInfo(`SVC_MCP_IDENTITIES read again (${JSON.stringify(path)})`)
          // Only where some entry mints, or did: a server of mapped keys asks the service nothing.
          if (mintsAny(before) || mintsAny(yield* signIn.mapping)) yield* revokeGone(signIn, minters, before, onRevoked)
        }),
      )
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("SIGHUP", onHangUp)),
      () => Effect.sync(() => process.off("SIGHUP", onHangUp)),
    )
  })

/**
 * Sign-in as the ConfigProvider says (SVC_MCP_OAUTH_ISSUER and the rest), for
 * a program that embeds the HTTP server: nothing when unset. Provide it with
 * `SignInAuth.layerConfig` beneath the client's bundle, so that mapped keys are sent.
 */
export const layerConfig = (services: ReadonlyArray<string> = []): Layer.Layer<never, ConfigError> =>
  Layer.unwrapScoped(
    Effect.map(SignInSettings.load(services), (settings) =>
      Option.isSome(settings) ? layer(settings.value, services) : Layer.empty,
    ),
  )

/** Sign-in on, with these settings, for the life of the layer; `onRevoked` hears of each revocation a reload makes. */
export const layer = (
  settings: SignInSettingsShape,
  services: ReadonlyArray<string> = [],
  onRevoked: OnRevoked = () => Effect.void,
): Layer.Layer<SignIn> =>
  Layer.scoped(
    SignIn,
    make(settings, services).pipe(
      Effect.tap((signIn) => reloadOnHangUp(signIn, onRevoked)),
      Effect.map(Option.some),
    ),
  )
