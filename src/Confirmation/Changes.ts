/**
 * What an update's question shows (Previews.ts, for an update with no plan of its own): each
 * changed field's current and new value, the current read with the get of the same resource type
 * (Tools/Catalog/Tables.ts `get`), whole or not at all; ids of a kind with names shown by name on
 * both sides, secrets as an answer shows them.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isObject } from "../Shared/JsonShape.js"
import { oneLine, quote, word } from "../Shared/Quote.js"
import { REDACTED } from "../Shared/Secrets.js"
import { SvcClient } from "../SvcClient.js"
import { redact } from "../Tools/Bounds/AnswerBounds.js"
import * as Tables from "../Tools/Catalog/Tables.js"
import type { NameKind, NameMaps } from "../Tools/Names/Names.js"
import type { Asking, Preview } from "./PlanShape.js"

/** Fields of an update whose values are ids of a kind with names: shown by name, before and after alike. */
const ID_FIELDS: Readonly<Record<string, NameKind>> = {
  server_id: "server",
  builder_id: "builder",
  tags: "tag",
  match_tags: "tag",
}

/** A field's value with each id that has a name shown as the name; a value given by name stays as given. */
const named = (maps: NameMaps, field: string, value: unknown): unknown => {
  const kind = ID_FIELDS[field]
  const map = kind === undefined ? undefined : maps[kind]
  if (map === undefined) return value
  const one = (v: unknown) => (typeof v === "string" ? (map.get(v) ?? v) : v)
  return Array.isArray(value) ? value.map(one) : one(value)
}

/** The names of the kinds the changed fields hold ids of, read once (and kept) per caller. */
const namesFor = (question: Asking, fields: ReadonlyArray<string>): Effect.Effect<NameMaps> => {
  const kinds = [...new Set(fields.flatMap((f) => (ID_FIELDS[f] === undefined ? [] : [ID_FIELDS[f]])))]
  const names = question.names ?? Option.none()
  return kinds.length === 0 || Option.isNone(names) ? Effect.succeed({}) : names.value.lookup(kinds)
}

/** A value on its one line: a string quoted, anything else as JSON, escaped and cut alike. */
export const shown = (value: unknown) =>
  value === undefined
    ? "(not set)"
    : typeof value === "string"
      ? quote(value)
      : oneLine(JSON.stringify(value) ?? String(value))

/** The most fields of an update its question lists; the rest are counted. */
const FIELDS = 30

/**
 * For an update: each changed field's current and new value. The current
 * record is read with the get endpoint of the same resource type (Tables.get);
 * secrets are shown as they would be in an answer.
 */
const changes = (question: Asking): Effect.Effect<ReadonlyArray<string>, never, SvcClient> =>
  Effect.gen(function* () {
    const { invocation, revealSecrets } = question
    const getEndpoint = (Tables.get as Readonly<Record<string, string>>)[invocation.selector]
    const body = invocation.body
    // Update bodies name the resource by id (most), tag, or name (variables).
    const key = ["id", "tag", "name", "user_group"].find((k) => typeof body[k] === "string")
    // The new values: a `config` or `account` object, or the one field beside the name (a tag's colour, a variable's value).
    const payloadKey = isObject(body.config) ? "config" : isObject(body.account) ? "account" : undefined
    const next: Record<string, unknown> =
      payloadKey === undefined
        ? Object.fromEntries(Object.entries(body).filter(([k]) => k !== key))
        : (body[payloadKey] as Record<string, unknown>)
    let current: Record<string, unknown> | undefined
    let unread = ""
    if (getEndpoint !== undefined && key !== undefined) {
      const record = yield* SvcClient.pipe(
        // Whole or not at all: a record cut short would show its later fields as not set.
        Effect.flatMap((client) => client.call("read", getEndpoint, { [key]: body[key] }, "whole")),
        Effect.either,
      )
      if (record._tag === "Right" && isObject(record.right)) {
        const secretVariable = record.right.is_secret === true
        const fields = payloadKey === "config" && isObject(record.right.config) ? record.right.config : record.right
        current = revealSecrets ? fields : (redact(fields) as Record<string, unknown>)
        if (secretVariable && !revealSecrets) current = { ...current, value: REDACTED }
      } else {
        unread = ` (the current record could not be read${record._tag === "Left" ? `: ${oneLine(record.left.message)}` : ""})`
      }
    }
    const shownNext = revealSecrets ? next : (redact(next) as Record<string, unknown>)
    const secretNext = current?.value === REDACTED && payloadKey === undefined
    const prefix = payloadKey === undefined ? "" : `${payloadKey}.`
    const maps = yield* namesFor(question, Object.keys(next))
    const fields = Object.keys(next)
    const lines = fields.slice(0, FIELDS).map((field) => {
      const now = current === undefined ? "" : `${shown(named(maps, field, current[field]))} -> `
      const then = secretNext && field === "value" ? REDACTED : shown(named(maps, field, shownNext[field]))
      return `  ${prefix}${word(field)}: ${now}${then}`
    })
    const rest = fields.length > FIELDS ? [`  … and ${fields.length - FIELDS} more fields`] : []
    return [`Changes${unread}:`, ...lines, ...rest]
  })

/** An update's changes, each now and after, as its question shows them. */
export const CHANGES: Preview = { lines: changes }
