/**
 * A record's list item, read beside it for what only the list says: a stack's, a deployment's and a
 * build's state (service-notes.md: a full record has no state), for its glance and for an
 * execution's result on it. One read, the list asked for the record's name alone, its item found by
 * id; a read that fails leaves the state out, never guessed.
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { isObject } from "../../Shared/JsonShape.js"
import type { SvcClientShape } from "../../SvcClient.js"
import { KIND_OF_TYPE, type NameMaps } from "../Names/Names.js"
import { listOf } from "./Questions.js"

type Json = Readonly<Record<string, unknown>>

/** By an Update's target type: the record's read, whose questions say which list holds its state. */
const GET_OF_TYPE: Readonly<Record<string, string>> = {
  Stack: "read/GetStack",
  Deployment: "read/GetDeployment",
  Build: "read/GetBuild",
}

const read = (client: SvcClientShape, list: string, id: string, name: string): Effect.Effect<Json | undefined> =>
  client.call("read", list.replace("read/", ""), { query: { names: [name] }, limit: 0 }).pipe(
    Effect.map((items) =>
      Array.isArray(items) ? items.find((item): item is Json => isObject(item) && item.id === id) : undefined,
    ),
    Effect.orElseSucceed(() => undefined),
    // A read the user did not ask for: its failure leaves the state out, not a warning.
    Logger.withMinimumLogLevel(LogLevel.Error),
  )

/** The list item of the record `endpoint` answered, where a question of its glance is its list's. */
export const ofRecord = (
  endpoint: string,
  record: unknown,
  client: SvcClientShape,
): Effect.Effect<Json | undefined> => {
  const list = listOf(endpoint)
  if (list === undefined || !isObject(record) || typeof record.name !== "string") return Effect.succeed(undefined)
  const id = isObject(record._id) ? record._id.$oid : undefined
  return typeof id === "string" ? read(client, list, id, record.name) : Effect.succeed(undefined)
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
  const list = listOf(GET_OF_TYPE[target.type] ?? "")
  const kind = KIND_OF_TYPE[target.type]
  const name = (kind === undefined ? undefined : names?.[kind]?.get(target.id)) ?? given
  return list === undefined || name === undefined ? Effect.succeed(undefined) : read(client, list, target.id, name)
}

/** The state a list item holds, as a field to spread: none where it holds none. */
export const stateField = (item: Json | undefined): { readonly state?: string } => {
  const info = item?.info
  return isObject(info) && typeof info.state === "string" ? { state: info.state } : {}
}
