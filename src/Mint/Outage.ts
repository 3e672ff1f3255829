/**
 * Minted keys through an outage of the shared store (down, or stalled past its
 * time-out). What the store holds for minting, the lock that keeps one key per
 * person across replicas and the sealed record each replica opens the key
 * from, cannot be had while it does not answer. So no key is minted then: a
 * person's first call is refused at once (within the store's time-out), with
 * why. And a key this process has opened already, which it keeps in memory
 * with the sealed text it was opened from (Mint.ts), is used while it lives:
 * past the half of its lifetime too, when it would otherwise be renewed, so
 * that the people already served go on being served. A key revoked meanwhile
 * is refused by the service, and that call is refused as any other.
 */
import * as Effect from "effect/Effect"
import type { StoreError } from "../Store/Shape.js"
import { type Held, MintError } from "./Shape.js"

/** Why no key can be minted while the store at `where` does not answer. */
export const refusal =
  (person: string, where: string) =>
  (error: StoreError): MintError =>
    new MintError({
      person,
      reason: `the shared store at ${where} does not answer (${error.operation}: ${error.detail}): no key is minted until it answers, as the store keeps one key per person across replicas; people this replica has served already go on being served; try again once it answers`,
    })

/** Whether a key held in memory may be used for a call now: minted for this grant, and not yet expired. */
const usable = (held: Held | undefined, description: string, now: number): held is Held =>
  held !== undefined && held.description === description && now < held.expires

/** The key this process holds for the person, while the store does not answer; else the refusal. */
export const held = (
  kept: Held | undefined,
  person: string,
  description: string,
  where: string,
  error: StoreError,
): Effect.Effect<Held, MintError> =>
  Effect.suspend(() =>
    usable(kept, description, Date.now()) ? Effect.succeed(kept) : Effect.fail(refusal(person, where)(error)),
  )
