/**
 * How a plan reads what it shows: one call to the service, its failure in
 * words; and the small readers of the service's JSON the plans share.
 */
import * as Effect from "effect/Effect"
import { type Group, SvcClient } from "../SvcClient.js"

export const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined

export const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []

/** A record's id: `_id.$oid` (full records, users, groups) or `id` (list items). */
export const idOf = (value: unknown): string | undefined =>
  text(field(field(value, "_id"), "$oid")) ?? text(field(value, "id"))

/**
 * A read a question decides what to say on: whole, past the answer cap (SvcClient's "whole"
 * reading), or failed, so that a plan says it could not be read rather than summarise a part.
 */
export const read = (group: Group, endpoint: string, params: object) =>
  Effect.flatMap(SvcClient, (client) => client.call(group, endpoint, params, "whole")).pipe(
    // Its message names the call and the service's words.
    Effect.mapError((error) => error.message),
  )
