/**
 * What minting is to the parts that use it (Mint.ts says what it does): its
 * shape, its one error and the reference that holds it. Apart from the rest,
 * so that naming it loads none of it: a start without sign-in never does.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as CallContext from "../Call/Context.js"

export class MintError extends Data.TaggedError("MintError")<{
  readonly person: string
  readonly reason: string
  /**
   * The person may have no key at all (their service user is disabled, or their entry went): a
   * 403, not a failure to try again.
   */
  readonly refused?: boolean
  /** Seconds until trying again may succeed (the bound on new people a minute). */
  readonly retryAfter?: number
}> {
  override get message(): string {
    return `no service key could be minted for ${JSON.stringify(this.person)}: ${this.reason}`
  }
}

/** A key minted for a person, as this process holds it. */
export interface Held {
  readonly key: string
  readonly secret: Redacted.Redacted<string>
  readonly userId: string
  readonly username: string
  readonly created: number
  readonly expires: number
  /** The grant in words (Service.describe): a key minted for another grant is not used. */
  readonly description: string
}

/** One person holding minted keys at the service, as `svc-mcp people` lists them. */
export interface Holder {
  readonly person: string
  readonly username: string
  /** When each of their live keys was made (ms since the epoch), newest first. */
  readonly created: ReadonlyArray<number>
  readonly description: string
  /** False once revoked (or disabled at the service): no key is minted for them. */
  readonly enabled: boolean
}

/** The service users minting made, as far as the service's list could be read whole. */
export interface Holders {
  readonly holders: ReadonlyArray<Holder>
  /** The service's list of users could not be read whole (past WHOLE_TIMES SVC_MAX_ANSWER_BYTES): some may be missing. */
  readonly cut: boolean
}

/** What a revocation found and did. */
export interface Revoked {
  readonly username: string
  /** Whether the service has a user of that name. */
  readonly found: boolean
  /** How many of its keys were deleted. */
  readonly keys: number
  readonly disabled: boolean
}

export interface MintShape {
  /** The person's live key for this grant: held, or minted (or renewed) now. */
  readonly credential: (person: string, grant: CallContext.Grant) => Effect.Effect<Held, MintError>
  /** The service refused `stale`: the key another call minted since, or a new one. */
  readonly refused: (person: string, grant: CallContext.Grant, stale: string) => Effect.Effect<Held, MintError>
  /**
   * Deletes the person's keys at the service and forgets them; how many were deleted. With
   * `disable`, their service user is disabled too, so that no key is minted for them again until
   * an admin enables it at the service.
   */
  readonly revoke: (person: string, disable?: boolean) => Effect.Effect<Revoked, MintError>
  /** The service users minting made: those who hold keys, and those disabled. */
  readonly holders: Effect.Effect<Holders, MintError>
  /**
   * The identities now in force (`grantOf`, after a reload): from now on no key is minted but for
   * the grant it gives. Each holder whose grant it no longer gives has their keys deleted; one
   * who has no entry any more has their service user disabled too. `named` are people whose own
   * entry went, looked up by name whatever the service's list shows. Whom it revoked, and what it did.
   */
  readonly reconcile: (
    grantOf: (person: string) => CallContext.Grant | undefined,
    named?: ReadonlyArray<string>,
  ) => Effect.Effect<ReadonlyArray<Revoked & { readonly person: string }>, MintError>
  /** The service user a person's calls are sent as. */
  readonly usernameOf: (person: string) => string
  /** The key this process holds for the person, if any (its secret is scrubbed from failures). */
  readonly held: (person: string) => Option.Option<Held>
}

/** Minting, when sign-in is on (the client's bundle makes it); none, the default, otherwise. */
export class Minting extends Context.Reference<Minting>()("svc-mcp/Mint/Minting", {
  defaultValue: (): Option.Option<MintShape> => Option.none(),
}) {}
