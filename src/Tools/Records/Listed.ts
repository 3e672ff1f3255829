/**
 * A record's list item, read beside it for what only the list says: its state (service-notes.md: a
 * full record has none), for its glance and for an execution's result on it, for each kind whose
 * glance asks it (Questions.ts); which list, and where in its item, as the table of kinds says
 * (Kinds/Kinds.ts). One read, the list asked for the record's name alone, its item found by id; a
 * read that fails leaves the state out, never guessed.
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Kinds from "../../Kinds/Kinds.js"
import { isObject } from "../../Shared/JsonShape.js"
import type { SvcClientShape } from "../../SvcClient.js"
import type { NameMaps } from "../Names/Names.js"
import { listOf } from "./Questions.js"

type Json = Readonly<Record<string, unknown>>

const read = (client: SvcClientShape, list: string, id: string, name: string): Effect.Effect<Json | undefined> =>
  client.call("read", list, { query: { names: [name] }, limit: 0 }).pipe(
    Effect.map((items) =>
      Array.isArray(items) ? items.find((item): item is Json => isObject(item) && item.id === id) : undefined,
    ),
    Effect.orElseSucceed(() => undefined),
    // A read the user did not ask for: its failure leaves the state out, not a warning.
    Logger.withMinimumLogLevel(LogLevel.Error),
  )

/** The list item of a record, read from the list of `kind` where a question of its glance is its list's (ReadsBeside.ts). */
export const ofRecord = (
  kind: Kinds.Kind | undefined,
  record: unknown,
  client: SvcClientShape,
): Effect.Effect<Json | undefined> => {
  if (kind === undefined || !isObject(record) || typeof record.name !== "string") return Effect.succeed(undefined)
  const id = isObject(record._id) ? record._id.$oid : undefined
  return typeof id === "string" ? read(client, kind.list, id, record.name) : Effect.succeed(undefined)
}

/**
 * The list item of a completed Update's target, where its type's glance asks its list: named as the
 * names read for the glance name it, else as the call's params gave it.
 */
export const ofUpdate = (
  update: unknown,
  names: NameMaps | undefined,
  given: string | undefined,
  client: SvcClientShape,
): Effect.Effect<Json | undefined> => {
  const target = isObject(update) && update.status === "Complete" ? update.target : undefined
  if (!isObject(target) || typeof target.type !== "string" || typeof target.id !== "string") {
    return Effect.succeed(undefined)
  }
  const get = Kinds.byType(target.type)?.[1].get
  const listing = get === undefined ? undefined : listOf(`read/${get.endpoint}`)
  const kind = Kinds.wordOf(target.type)
  const name = (kind === undefined ? undefined : names?.[kind]?.get(target.id)) ?? given
  return listing === undefined || name === undefined
    ? Effect.succeed(undefined)
    : read(client, listing.list, target.id, name)
}

/** The state a list item of a target's `type` holds, where the table of kinds says, as a field to spread: none where it holds none. */
export const stateField = (type: unknown, item: Json | undefined): { readonly state?: string } => {
  const kind = typeof type === "string" ? Kinds.byType(type)?.[1] : undefined
  const state = kind === undefined ? undefined : Kinds.stateIn(kind, item)
  return typeof state === "string" ? { state } : {}
}
